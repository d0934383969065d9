"""`noitu bench http`: a real `noitu serve` on loopback under the load generator of
`http_players`, in the real mix of requests (starts, moves, give-ups: the budget is
p99 ≤ 100 ms over all of them, no 5xx) or the long one (almost only moves: ≥ 1,500
moves/s, move p99 ≤ 100 ms, no 5xx).

The server is started as the README starts it, with a fresh NOITU_GAME_SECRET; the
players' tokens are signed with the server's own signer (`HmacTokenSigner`, with the
key the server derives from that secret), as `noitu token` signs them. Unless told
not to, the server also counts its CPU per route (NOITU_BENCH_CPU=1, `server_cpu`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any

from noitu.bench.http_players import REAL_USERS_PER_PLAYER, run_load
from noitu.bench.machine import (
    BUDGET,
    format_machine,
    free_port,
    load_average,
    machine,
    median_dict,
    row,
    verdict,
)
from noitu.bench.processes import terminate


def issue_tokens(secret: str, players: int) -> list[str]:
    """A game link's token for users 1 to `players` (chat 1, message N), signed as
    `noitu token --user N --chat 1 --message N` signs it for a server with this secret."""
    from noitu.adapters.noitu.token_signer import HmacTokenSigner
    from noitu.application.noitu.session import GameMessage, Ticket
    from noitu.domain.noitu.rules import TOKEN_LIFETIME_S
    from noitu.entrypoints.containers.support import signing_key
    from noitu.entrypoints.settings import load_settings

    signer = HmacTokenSigner(signing_key(load_settings({"NOITU_GAME_SECRET": secret})))
    expires_at = int(time.time()) + TOKEN_LIFETIME_S
    return [
        signer.issue(Ticket(user, "", GameMessage(chat_id=1, message_id=user), expires_at))
        for user in range(1, players + 1)
    ]


def noitu_executable() -> str:
    beside = Path(sys.executable).with_name("noitu")
    return str(beside) if beside.exists() else "noitu"


@contextlib.contextmanager
def running_server(
    secret: str, extra_env: dict[str, str] | None = None, python: str = "", floor: bool = False,
    log_path: str = "",
) -> Iterator[tuple[subprocess.Popen, int]]:
    """`noitu serve` as the README starts it, on a free loopback port; stopped on exit
    (SIGTERM, then SIGKILL after 15 s). With `python`, that interpreter runs `-m
    noitu.entrypoints.cli serve` instead (to compare a server environment, e.g. one with
    uvloop and httptools). With `floor`, the hello-world app of `floor_app` runs
    instead, on the same interpreter. Its output goes to `log_path`, else to
    NOITU_BENCH_SERVER_LOG, else nowhere."""
    import urllib.request

    port = free_port()
    env = {
        **os.environ,
        "NOITU_GAME_SECRET": secret,
        "NOITU_PORT": str(port),
        "NOITU_ACCESS_LOG": "0",
        "NOITU_HOST": "127.0.0.1",
        "NOITU_LOG_LEVEL": "WARNING",
        **(extra_env or {}),
    }
    env.pop("TELEGRAM_BOT_TOKEN", None)
    command = (
        [python or sys.executable, "-m", "noitu.bench.floor_app", str(port)] if floor
        else [python, "-m", "noitu.entrypoints.cli", "serve"] if python
        else [noitu_executable(), "serve"]
    )
    # The server's output goes to a file: a pipe nobody reads would block it when full.
    log_path = log_path or os.environ.get("NOITU_BENCH_SERVER_LOG") or os.devnull
    with open(log_path, "w") as log:
        server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 120
            while True:
                if server.poll() is not None:
                    kept = (
                        f"its output: {log_path}" if log_path != os.devnull
                        else "set NOITU_BENCH_SERVER_LOG=<file> to keep its output"
                    )
                    raise RuntimeError(f"noitu serve exited with {server.returncode} ({kept})")
                with (
                    contextlib.suppress(OSError),
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r,
                ):
                    if r.status == 200:
                        break
                if time.monotonic() > deadline:
                    raise RuntimeError("noitu serve did not answer /healthz within 120 s")
                time.sleep(0.2)
            yield server, port
        finally:
            terminate(server, 15)


@contextlib.contextmanager
def store_env(store: str) -> Iterator[dict[str, str]]:
    """The environment that selects the session store; for Redis, a throwaway
    `redis-server` on a free loopback port for the duration of the run."""
    if store == "memory":
        yield {}
        return
    from noitu.bench.redis_server import MISSING_REASON, REDIS_SERVER, RedisServer

    if REDIS_SERVER is None:
        raise SystemExit(f"noitu bench: --store redis needs {MISSING_REASON}")
    with tempfile.TemporaryDirectory() as folder, RedisServer(Path(folder)) as redis:
        yield {"NOITU_STORE": "redis", "REDIS_URL": redis.url}


def host_probe_ms() -> float:
    """A fixed pure-Python loop, best of 3, in ms: how fast the machine runs Python
    right now. A virtual machine's speed drifts with its neighbours (by a quarter in a
    day here), so each run reports it next to its load average."""
    best = float("inf")
    for _ in range(3):
        began, total = time.perf_counter(), 0
        for i in range(1_000_000):
            total += i & 7
        best = min(best, time.perf_counter() - began)
    return 1000 * best


def run_generator(load: Coroutine[Any, Any, dict]) -> dict:
    """Run the load generator on uvloop when it is installed (the server runs on it too):
    the generator shares the machine with the server, and asyncio's own event loop made
    it cost about twice the CPU per request."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(load)
    return uvloop.run(load)


def bench_http(
    runs: int, players: int, difficulty: str, duration: float, warmup: float, client: str,
    server_python: str = "", store: str = "memory", mix: str = "real", route_cpu: bool = True,
    jitter_ms: float = 0.0, floor: bool = False,
) -> dict:
    from noitu.adapters.noitu.dictionary_file import load_lexicon
    from noitu.domain.noitu.bots import BotIndex

    lexicon = load_lexicon(None)
    index = BotIndex(lexicon)
    secret = secrets.token_hex(32)
    users = REAL_USERS_PER_PLAYER if mix == "real" else 1
    issued = issue_tokens(secret, players * users)
    # Player i plays as users i, i + players, i + 2 × players, …
    tokens = [issued[i::players] for i in range(players)]
    extra = {"NOITU_BENCH_CPU": "1"} if route_cpu else {}
    # Every player holds one connection: the server's cap (1,000 by default, answered
    # 503 beyond) must not turn a saturating load into refusals.
    extra["NOITU_MAX_CONNECTIONS"] = str(max(1000, players + 64))
    results = []
    for run in range(runs):
        load_before = load_average()
        probe = host_probe_ms()
        with store_env(store) as env, running_server(
            secret, {**env, **extra}, python=server_python
        ) as (server, port):
            result = run_generator(
                run_load(port, server.pid, tokens, difficulty, lexicon, index,
                         warmup, duration, min(warmup, 3.0), client, mix, jitter_ms)
            )
            if server.poll() is not None:
                raise RuntimeError(
                    f"noitu serve exited with {server.returncode} during the run: another"
                    " process may have answered on its port"
                )
        if result["server_cpu_percent"] < 1:
            print(
                "noitu bench http: the server used no CPU in the measured window (stopped by"
                " something else on the machine?): this run's figures are not the server's",
                file=sys.stderr, flush=True,
            )
        if floor:
            result["floor"] = _floor_run(players, warmup, duration, client, lexicon, index)
            result["floor_ratio"] = _ratio(result["overall"]["per_s"], result["floor"]["overall"]["per_s"])
            result["floor_cpu_ratio"] = _ratio(
                result["floor"]["server_cpu_ms_per_request"], result["server_cpu_ms_per_request"]
            )
        result["load_average"] = load_before
        result["host_probe_ms"] = probe
        result["load_average_after"] = load_average()
        results.append(result)
        overall = result["overall"]
        move = result["routes"].get("move", {})
        if floor:
            print(
                f"noitu bench http: run {run + 1}/{runs}: the floor app answered"
                f" {result['floor']['overall']['per_s']:.0f} requests/s at"
                f" {result['floor']['server_cpu_percent']:.0f} % CPU"
                f" ({result['floor']['server_cpu_ms_per_request']:.3f} ms per request);"
                f" real mix ÷ floor {result['floor_ratio']:.2f} (by CPU per request"
                f" {result['floor_cpu_ratio']:.2f})",
                file=sys.stderr, flush=True,
            )
        print(
            f"noitu bench http: run {run + 1}/{runs} ({mix}): {overall['per_s']:.0f} requests/s,"
            f" p50 {overall['p50_ms']:.1f} ms, p99 {overall['p99_ms']:.1f} ms;"
            f" {move.get('ok_per_s', 0):.0f} moves/s, move p99 {move.get('p99_ms', 0):.1f} ms;"
            f" server CPU {result['server_cpu_percent']:.0f} %,"
            f" {result['server_cpu_ms_per_request']:.3f} ms per request;"
            f" errors {result['errors']}; load average {load_before} before,"
            f" {result['load_average_after']} after; host probe {probe:.0f} ms",
            file=sys.stderr, flush=True,
        )
    merged = median_dict(results)
    merged["per_run"] = results
    merged["errors"] = [r["errors"] for r in results]
    merged["rejected_moves"] = [r["rejected_moves"] for r in results]
    merged["load_averages"] = [r["load_average"] for r in results]
    if floor:
        merged["floor_ratios"] = [r["floor_ratio"] for r in results]
    merged["runs"] = runs
    merged["store"] = store
    merged["server"] = f"{server_python} -m noitu.entrypoints.cli serve" if server_python else "noitu serve"
    merged["machine"] = machine()
    return merged


def _ratio(part: float, whole: float) -> float:
    return part / whole if whole else 0.0


def _floor_run(
    players: int, warmup: float, duration: float, client: str, lexicon: Any, index: Any,
) -> dict:
    """The floor app (`floor_app`) under the same generator, as many connections and
    the same window, right after the real run; always on this interpreter (the floor
    is the same whichever server `--server-python` compares)."""
    with running_server("", floor=True) as (server, port):
        return run_generator(
            run_load(port, server.pid, [[]] * players, "medium", lexicon, index, warmup,
                     duration, min(warmup, 3.0), client, "floor")
        )


def format_http(report: dict) -> str:
    real = report.get("mix", "long") == "real"
    if real:
        load = (f"a request every ≥ 300 ms after each answer (start, moves of common words,"
                f" a give-up at a dead end, the next start), {report['users_per_player']:.0f}"
                f" users per player")
    else:
        load = "playing to last, a move every ≥ 300 ms after each answer"
    jitter = report.get("jitter_ms", 0.0)
    load += (f"; each pause 302 ms + up to {jitter:.0f} ms (uniform)" if jitter
             else "; each pause exactly 302 ms")
    lines = [
        format_machine(report["machine"]),
        (f"medians of {report['runs']} runs; mix {report.get('mix', 'long')}:"
         f" {report['players']:.0f} players at {report['difficulty']}, {load};"
         f" {report['window_s']:.0f} s measured after the warm-up, client: {report['client']};"
         f" server: {report['server']}, store: {report.get('store', 'memory')};"
         f" load average before each run: {report.get('load_averages', '')};"
         f" host probe (a fixed Python loop, lower is faster): {report.get('host_probe_ms', 0):.0f} ms"),
        "",
        row("figure", "value", "budget"),
    ]
    overall = report["overall"]
    lines.append(row("all requests/s (200 only)",
                     f"{overall['per_s']:.0f} ({overall['ok_per_s']:.0f})"))
    lines.append(row(
        "all latency p50 / p99 / max",
        f"{overall['p50_ms']:.1f} / {overall['p99_ms']:.1f} / {overall['max_ms']:.0f} ms",
        "≤ 100 ms" if real else "",
        verdict(overall["p99_ms"] <= BUDGET["http_move_p99_ms"]) if real else "",
    ))
    for route, r in report["routes"].items():
        judged = route == "move" and not real
        lines.append(row(
            f"api/{route} requests/s (200 only)", f"{r['per_s']:.0f} ({r['ok_per_s']:.0f})",
            "≥ 1,500/s" if judged else "",
            verdict(r["ok_per_s"] >= BUDGET["http_moves_per_s"]) if judged else "",
        ))
        lines.append(row(
            f"api/{route} latency p50 / p99 / max",
            f"{r['p50_ms']:.1f} / {r['p99_ms']:.1f} / {r['max_ms']:.0f} ms",
            "≤ 100 ms" if judged else "",
            verdict(r["p99_ms"] <= BUDGET["http_move_p99_ms"]) if judged else "",
        ))
    lines += [
        row("5xx answers", f"{report['errors_5xx']:.0f}", "0", verdict(report["errors_5xx"] == 0)),
        row("errors by code, per run", str(report["errors"])[:60]),
        row("rejected moves, per run", str(report["rejected_moves"])[:60]),
        row("games started", f"{report['games_started']:.0f}"),
        row("server CPU (of one core)", f"{report['server_cpu_percent']:.0f} %"),
        row("server CPU per answered request", f"{report['server_cpu_ms_per_request']:.3f} ms"),
    ]
    if real:
        lines.append(row("  so one whole core would answer",
                         f"{report['one_core_requests_per_s']:.0f} requests/s"))
    if "floor_ratio" in report:
        floor = report["floor"]
        lines += [
            row("floor app requests/s (same generator)", f"{floor['overall']['per_s']:.0f}"),
            row("floor app server CPU, per request",
                f"{floor['server_cpu_percent']:.0f} %, {floor['server_cpu_ms_per_request']:.3f} ms"),
            row("real ÷ floor, requests/s (per run)",
                f"{report['floor_ratio']:.2f} ({', '.join(f'{r:.2f}' for r in report['floor_ratios'])})",
                "≥ 0.5", verdict(report["floor_ratio"] >= 0.5)),
            row("floor ÷ real, CPU per request", f"{report['floor_cpu_ratio']:.2f}"),
        ]
    else:
        lines.append(row("  so one whole core would answer",
                         f"{report['one_core_moves_per_s']:.0f} moves/s"))
    for route, r in report.get("route_cpu", {}).items():
        lines.append(row(f"  api/{route}: server CPU per request (app)",
                         f"{r['cpu_ms']:.3f} ({r['app_cpu_ms']:.3f}) ms"))
    if report.get("route_cpu"):
        lines.append(row("  of which outside the app, each",
                         f"{report['outside_app_cpu_ms']:.3f} ms"))
    for generation, g in report.get("server_gc", {}).items():
        lines.append(row(f"server GC {generation}: passes, total / longest",
                         f"{g['collections']:.0f}, {g['total_ms']:.0f} / {g['longest_ms']:.1f} ms"))
    lines += [
        row("server RSS at the end", f"{report['server_rss_mb']:.0f} MB"),
        row("load generator CPU (of one core)", f"{report['generator_cpu_percent']:.0f} %"),
    ]
    own = report.get("generator_gc")
    if own:
        lines.append(row("load generator GC: passes, total / longest",
                         f"{own['collections']:.0f}, {own['total_ms']:.0f} / {own['longest_ms']:.1f} ms"))
    return "\n".join(lines)
