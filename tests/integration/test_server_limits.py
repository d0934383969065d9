"""`noitu serve` bounds its own connections (spec B10), for real: a WebSocket message
larger than NOITU_WS_MAX_MESSAGE_BYTES closes the socket with 1009; a connection that
has not sent a whole request head within NOITU_HEAD_TIMEOUT_SECONDS is closed, whether
it sends nothing or drips its head; past NOITU_MAX_CONNECTIONS a new connection is
answered 503 and closed at once, and /healthz answers again once they are gone."""

from __future__ import annotations

import asyncio
import contextlib
import select
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from support.dictionaries import LITTLE, write
from support.process import ServerProcess

HEAD = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: " + b"a" * 200 + b"\r\n\r\n"


@contextlib.contextmanager
def serve(tmp_path: Path, **settings: str) -> Iterator[ServerProcess]:
    env = {
        "NOITU_DICTIONARY": write(tmp_path, LITTLE),
        "NOITU_DATA_DIR": str(tmp_path / "data"),
        "NOITU_LOG_FORMAT": "json",
        **settings,
    }
    server = ServerProcess(env, tmp_path / "server.log").start()
    try:
        yield server
    finally:
        server.stop()


def open_socket(server: ServerProcess) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=30)


def closed_by_server(sock: socket.socket) -> bool:
    """Read until the server closes (True) or 30 s pass with it open (socket.timeout). A
    reset counts as closed: a byte sent after the server's close is answered with one."""
    while True:
        try:
            data = sock.recv(4096)
        except ConnectionResetError:
            return True
        if not data:
            return True


async def test_a_websocket_message_over_4_kib_closes_the_socket_with_1009(tmp_path: Path) -> None:
    with serve(tmp_path, NOITU_HEAD_TIMEOUT_SECONDS="0.5") as server:
        async with httpx.AsyncClient(base_url=server.base, timeout=10) as http:
            created = await http.post(
                "/arena/api/rooms",
                json={"seat": {"kind": "person", "name": "Lan"},
                      "opponent": {"kind": "builtin", "ref": "random"}},
                headers={"X-Owner-Key": "a" * 32},
            )
        assert created.status_code in (200, 201), created.text
        code = created.json()["room"]["code"]
        ws_base = server.base.replace("http://", "ws://")
        async with connect(f"{ws_base}/arena/ws/rooms/{code}") as small:
            await small.recv()  # the room
            await small.send("x" * 4096)  # at the limit: dropped like any message
            # The head timer ended with the upgrade: a room socket outlives it.
            await asyncio.sleep(1.5)
            await asyncio.wait_for(await small.ping(), 10)
        async with connect(f"{ws_base}/arena/ws/rooms/{code}") as big:
            await big.recv()
            await big.send("x" * 5 * 1024)
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    await asyncio.wait_for(big.recv(), 30)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


def test_a_connection_without_a_whole_head_in_time_is_closed(tmp_path: Path) -> None:
    with serve(tmp_path, NOITU_HEAD_TIMEOUT_SECONDS="1") as server:
        silent = open_socket(server)
        half = open_socket(server)
        half.sendall(HEAD[: len(HEAD) // 2])
        drip = open_socket(server)
        assert closed_by_server(silent)
        assert closed_by_server(half)
        # One byte every 0.2 s keeps arriving, yet the head never completes in time.
        sent = 0
        while sent < len(HEAD):
            readable, _, _ = select.select([drip], [], [], 0)
            if readable and closed_by_server(drip):
                break
            try:
                drip.send(HEAD[sent : sent + 1])
            except (BrokenPipeError, ConnectionResetError):
                break  # closed between the look and the send
            sent += 1
            time.sleep(0.2)
        assert sent < len(HEAD)
        # A whole head in time is answered, and the next one on the same connection too.
        with httpx.Client(base_url=server.base, timeout=10) as client:
            assert client.get("/healthz").status_code == 200
            assert client.get("/healthz").status_code == 200
        for sock in (silent, half, drip):
            sock.close()


def test_past_the_connection_cap_a_new_connection_is_refused_at_once(tmp_path: Path) -> None:
    with serve(tmp_path, NOITU_MAX_CONNECTIONS="5", NOITU_HEAD_TIMEOUT_SECONDS="600") as server:
        held = [open_socket(server) for _ in range(5)]
        for sock in held:
            sock.sendall(HEAD[:10])  # each one is being read, so surely counted
        refused = open_socket(server)
        answer = b""
        while chunk := refused.recv(4096):
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 503 ")
        refused.close()
        assert httpx.get(f"{server.base}/healthz", timeout=10).status_code == 503
        for sock in held:
            sock.close()
        for _ in range(100):
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{server.base}/healthz", timeout=10).status_code == 200:
                    break
            time.sleep(0.1)
        else:
            pytest.fail("/healthz did not answer once the connections closed")
