"""`noitu serve`'s log names paths, never a client's address or a query string
(docs/operating.md): the WebSockets' lines included."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from support.process import ServerProcess


@pytest.fixture
def server(tmp_path, arena_data_dir):
    process = ServerProcess(
        {"MODULES": "arena", "NOITU_LOG_FORMAT": "json", "NOITU_DATA_DIR": str(arena_data_dir)},
        tmp_path / "server.log",
    )
    yield process.start()
    process.stop()


async def a_socket(base: str, path: str) -> int:
    """Open the socket, read until the server closes it; the client's own port."""
    async with connect(f"{base}{path}") as socket:
        port = socket.local_address[1]
        with contextlib.suppress(ConnectionClosed):
            async for _ in socket:
                pass
    return port


def test_the_log_of_a_websocket_has_its_path_and_no_client_address(server) -> None:
    created = httpx.post(
        f"{server.base}/arena/api/rooms", json={"seat": {"kind": "person", "name": "Lan"}}, timeout=5
    )
    assert created.status_code == 201, created.text
    code = created.json()["room"]["code"]
    ws = server.base.replace("http", "ws")
    ports = [
        asyncio.run(a_socket(ws, "/arena/ws/rooms/XXXXXX?t=secret-token")),
        asyncio.run(_first_and_close(ws, f"/arena/ws/rooms/{code}")),
    ]
    server.stop()
    log = server.output()
    lines = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    sockets = [line for line in lines if "WebSocket" in line.get("event", "")]
    assert any("/arena/ws/rooms/XXXXXX" in line["event"] for line in sockets), log
    assert any(f"/arena/ws/rooms/{code}" in line["event"] for line in sockets), log
    assert "secret-token" not in log
    for port in ports:
        assert not re.search(rf"127\.0\.0\.1:{port}\b", log), log
        assert not re.search(rf":{port}\b", log), log


async def _first_and_close(base: str, path: str) -> int:
    async with connect(f"{base}{path}") as socket:
        await socket.recv()
        return socket.local_address[1]
