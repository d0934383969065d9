"""`noitu serve`'s HTTP protocol: uvicorn's, with each answer sent in one write.

A fake transport shows the writes of one event-loop callback leaving together (and a
close sending what is held first); a real uvicorn on loopback with the protocol answers
keep-alive requests, a body larger than the socket buffers, a streamed body whose parts
come in different callbacks, and `Connection: close`, byte for byte.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import socket
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import uvicorn

from noitu.adapters.http.fast_paths import CoalescingHttpToolsProtocol, CoalescingTransport
from noitu.adapters.http.server_protocol import BoundedHttpToolsProtocol, ConnectionLimits


class FakeTransport:
    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        assert not self.closed
        self.writes.append(data)

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def get_extra_info(self, name: str, default: object = None) -> object:
        return {"peername": ("127.0.0.1", 5)}.get(name, default)


async def test_the_writes_of_one_callback_leave_as_one() -> None:
    real = FakeTransport()
    transport = CoalescingTransport(real, asyncio.get_running_loop())  # type: ignore[arg-type]
    transport.write(b"HTTP/1.1 200 OK\r\n\r\n")
    transport.write(b"")
    transport.write(b"body")
    assert real.writes == []  # held until the callback that wrote them is over
    await asyncio.sleep(0)
    assert real.writes == [b"HTTP/1.1 200 OK\r\n\r\nbody"]
    transport.write(b"next")
    await asyncio.sleep(0)
    assert real.writes[-1] == b"next"
    transport.write(b"last words")
    transport.close()  # what is held goes first
    assert real.writes[-1] == b"last words" and real.closed
    await asyncio.sleep(0)  # the scheduled flush finds nothing left to send
    assert len(real.writes) == 3
    assert transport.get_extra_info("peername") == ("127.0.0.1", 5)


BIG = bytes(range(256)) * 4096  # 1 MiB: more than the socket buffers take at once


async def app(scope, receive, send) -> None:
    if scope["type"] == "lifespan":
        message = await receive()
        await send({"type": "lifespan.startup.complete"})
        message = await receive()
        assert message["type"] == "lifespan.shutdown"
        await send({"type": "lifespan.shutdown.complete"})
        return
    path = scope["path"]
    if path == "/stream":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        for part in (b"one ", b"two ", b"three"):
            await asyncio.sleep(0.01)  # each part in its own callback
            await send({"type": "http.response.body", "body": part, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
        return
    if path == "/echo":
        received = b""
        while True:
            message = await receive()
            received += message.get("body", b"")
            if not message.get("more_body"):
                break
        body = b"echo " + received
    else:
        body = BIG if path == "/big" else f"answer to {path}".encode()
    await send({
        "type": "http.response.start",
        "status": 200,
        "headers": [(b"content-length", str(len(body)).encode())],
    })
    await send({"type": "http.response.body", "body": body})


@contextlib.asynccontextmanager
async def running(protocol: Any, servers: list[uvicorn.Server] | None = None) -> AsyncIterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, http=protocol, lifespan="on", log_config=None,
        access_log=False,
    )
    server = uvicorn.Server(config)
    if servers is not None:
        servers.append(server)
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


BOUNDED = functools.partial(BoundedHttpToolsProtocol, limits=ConnectionLimits(1000, 10.0))


@pytest.mark.parametrize("protocol", [CoalescingHttpToolsProtocol, BOUNDED], ids=["coalescing", "bounded"])
async def test_a_real_server_answers_every_kind_of_response_whole(protocol: Any) -> None:
    async with running(protocol) as base, httpx.AsyncClient(
        base_url=base
    ) as client:
        for n in range(5):  # one keep-alive connection, answer after answer
            answer = await client.get(f"/q{n}")
            assert answer.status_code == 200 and answer.content == f"answer to /q{n}".encode()
        big = await client.get("/big")
        assert big.content == BIG
        streamed = await client.get("/stream")
        assert streamed.content == b"one two three"
        closing = await client.get("/last", headers={"Connection": "close"})
        assert closing.content == b"answer to /last"
        assert closing.headers["connection"] == "close"


async def test_a_finished_request_is_let_go_and_the_connection_goes_on() -> None:
    """Between two requests a keep-alive connection holds no request of the last one
    (its cycle, scope and headers are freed when the answer is complete, not at the next
    request); bodies, an answer sent before its request's body has all come, and
    pipelined requests still work on that connection."""
    servers: list[uvicorn.Server] = []
    async with running(BOUNDED, servers) as base:
        port = int(base.rsplit(":", 1)[1])
        reader, writer = await asyncio.open_connection("127.0.0.1", port)

        async def answer() -> bytes:
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(
                int(line.split(b":")[1]) for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            )
            return await reader.readexactly(length)

        writer.write(b"POST /echo HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\n\r\nhello")
        assert await answer() == b"echo hello"
        await asyncio.sleep(0.05)
        (protocol,) = servers[0].server_state.connections
        assert protocol.cycle is None and protocol.scope is None
        # An answer before the body has all come: the request is kept until it has.
        writer.write(b"POST /early HTTP/1.1\r\nhost: x\r\ncontent-length: 10\r\n\r\nhalf-")
        assert await answer() == b"answer to /early"
        await asyncio.sleep(0.05)
        assert protocol.cycle is not None
        writer.write(b"done!")
        # Two requests in one write.
        writer.write(b"GET /a HTTP/1.1\r\nhost: x\r\n\r\nGET /b HTTP/1.1\r\nhost: x\r\n\r\n")
        assert await answer() == b"answer to /a"
        assert await answer() == b"answer to /b"
        await asyncio.sleep(0.05)
        assert protocol.cycle is None
        writer.close()
        await writer.wait_closed()
