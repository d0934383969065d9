"""uvicorn's HTTP/1.1 protocol (httptools), sending each answer in one write.

uvicorn writes a response's status line and headers as soon as the app starts the
response, and its body when the app sends it: two socket writes, two TCP segments and
two wake-ups of the client for every answer of the API. `CoalescingTransport` holds the
writes made while one callback of the event loop runs and sends them together right
after it (`loop.call_soon`), so an answer leaves in one write; nothing is held longer,
and closing the connection sends what is held first. Under the load of issue 13 this
took 5–9% of the server's CPU per request off (docs/performance.md).

`BoundedHttpToolsProtocol` adds the bounds uvicorn lacks on the server's own
connections (spec B10; docs/operating.md): a cap on open connections, a new one past it
answered 503 and closed at once, and a timer on the request head.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class CoalescingTransport:
    """A transport that sends the writes of one event-loop callback as one write; every
    other call goes to the real transport."""

    __slots__ = ("_held", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: list[bytes] = []

    def write(self, data: bytes) -> None:
        if not data:
            return
        if not self._held:
            self._loop.call_soon(self._flush)
        self._held.append(data)

    def _flush(self) -> None:
        held, self._held = self._held, []
        if held and not self._transport.is_closing():
            self._transport.write(held[0] if len(held) == 1 else b"".join(held))

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class CoalescingHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol on a `CoalescingTransport` (give it to `uvicorn.run`
    as `http=`)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(CoalescingTransport(transport, self.loop))  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    """`max_connections`: open connections (HTTP and WebSocket) at most; `head_timeout_s`:
    how long a connection may take to send a whole request head."""

    max_connections: int
    head_timeout_s: float


REFUSED = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"content-length: 20\r\nconnection: close\r\nretry-after: 5\r\n\r\n"
    b"too many connections"
)


class BoundedHttpToolsProtocol(CoalescingHttpToolsProtocol):
    """`CoalescingHttpToolsProtocol` with bounds on connections (give it to
    `uvicorn.run` as `http=functools.partial(BoundedHttpToolsProtocol, limits=...)`).

    - Past `max_connections` open connections, a new one is answered 503 and closed at
      once, before it reads anything. (uvicorn's `limit_concurrency` answers 503 only
      once a whole request head arrived, so connections that send nothing would still
      pile up and hold their descriptors: the attack of issue 19.)
    - The head timer. uvicorn has none: its only timer is the keep-alive one, armed
      after an answer and cancelled by any byte received, so a connection that sends
      nothing, or one byte of its head every few seconds, stays open as long as the
      client likes (measured: still open after 60 s with uvicorn alone). This timer is
      armed when the connection opens and when an answer is complete, and at the first
      byte of each request head; only the end of the head cancels it. When it fires,
      the connection is closed.
    """

    def __init__(self, *args: Any, limits: ConnectionLimits, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._limits = limits
        self._head_timer: asyncio.TimerHandle | None = None
        self._in_head = False
        self._refused = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        if len(self.server_state.connections) >= self._limits.max_connections:
            self._refused = True
            transport.write(REFUSED)
            transport.close()
            return
        super().connection_made(transport)
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head_timer()
        if self._refused:
            return  # never counted, never parsed
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        super().data_received(data)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head = True
        if self._head_timer is None:
            self._arm_head_timer()

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._disarm_head_timer()
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        idle = self.cycle is None or self.cycle.response_complete
        if idle and not self._in_head and not self.transport.is_closing():
            self._arm_head_timer()  # the next head, from now (keep-alive closes sooner)

    def _arm_head_timer(self) -> None:
        self._disarm_head_timer()
        self._head_timer = self.loop.call_later(self._limits.head_timeout_s, self._head_too_slow)

    def _disarm_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_too_slow(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing():
            self.transport.close()
