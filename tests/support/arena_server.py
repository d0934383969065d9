"""A real server for the arena's room tests: the app of the real container, served by
uvicorn on a free loopback port inside the test's event loop (REST through httpx,
WebSockets through the `websockets` client), and stopped as in production (uvicorn's
shutdown, then the lifespans')."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from noitu.entrypoints.app import create_app
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import load_settings

ROOMS = "/arena/api/rooms"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Served:
    container: Container
    http: httpx.AsyncClient
    ws_base: str
    server: uvicorn.Server
    task: asyncio.Task[None]

    def key_headers(self, key: str | None) -> dict[str, str]:
        return {} if key is None else {"X-Owner-Key": key}

    async def create(self, seat: dict, opponent: dict | None = None, key: str | None = None) -> Any:
        body: dict[str, Any] = {"seat": seat}
        if opponent is not None:
            body["opponent"] = opponent
        return await self.http.post(ROOMS, json=body, headers=self.key_headers(key))

    async def room(self, code: str, key: str | None = None) -> dict:
        answer = await self.http.get(f"{ROOMS}/{code}", headers=self.key_headers(key))
        assert answer.status_code == 200, answer.text
        return answer.json()

    async def post(self, code: str, what: str, body: Any = None, key: str | None = None) -> Any:
        return await self.http.post(
            f"{ROOMS}/{code}/{what}", json=body, headers=self.key_headers(key)
        )

    async def until(
        self, code: str, test: Callable[[dict], bool], key: str | None = None, timeout_s: float = 60
    ) -> dict:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while True:
            room = await self.room(code, key)
            if test(room):
                return room
            if loop.time() > deadline:
                raise AssertionError(f"room {code} never got there: {room['phase']}")
            await asyncio.sleep(0.02)

    async def hosted(self, code: str, key: str | None = None) -> dict:
        """The room once its match's host made the match (it has an id): a room whose
        seats are full waits for its host before anyone places (spec B9's order)."""
        return await self.until(code, lambda room: room["matchId"] is not None, key)

    async def stop(self, timeout_s: float = 30.0) -> None:
        self.server.should_exit = True
        await asyncio.wait_for(asyncio.shield(self.task), timeout_s)


def build(data_dir: Path, probe: Any, clock: Any = None, env: dict[str, str] | None = None) -> Container:
    container = Container()
    base = {"NOITU_ACCESS_LOG": "0", "MODULES": "arena", "NOITU_DATA_DIR": str(data_dir)}
    container.settings.override(load_settings({**base, **(env or {})}))
    container.arena_probe.override(probe)
    if clock is not None:
        container.clock.override(clock)
    return container


@contextlib.asynccontextmanager
async def serving(container: Container) -> AsyncIterator[Served]:
    port = free_port()
    config = uvicorn.Config(
        create_app(container), host="127.0.0.1", port=port, lifespan="on", log_config=None,
        access_log=False, timeout_graceful_shutdown=20,
        proxy_headers=False,  # as `noitu serve`: the app alone reads X-Forwarded-For (B10)
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
            raise RuntimeError("the server stopped before it started")
        await asyncio.sleep(0.01)
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
        served = Served(container, http, f"ws://127.0.0.1:{port}", server, task)
        try:
            yield served
        finally:
            if not task.done():
                await served.stop()


@dataclass
class Watched:
    frames: list[dict] = field(default_factory=list)
    close_code: int | None = None
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def rooms(self) -> list[dict]:
        return [frame["room"] for frame in self.frames if frame["type"] == "room"]


async def watch(
    served: Served, code: str, first: asyncio.Event | None = None, timeout_s: float = 120
) -> Watched:
    """Every frame of the room's socket until the server closes it."""
    seen = Watched()
    async with connect(f"{served.ws_base}/arena/ws/rooms/{code}") as socket:
        seen.headers = {k.lower(): v for k, v in socket.response.headers.raw_items()}
        with contextlib.suppress(ConnectionClosed):
            async with asyncio.timeout(timeout_s):
                async for message in socket:
                    seen.frames.append(json.loads(message))
                    if first is not None:
                        first.set()
        seen.close_code = socket.close_code
    return seen
