"""End to end over real HTTP: a real `noitu serve` process talks to a fake Bot API.

The fake is a small aiohttp app on loopback, reached through TELEGRAM_API_BASE. It
records every Bot API call (aiogram posts form data) and hands out updates by long
polling. The test plays the page's API against the server with the link the bot gave,
and watches setGameScore arrive at the fake.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiohttp import web

from support.dictionaries import LITTLE, write
from support.process import free_port
from support.telegram import (
    BASE_URL,
    BOT_TOKEN,
    BOT_USER,
    GAME,
    SUPERGROUP,
    command,
    message,
    play,
    token_of,
)

START_S = 60.0  # importing aiogram alone takes seconds on a slow machine
STEP_S = 10.0
NOITU = Path(sys.executable).with_name("noitu")


class FakeBotApi:
    """The Bot API methods noitu uses, answered from memory; every call is recorded."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, str]]] = []
        self.updates: list[dict[str, Any]] = []
        self.tokens: set[str] = set()
        self._update_ids = itertools.count(1)
        self._message_ids = itertools.count(500)
        self._changed = asyncio.Condition()

    def push(self, update: dict[str, Any]) -> None:
        self.updates.append({**update, "update_id": next(self._update_ids)})
        asyncio.get_running_loop().create_task(self._notify())

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    def named(self, method: str) -> list[dict[str, str]]:
        return [fields for name, fields in self.calls if name == method]

    async def wait_for(
        self, method: str, count: int = 1, timeout_s: float = STEP_S
    ) -> list[dict[str, str]]:
        async def arrived() -> None:
            async with self._changed:
                await self._changed.wait_for(lambda: len(self.named(method)) >= count)

        try:
            await asyncio.wait_for(arrived(), timeout_s)
        except TimeoutError:
            raise AssertionError(
                f"{method} did not arrive; calls: {[n for n, _ in self.calls]}"
            ) from None
        return self.named(method)

    async def _updates_after(self, offset: int, timeout_s: float) -> list[dict[str, Any]]:
        def ready() -> list[dict[str, Any]]:
            return [u for u in self.updates if u["update_id"] >= offset]

        with contextlib.suppress(TimeoutError):
            async with self._changed:
                await asyncio.wait_for(self._changed.wait_for(lambda: bool(ready())), timeout_s)
        return ready()

    async def handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        self.tokens.add(request.match_info["token"])
        fields = {key: str(value) for key, value in (await request.post()).items()}
        self.calls.append((method, fields))
        await self._notify()
        result: Any = True
        if method == "getMe":
            result = BOT_USER
        elif method == "getUpdates":
            wait = min(float(fields.get("timeout", "0")), 2.0)
            result = await self._updates_after(int(fields.get("offset", "0")), wait)
        elif method == "sendGame":
            chat = {**SUPERGROUP, "id": int(fields["chat_id"])}
            result = message(next(self._message_ids), chat, game=GAME)
        elif method == "sendMessage":
            result = message(next(self._message_ids), SUPERGROUP, text=fields["text"])
        return web.json_response({"ok": True, "result": result})


@pytest.fixture
async def fake_api() -> AsyncIterator[tuple[FakeBotApi, str]]:
    api = FakeBotApi()
    app = web.Application()
    app.router.add_post("/bot{token}/{method}", api.handle)
    runner = web.AppRunner(app, shutdown_timeout=0.5)
    await runner.setup()
    port = free_port()
    site = web.TCPSite(runner, "127.0.0.1", port)
    await site.start()
    try:
        yield api, f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


class Server:
    def __init__(self, process: asyncio.subprocess.Process, base: str, log: Path) -> None:
        self.process = process
        self.base = base
        self.log = log

    def lines(self) -> list[dict[str, Any]]:
        found = []
        for line in self.log.read_text(encoding="utf-8", errors="replace").splitlines():
            with contextlib.suppress(ValueError):
                found.append(json.loads(line))
        return found

    async def stop_cleanly(self) -> None:
        """SIGTERM; the lifespan must finish (polling stopped, bot session closed) in time."""
        self.process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.process.wait(), STEP_S)
        except TimeoutError:
            raise AssertionError(f"the server did not stop:\n{self.log.read_text()}") from None
        # uvicorn raises the signal it caught again once it has shut down.
        assert self.process.returncode in (0, -signal.SIGTERM)
        events = [entry.get("event") for entry in self.lines()]
        assert "telegram_stopped" in events
        assert "Application shutdown complete." in events


@contextlib.asynccontextmanager
async def noitu_server(tmp_path: Path, api_base: str, **env: str) -> AsyncIterator[Server]:
    port = free_port()
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TELEGRAM_", "NOITU_", "GAME_", "MODULES"))
    }
    clean.update(
        TELEGRAM_BOT_TOKEN=BOT_TOKEN,
        GAME_BASE_URL=BASE_URL,
        NOITU_HOST="127.0.0.1",
        NOITU_PORT=str(port),
        TELEGRAM_API_BASE=api_base,
        NOITU_DICTIONARY=write(tmp_path, LITTLE),
        NOITU_LOG_FORMAT="json",
        **env,
    )
    log = tmp_path / f"server-{port}.log"
    with log.open("wb") as sink:
        process = await asyncio.create_subprocess_exec(
            str(NOITU),
            "serve",
            env=clean,
            stdout=sink,
            stderr=sink,
            stdin=asyncio.subprocess.DEVNULL,
        )
    server = Server(process, f"http://127.0.0.1:{port}", log)
    try:
        async with httpx.AsyncClient(timeout=5.0) as client:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + START_S
            while True:
                if process.returncode is not None:
                    raise AssertionError(f"the server exited:\n{log.read_text()}")
                with contextlib.suppress(httpx.TransportError):
                    if (await client.get(f"{server.base}/healthz")).status_code == 200:
                        break
                if loop.time() > deadline:
                    raise AssertionError(f"the server did not start:\n{log.read_text()}")
                await asyncio.sleep(0.1)
        yield server
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


def startup_line(server: Server) -> dict[str, Any]:
    (line,) = [entry for entry in server.lines() if entry.get("event") == "startup"]
    return line


async def test_polling_game_flow_reports_the_score(
    tmp_path: Path, fake_api: tuple[FakeBotApi, str]
) -> None:
    api, api_base = fake_api
    async with (
        noitu_server(tmp_path, api_base) as server,
        httpx.AsyncClient(timeout=STEP_S) as http,
    ):
        await api.wait_for("getUpdates")
        assert api.tokens == {BOT_TOKEN}
        (commands,) = await api.wait_for("setMyCommands")
        assert json.loads(commands["commands"])[0]["command"] == "noitu"
        line = startup_line(server)
        assert (line["telegram"], line["game"]) == ("polling", "enabled")

        api.push(command("/noitu@NoiTuBot", SUPERGROUP))
        (sent,) = await api.wait_for("sendGame")
        assert sent == {"chat_id": "-100200", "game_short_name": "noitu"}

        game_message = message(500, SUPERGROUP, game=GAME)  # the message sendGame answered
        api.push(play(query_id="cq1", message=game_message))
        (answer,) = await api.wait_for("answerCallbackQuery")
        assert answer["callback_query_id"] == "cq1"
        token = token_of(answer["url"])

        game_api = f"{server.base}/games/noitu/api"
        started = await http.post(f"{game_api}/start", json={"token": token, "difficulty": "easy"})
        assert started.status_code == 200, started.text
        session = started.json()["session"]
        assert started.json()["chain"][0]["word"] == "mở đầu"

        moved = await http.post(f"{game_api}/move", json={"session": session, "word": "đầu bếp"})
        assert moved.status_code == 200, moved.text
        assert (
            moved.json()["result"]["accepted"] and moved.json()["result"]["bot_word"] == "bếp núc"
        )

        ended = (await http.post(f"{game_api}/give-up", json={"session": session})).json()
        assert ended["status"] == "lost" and ended["score"] > 0

        (scored,) = await api.wait_for("setGameScore")
        assert scored == {
            "user_id": "42",
            "score": str(ended["score"]),
            "force": "false",
            "chat_id": "-100200",
            "message_id": "500",
        }
        for _ in range(100):
            state = (await http.post(f"{game_api}/state", json={"session": session})).json()
            if state["score_reported"] != "pending":
                break
            await asyncio.sleep(0.05)
        assert state["score_reported"] == "ok"

        await server.stop_cleanly()
        assert token not in server.log.read_text()  # the link's token never reaches the log


async def test_webhook_mode_registers_and_checks_the_secret(
    tmp_path: Path, fake_api: tuple[FakeBotApi, str]
) -> None:
    api, api_base = fake_api
    async with (
        noitu_server(tmp_path, api_base, TELEGRAM_MODE="webhook") as server,
        httpx.AsyncClient(timeout=STEP_S) as http,
    ):
        (registered,) = await api.wait_for("setWebhook")
        assert registered["url"] == f"{BASE_URL}/telegram/webhook"
        secret = registered["secret_token"]
        assert len(secret) == 64 and BOT_TOKEN not in secret
        assert startup_line(server)["telegram"] == "webhook"

        update = command("/noitu", SUPERGROUP, update_id=7001, message_id=11)
        hook = f"{server.base}/telegram/webhook"
        wrong = await http.post(
            hook, json=update, headers={"X-Telegram-Bot-Api-Secret-Token": "nope"}
        )
        assert wrong.status_code == 401
        right = await http.post(
            hook, json=update, headers={"X-Telegram-Bot-Api-Secret-Token": secret}
        )
        assert right.status_code == 200
        await api.wait_for("sendGame")
        again = await http.post(
            hook, json=update, headers={"X-Telegram-Bot-Api-Secret-Token": secret}
        )
        assert again.status_code == 200
        await asyncio.sleep(0.2)
        assert len(api.named("sendGame")) == 1
        assert api.named("getUpdates") == []
        await server.stop_cleanly()
