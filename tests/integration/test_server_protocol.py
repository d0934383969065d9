"""`noitu serve`'s HTTP protocol: uvicorn's, with each answer sent in one write, and
the bounds of `BoundedHttpToolsProtocol`.

A fake transport shows the writes of one event-loop callback leaving together (and a
close sending what is held first); a real uvicorn on loopback with the protocol answers
keep-alive requests, a body larger than the socket buffers, a streamed body whose parts
come in different callbacks, and `Connection: close`, byte for byte. With small limits,
the same server measures request heads as written (431 past the cap, however they
come) and times request bodies against the minimum rate (408), without blaming a client
for time the server itself was not reading.
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
from noitu.adapters.http.server_protocol import (
    MAX_HEADER_FIELDS,
    BoundedHttpToolsProtocol,
    ConnectionLimits,
)
from noitu.entrypoints.settings import Settings


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
    if path == "/late-reader":
        await asyncio.sleep(0.6)  # twice the tests' body timeout
        path = "/echo"
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


def bounded(**limits: Any) -> Any:
    """The protocol with `noitu serve`'s default limits, but for `limits`."""
    settings = Settings()
    chosen = {
        "max_connections": settings.max_connections,
        "head_timeout_s": settings.head_timeout_s,
        "max_head_bytes": settings.max_head_bytes,
        "body_timeout_s": settings.body_timeout_s,
        "body_min_bytes_per_s": settings.body_min_kib_per_s * 1024,
        **limits,
    }
    return functools.partial(BoundedHttpToolsProtocol, limits=ConnectionLimits(**chosen))


BOUNDED = bounded()


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


async def read_answer(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """One answer's status and body (its content-length), or (0, b"") at the close."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return 0, b""
    length = next(
        int(line.split(b":")[1]) for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    return int(head.split(b" ")[1]), await reader.readexactly(length)


async def closed(reader: asyncio.StreamReader, within_s: float) -> bool:
    try:
        rest = await asyncio.wait_for(reader.read(), within_s)
    except TimeoutError:
        return False
    except ConnectionError:  # a reset, or a write after the close
        return True
    assert rest == b"", rest
    return True


@contextlib.asynccontextmanager
async def connection(
    protocol: Any,
) -> AsyncIterator[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    async with running(protocol) as base:
        reader, writer = await asyncio.open_connection("127.0.0.1", int(base.rsplit(":", 1)[1]))
        try:
            yield reader, writer
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()


def request_head(size: int, fields: int = 1) -> bytes:
    """`GET /h HTTP/1.1` with `fields` header fields, `size` bytes in all as written."""
    head = b"GET /h HTTP/1.1\r\n" + b"a: b\r\n" * (fields - 1) + b"x: \r\n\r\n"
    filler = size - len(head)
    assert filler >= 0
    return head.replace(b"x: \r\n", b"x: " + b"v" * filler + b"\r\n")


HEAD_CAP = 1024


async def test_a_head_is_measured_as_written_and_one_past_the_cap_is_refused() -> None:
    async with connection(bounded(max_head_bytes=HEAD_CAP)) as (reader, writer):
        writer.write(request_head(HEAD_CAP))
        assert await read_answer(reader) == (200, b"answer to /h")
        writer.write(request_head(HEAD_CAP + 1))
        status, body = await read_answer(reader)
        assert (status, body) == (431, b"request head too large")
        assert await closed(reader, 5)
    async with connection(bounded(max_head_bytes=HEAD_CAP)) as (reader, writer):
        writer.write(request_head(HEAD_CAP, fields=MAX_HEADER_FIELDS))
        assert await read_answer(reader) == (200, b"answer to /h")
        writer.write(request_head(HEAD_CAP, fields=MAX_HEADER_FIELDS + 1))
        assert (await read_answer(reader))[0] == 431
        assert await closed(reader, 5)


async def test_an_unfinished_head_is_refused_as_soon_as_it_passes_the_cap() -> None:
    """Never finished, so never parsed to its end: the bytes read decide, piece by piece
    (a dripped head) or at once (one large write)."""
    for piece in (100, 64 * 1024):
        async with connection(bounded(max_head_bytes=HEAD_CAP)) as (reader, writer):
            writer.write(b"GET /h HTTP/1.1\r\nx: ")
            sent = 0
            answer = None
            while sent < 256 * 1024:
                writer.write(b"v" * piece)
                sent += piece
                try:
                    answer = await asyncio.wait_for(read_answer(reader), 0.02)
                    break
                except TimeoutError:
                    continue
            assert answer == (431, b"request head too large"), (piece, sent)
            assert sent <= HEAD_CAP + piece
    # A head that begins in the same read as the end of an earlier request's body, then
    # goes on past the cap: counted from the next read, refused when it ends at last.
    async with connection(bounded(max_head_bytes=HEAD_CAP)) as (reader, writer):
        writer.write(b"POST /echo HTTP/1.1\r\ncontent-length: 2\r\n\r\nhiGET /h HTTP/1.1\r\nx: ")
        assert await read_answer(reader) == (200, b"echo hi")
        for _ in range(3):
            await asyncio.sleep(0.02)
            writer.write(b"v" * (HEAD_CAP // 2))
        assert await asyncio.wait_for(read_answer(reader), 5) == (431, b"request head too large")


async def test_a_head_half_read_when_the_last_answer_ends_is_answered() -> None:
    """A pipelined head that has begun, not ended, when the previous answer is complete
    is the next request's: letting go of the finished request must leave it alone (it
    was answered 400 when its scope went with the old request). Measured as a whole
    against the cap when it ends."""
    async with connection(bounded(max_head_bytes=HEAD_CAP)) as (reader, writer):
        writer.write(b"POST /echo HTTP/1.1\r\ncontent-length: 2\r\n\r\nhiGET /h HTTP/1.1\r\nx: ")
        assert await read_answer(reader) == (200, b"echo hi")
        await asyncio.sleep(0.02)
        writer.write(b"v" * (HEAD_CAP // 2) + b"\r\n\r\n")  # the whole head: within the cap
        assert await read_answer(reader) == (200, b"answer to /h")
        writer.write(b"POST /echo HTTP/1.1\r\ncontent-length: 2\r\n\r\nhiGET /h HTTP/1.1\r\nx: ")
        assert await read_answer(reader) == (200, b"echo hi")
        await asyncio.sleep(0.02)
        writer.write(b"v" * HEAD_CAP + b"\r\n\r\n")  # past the cap, ended in one read
        assert await read_answer(reader) == (431, b"request head too large")


async def test_many_small_heads_in_one_read_are_not_one_large_head() -> None:
    """Requests sent together (pipelined), each within the cap and all of them past it,
    and a head right after a body in the same write: every one is answered."""
    async with connection(bounded(max_head_bytes=HEAD_CAP)) as (reader, writer):
        one = request_head(HEAD_CAP // 2)
        writer.write(one * 20)
        for _ in range(20):
            assert await read_answer(reader) == (200, b"answer to /h")
        body = b"b" * 8 * HEAD_CAP
        writer.write(
            b"POST /echo HTTP/1.1\r\ncontent-length: %d\r\n\r\n" % len(body) + body
            + request_head(HEAD_CAP)
        )
        assert await read_answer(reader) == (200, b"echo " + body)
        assert await read_answer(reader) == (200, b"answer to /h")


SLOW = {"body_timeout_s": 0.3, "body_min_bytes_per_s": 4 * 1024}


async def test_a_body_that_keeps_up_the_minimum_rate_is_read_whole() -> None:
    """4 KiB/s at least, after 0.3 s: an 8 KiB body in 1 KiB pieces every 0.1 s (10 KiB/s)
    takes 0.8 s, more than twice the timeout alone, and is read whole."""
    async with connection(bounded(**SLOW)) as (reader, writer):
        body = bytes(range(256)) * 32
        writer.write(b"POST /echo HTTP/1.1\r\ncontent-length: %d\r\n\r\n" % len(body))
        for start in range(0, len(body), 1024):
            await asyncio.sleep(0.1)
            writer.write(body[start : start + 1024])
        assert await read_answer(reader) == (200, b"echo " + body)
        # The connection goes on: the next request is timed from its own head.
        writer.write(b"POST /echo HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n")
        for _ in range(3):
            await asyncio.sleep(0.08)
            writer.write(b"2\r\nok\r\n")
        writer.write(b"0\r\n\r\n")
        assert await read_answer(reader) == (200, b"echo okokok")


async def test_a_body_that_falls_behind_is_answered_408_and_closed() -> None:
    for framing in (b"content-length: 4096", b"transfer-encoding: chunked"):
        async with connection(bounded(**SLOW)) as (reader, writer):
            writer.write(b"POST /echo HTTP/1.1\r\n" + framing + b"\r\n\r\n")
            started = asyncio.get_running_loop().time()
            status = 0
            for _ in range(20):  # a byte every 0.1 s (a chunk's size line, chunked)
                writer.write(b"a" if framing.startswith(b"content") else b"1\r\na\r\n")
                try:
                    status, body = await asyncio.wait_for(read_answer(reader), 0.1)
                    break
                except TimeoutError:
                    continue
            took = asyncio.get_running_loop().time() - started
            assert (status, body) == (408, b"request body too slow"), framing
            assert 0.3 <= took < 1.5, took
            assert await closed(reader, 5)


async def test_a_body_still_coming_after_its_answer_is_timed_too() -> None:
    """An answer that did not wait for the body (a refusal, say): the rest of the body
    is still read, at the same rate, and a drip closes the connection without a second
    answer."""
    async with connection(bounded(**SLOW)) as (reader, writer):
        writer.write(b"POST /early HTTP/1.1\r\ncontent-length: 4096\r\n\r\n")
        assert await read_answer(reader) == (200, b"answer to /early")
        for _ in range(10):
            writer.write(b"a")
            await asyncio.sleep(0.1)
        assert await closed(reader, 1)


async def test_time_the_server_is_not_reading_is_not_counted_against_the_client() -> None:
    """The app reads the body 0.6 s late (twice the 0.3 s timeout): a body sent at
    once, larger than uvicorn takes before it stops reading, and a body the client holds
    until `100 Continue`, are both read whole. (A high minimum rate here, 4 MiB/s, so
    that what came before uvicorn stopped reading buys the client almost no time.)"""
    async with connection(
        bounded(body_timeout_s=0.3, body_min_bytes_per_s=4 * 1024 * 1024)
    ) as (reader, writer):
        body = bytes(range(256)) * 1024  # 256 KiB
        writer.write(b"POST /late-reader HTTP/1.1\r\ncontent-length: %d\r\n\r\n" % len(body))
        writer.write(body)
        assert await read_answer(reader) == (200, b"echo " + body)
        writer.write(
            b"POST /late-reader HTTP/1.1\r\ncontent-length: 5\r\nexpect: 100-continue\r\n\r\n"
        )
        assert await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5) == (
            b"HTTP/1.1 100 Continue\r\n\r\n"
        )
        writer.write(b"hello")
        assert await read_answer(reader) == (200, b"echo hello")
