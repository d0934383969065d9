"""`noitu bench app`: the CPU one request of the real mix costs inside the ASGI app, next
to the floor app's (`floor_app`), without sockets, uvicorn or a second process.

`noitu bench http --floor` is the figure the budget names, but on a machine shared
with other work its requests per second move with the neighbours. This drives both
apps' ASGI callables on one event loop instead: the real one as `noitu serve` builds
it (memory or Redis store, the access log as configured, on by default), with 300 game
slots playing the real mix (a start, common words, a give-up at a dead end, the next
start) in turn, on a clock that advances 7 ms per request (so each session's requests
are ~2 s apart and the 300 ms limit never answers); the floor with the same bodies on
the same paths. The CPU time (`time.process_time`) spent inside the app's call is
summed per batch and the best batch of `--runs` is kept: the least disturbed one.
What runs after a request (a score report spawned on the background) is in the next
request's batch total (`whole`), not in the app's share.
"""

from __future__ import annotations

import asyncio
import gc
import os
import random
import secrets
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec

from noitu.adapters.http.paths import NOITU_API_PATH
from noitu.bench.machine import format_machine, machine, row

SLOTS = 300
CLOCK_STEP_MS = 7
_decode = msgspec.json.Decoder().decode


class StepClock:
    """The server's clock for this benchmark: advanced by the driver, never by time."""

    def __init__(self) -> None:
        self.ms = int(time.time() * 1000)

    def now_ms(self) -> int:
        return self.ms


class AppCaller:
    """Calls an ASGI app with one POST and counts the CPU spent inside the call."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.spent = 0.0

    async def post(self, route: str, payload: dict) -> tuple[int, bytes]:
        body = msgspec.json.encode(payload)
        path = f"{NOITU_API_PATH}/{route}"
        scope = {
            "type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1", "method": "POST", "scheme": "http", "path": path,
            "raw_path": path.encode(), "root_path": "", "query_string": b"",
            "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json"),
                        (b"content-length", b"%d" % len(body))],
            "client": ("127.0.0.1", 40000), "server": ("127.0.0.1", 8000), "state": {},
        }
        given = False
        sent: list[dict] = []

        async def receive() -> dict:
            nonlocal given
            if given:  # the request was read whole: the client just stays
                await asyncio.sleep(3600)
            given = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: dict) -> None:
            sent.append(message)

        began = time.process_time()
        await self.app(scope, receive, send)
        self.spent += time.process_time() - began
        return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


async def _measure(caller: AppCaller, step: Any, batch: int, runs: int) -> dict[str, float]:
    for _ in range(batch):  # warm-up
        await step()
    best_app = best_whole = float("inf")
    for _ in range(runs):
        caller.spent = 0.0
        began = time.process_time()
        for _ in range(batch):
            await step()
        await asyncio.sleep(0)
        best_whole = min(best_whole, (time.process_time() - began) / batch)
        best_app = min(best_app, caller.spent / batch)
    return {"app_ms": 1000 * best_app, "whole_ms": 1000 * best_whole}


async def _floor(batch: int, runs: int) -> dict[str, float]:
    from noitu.bench.floor_app import create_floor_app
    from noitu.bench.http_players import FLOOR_CYCLE

    app = create_floor_app()
    caller = AppCaller(app)
    turn = 0

    async def step() -> None:
        nonlocal turn
        route, body = FLOOR_CYCLE[turn % len(FLOOR_CYCLE)]
        turn += 1
        await caller.post(route, body)

    async with app.lifespan():
        gc.collect()
        gc.freeze()
        return await _measure(caller, step, batch, runs)


async def _real(batch: int, runs: int, env: dict[str, str]) -> dict[str, Any]:
    from noitu.adapters.log_setup import configure_logging
    from noitu.adapters.noitu.dictionary_file import load_lexicon
    from noitu.bench.http_load import issue_tokens
    from noitu.bench.http_players import common_words_by_syllable, pick_common
    from noitu.domain.noitu.chain import Chain, Side
    from noitu.entrypoints.app import create_app
    from noitu.entrypoints.cli.noitu import build_container
    from noitu.entrypoints.role import WEB
    from noitu.entrypoints.settings import load_settings

    settings = load_settings(env)
    configure_logging(settings.effective_log_format, settings.log_level)
    container = build_container(settings, WEB)
    clock = StepClock()
    container.clock.override(clock)
    app = create_app(container)
    lexicon = load_lexicon(None)
    common = common_words_by_syllable(lexicon)
    issued = issue_tokens(env["NOITU_GAME_SECRET"], SLOTS * 20)
    slots: list[list[Any]] = [[issued[i::SLOTS], 0, None] for i in range(SLOTS)]
    rng = random.Random(1)
    caller = AppCaller(app)
    routes: Counter[str] = Counter()
    turn = 0

    async def step() -> None:
        nonlocal turn
        slot = slots[turn % SLOTS]
        turn += 1
        clock.ms += CLOCK_STEP_MS
        tokens, starts, game = slot
        if game is None:
            slot[1] += 1
            status, data = await caller.post(
                "start", {"token": tokens[starts % len(tokens)], "difficulty": "medium"}
            )
            routes[f"start {status}"] += 1
            if status == 200:
                view = _decode(data)
                chain = Chain(lexicon)
                for link in view["chain"]:
                    chain.append(lexicon.word_ids[link["word"]], Side.BOT, 0)
                slot[2] = (view["session"], chain)
            return
        session, chain = game
        word = pick_common(common[chain.current], chain.used, rng)
        if word is None:
            status, _ = await caller.post("give-up", {"session": session})
            routes[f"give-up {status}"] += 1
            slot[2] = None
            return
        status, data = await caller.post("move", {"session": session, "word": lexicon.words[word]})
        routes[f"move {status}"] += 1
        answer = _decode(data) if status == 200 else None
        if answer is None or not answer["result"]["accepted"] or answer["state"]["status"] != "playing":
            slot[2] = None
            return
        chain.append(word, Side.PLAYER, 0)
        if answer["result"]["bot_word"]:
            chain.append(lexicon.word_ids[answer["result"]["bot_word"]], Side.BOT, 0)

    async with app.lifespan():
        gc.collect()
        gc.freeze()
        figures: dict[str, Any] = await _measure(caller, step, batch, runs)
    figures["answers"] = dict(routes)
    return figures


def bench_app_cpu(runs: int, batch: int, store: str, access_log: bool) -> dict:
    env = {
        **os.environ,
        "NOITU_GAME_SECRET": secrets.token_hex(32),
        "NOITU_ACCESS_LOG": "1" if access_log else "0",
        "NOITU_LOG_FORMAT": "json",
    }
    env.pop("TELEGRAM_BOT_TOKEN", None)
    with tempfile.TemporaryDirectory() as folder:
        if store == "redis":
            from noitu.bench.redis_server import MISSING_REASON, REDIS_SERVER, RedisServer

            if REDIS_SERVER is None:
                raise SystemExit(f"noitu bench: --store redis needs {MISSING_REASON}")
            with RedisServer(Path(folder)) as redis:
                env.update({"NOITU_STORE": "redis", "REDIS_URL": redis.url})
                real = asyncio.run(_real(batch, runs, env))
        else:
            real = asyncio.run(_real(batch, runs, env))
    floor = asyncio.run(_floor(batch, runs))
    return {
        "runs": runs, "batch": batch, "store": store, "access_log": access_log,
        "real": real, "floor": floor,
        "floor_ratio_in_app": floor["app_ms"] / real["app_ms"] if real["app_ms"] else 0.0,
        "machine": machine(),
    }


def format_app_cpu(report: dict) -> str:
    real, floor = report["real"], report["floor"]
    return "\n".join([
        format_machine(report["machine"]),
        (f"best of {report['runs']} batches of {report['batch']} requests, in process;"
         f" store: {report['store']}, access log {'on' if report['access_log'] else 'off'};"
         f" answers: {real['answers']}"),
        "",
        row("figure", "value"),
        row("real mix: CPU per request in the app", f"{real['app_ms']:.4f} ms"),
        row("  with what runs between requests", f"{real['whole_ms']:.4f} ms"),
        row("floor app: CPU per request in the app", f"{floor['app_ms']:.4f} ms"),
        row("floor ÷ real, in the app", f"{report['floor_ratio_in_app']:.2f}"),
    ])
