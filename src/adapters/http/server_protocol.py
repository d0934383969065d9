"""uvicorn's HTTP/1.1 protocol (httptools) with bounds.

It builds on `fast_paths.CoalescingHttpToolsProtocol` (each answer in one write).
`BoundedHttpToolsProtocol` adds the bounds uvicorn lacks on the server's own
connections (spec B10; docs/operating.md): a cap on open connections, a new one past it
answered 503 and closed at once, and a timer on the request head.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from noitu.adapters.http.fast_paths import CoalescingHttpToolsProtocol


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
      pile up and hold their descriptors until the server runs out of them.)
    - The head timer. uvicorn has none: its only timer is the keep-alive one, armed
      after an answer and cancelled by any byte received, so a connection that sends
      nothing, or one byte of its head every few seconds, stays open as long as the
      client likes (measured: still open after 60 s with uvicorn alone). This timer is
      armed when the connection opens and when an answer is complete, and at the first
      byte of each request head; only the end of the head cancels it. When it fires,
      the connection is closed.

    - A finished request is let go when its answer is complete (its cycle, scope and
      headers), not when the next request on the connection replaces it.

    It overrides uvicorn's parser callbacks and reads `server_state.connections`,
    `pipeline` and `cycle.response_complete` / `more_body`, and sets `cycle`, `scope`
    and `headers`, private too: `tests/unit/test_fast_paths.py` checks them.
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
        cycle = self.cycle
        idle = cycle is None or cycle.response_complete
        if idle and not self._in_head and not self.transport.is_closing():
            self._arm_head_timer()  # the next head, from now (keep-alive closes sooner)
        if cycle is not None and cycle.response_complete and not cycle.more_body and not self.pipeline:
            # The request is over both ways: let go of it now rather than when the next
            # request comes (about 300 ms later for a player), so its scope, headers and
            # cycle are freed at once instead of being walked by the collector's young
            # passes (docs/performance.md, "The 600-player tail").
            self.cycle = None  # type: ignore[assignment]
            self.scope = None  # type: ignore[assignment]
            self.headers = []

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
