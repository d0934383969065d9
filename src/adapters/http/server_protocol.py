"""uvicorn's HTTP/1.1 protocol (httptools) with bounds.

It builds on `fast_paths.CoalescingHttpToolsProtocol` (each answer in one write).
`BoundedHttpToolsProtocol` adds the bounds uvicorn lacks on the server's own
connections (spec B10; docs/operating.md): a cap on open connections, a new one past it
answered 503 and closed at once; a timer on the request head; a cap on the head's size;
and a timer on the request body with a minimum rate.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from noitu.adapters.http.fast_paths import CoalescingHttpToolsProtocol


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    """`max_connections`: open connections (HTTP and WebSocket) at most;
    `head_timeout_s`: how long a connection may take to send a whole request head;
    `max_head_bytes`: how large a request head may be; `body_timeout_s` and
    `body_min_bytes_per_s`: a request body must have come whole within `body_timeout_s`
    plus a second for every `body_min_bytes_per_s` bytes of it."""

    max_connections: int
    head_timeout_s: float
    max_head_bytes: int
    body_timeout_s: float
    body_min_bytes_per_s: int


#: A request head may have at most this many header fields (Apache's default): a head of
#: tiny fields costs uvicorn a tuple each, 16 times its bytes.
MAX_HEADER_FIELDS = 100


def _plain(status: bytes, text: bytes, *extra: bytes) -> bytes:
    """A whole answer with a short plain-text body that closes its connection."""
    return b"".join((
        b"HTTP/1.1 ", status, b"\r\ncontent-type: text/plain; charset=utf-8\r\n",
        b"content-length: %d\r\nconnection: close\r\n" % len(text), *extra, b"\r\n", text,
    ))


REFUSED = _plain(b"503 Service Unavailable", b"too many connections", b"retry-after: 5\r\n")
HEAD_TOO_LARGE = _plain(b"431 Request Header Fields Too Large", b"request head too large")
BODY_TOO_SLOW = _plain(b"408 Request Timeout", b"request body too slow")


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
      armed when the connection opens, when an answer is complete and the request's
      body has all come, and at the first byte of each request head; only the end of
      the head cancels it. When it fires, the connection is closed.
    - The head's size. uvicorn has no cap with httptools, and httptools gathers a
      header's value until its end: one 20 MB header was held whole, and answered. A
      head still unfinished after `max_head_bytes` is refused as soon as the bytes read
      show it (at most one read of the socket, 256 KiB, later), and a finished one is
      measured as written (request line and `name: value` lines) before it reaches the
      app; past the cap, or past `MAX_HEADER_FIELDS` fields, it is answered 431 (unless
      an earlier request's answer is under way: then the connection just closes) and
      the connection is closed.
    - The body timer. Once a head is complete, its body (if any) must keep up: at any
      moment, `body_min_bytes_per_s` × (time since the head − `body_timeout_s`) bytes
      of it must have come, i.e. the whole body within the timeout plus a second per
      `body_min_bytes_per_s` bytes. Time the server is not reading does not count (the
      app has not taken what came, uvicorn's flow control; or the client waits for
      `100 Continue`): the client has a whole timeout again from each check that finds
      the server not reading, and from the first check after it reads again. A body too
      slow closes the connection, answered 408 first when nothing was answered yet. The
      timer runs until the body's end, even when the answer came first (uvicorn reads
      and drops the rest of the body then).
    - A finished request is let go when its answer is complete (its cycle, scope and
      headers), not when the next request on the connection replaces it.

    It overrides uvicorn's parser callbacks and reads `server_state.connections`,
    `pipeline`, `url`, `headers`, `flow.read_paused`, and the cycle's
    `response_started`, `response_complete`, `more_body` and
    `waiting_for_100_continue`, and sets `cycle`, `scope` and `headers`, private too:
    `tests/unit/test_fast_paths.py` checks them.
    """

    def __init__(self, *args: Any, limits: ConnectionLimits, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._limits = limits
        self._head_timer: asyncio.TimerHandle | None = None
        self._body_timer: asyncio.TimerHandle | None = None
        self._in_head = False
        self._in_body = False
        self._refused = False  # past the cap: never counted, never parsed
        self._closing = False  # refused by a bound: the parser's callbacks do nothing more
        # The head being read: its bytes in the reads since the one it began in (and
        # that one too when it began on an idle connection), `_head_unsure` when part
        # of it went uncounted; heads begun in the current read; that read's size.
        self._head_bytes = 0
        self._head_unsure = False
        self._heads_begun = 0
        self._read_bytes = 0
        # The body being read: when its clock began (loop time), its bytes so far, and
        # whether the server was not reading it at the last check.
        self._body_start = 0.0
        self._body_bytes = 0
        self._server_waited = False

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
        self._disarm_body_timer()
        if self._refused:
            return  # never counted, never parsed
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused or self._closing:
            return
        idle = not self._in_head and not self._in_body  # the next byte begins a head
        self._read_bytes = len(data)
        self._heads_begun = 0
        super().data_received(data)
        if self._closing:
            self._refuse(HEAD_TOO_LARGE if self._answerable_before_head() else b"")
        elif self._in_head:
            self._count_unfinished_head(len(data), idle)
        elif self._in_body and self._body_timer is None and not self.transport.is_closing():
            self._body_start = self.loop.time()
            self._server_waited = False
            self._arm_body_timer(self._body_start)

    def _count_unfinished_head(self, read: int, idle: bool) -> None:
        if self._heads_begun == 0:
            self._head_bytes += read  # the whole read belongs to the head
        elif self._heads_begun == 1 and idle:
            self._head_bytes = read
        else:  # it began after another request in this read: count from the next one
            self._head_unsure = True
        if self._head_bytes > self._limits.max_head_bytes or len(self.headers) > MAX_HEADER_FIELDS:
            self._refuse(HEAD_TOO_LARGE if self._answerable_before_head() else b"")

    def on_message_begin(self) -> None:
        if self._closing:
            return
        super().on_message_begin()
        self._in_head = True
        self._head_bytes = 0
        self._head_unsure = False
        self._heads_begun += 1
        if self._head_timer is None:
            self._arm_head_timer()

    def on_headers_complete(self) -> None:
        if self._closing:
            return
        self._in_head = False
        self._disarm_head_timer()
        if (
            self._head_bytes + self._read_bytes > self._limits.max_head_bytes
            or self._head_unsure or len(self.headers) > MAX_HEADER_FIELDS
        ) and self._head_too_large():
            self._closing = True  # answered once the parser returns
            return
        super().on_headers_complete()
        self._in_body = True  # until the message's end, at once when it has no body
        self._body_bytes = 0

    def _head_too_large(self) -> bool:
        """The head as written (request line, `name: value` lines, the blank line) is
        larger than the cap, or has too many fields."""
        if len(self.headers) > MAX_HEADER_FIELDS:
            return True
        size = len(self.parser.get_method()) + len(self.url) + len(b"  HTTP/1.1\r\n\r\n")
        size += sum(len(name) + len(value) + 4 for name, value in self.headers)
        return size > self._limits.max_head_bytes

    def on_body(self, body: bytes) -> None:
        if self._closing:
            return
        self._body_bytes += len(body)
        super().on_body(body)

    def on_message_complete(self) -> None:
        if self._closing:
            return
        super().on_message_complete()
        self._in_body = False
        if self._body_timer is not None:
            self._disarm_body_timer()
            cycle = self.cycle
            if (cycle is None or cycle.response_complete) and not self.transport.is_closing():
                self._arm_head_timer()  # answered before the body's end: the next head

    def on_response_complete(self) -> None:
        super().on_response_complete()
        cycle = self.cycle
        idle = cycle is None or cycle.response_complete
        if idle and not self._in_head and not self._in_body and not self.transport.is_closing():
            self._arm_head_timer()  # the next head, from now (keep-alive closes sooner)
        if cycle is not None and cycle.response_complete and not cycle.more_body and not self.pipeline:
            # The request is over both ways: let go of it now rather than when the next
            # request comes (about 300 ms later for a player), so its scope, headers and
            # cycle are freed at once instead of being walked by the collector's young
            # passes (docs/performance.md, "The 600-player tail").
            self.cycle = None  # type: ignore[assignment]
            if not self._in_head:  # else they are already the next request's, half read
                self.scope = None  # type: ignore[assignment]
                self.headers = []

    def _answerable_before_head(self) -> bool:
        """No earlier request's answer is under way, so one may be written now."""
        cycle = self.cycle
        return not self.pipeline and (cycle is None or cycle.response_complete)

    def _refuse(self, answer: bytes) -> None:
        """Stop reading this connection: answer (when given) and close it."""
        self._closing = True
        self._disarm_head_timer()
        self._disarm_body_timer()
        if not self.transport.is_closing():
            if answer:
                self.transport.write(answer)
            self.transport.close()

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

    def _arm_body_timer(self, now: float) -> None:
        """Check the body again when it would fall behind, were nothing more to come."""
        limits = self._limits
        due = self._body_start + limits.body_timeout_s + self._body_bytes / limits.body_min_bytes_per_s
        self._body_timer = self.loop.call_later(max(due - now, 0.0), self._check_body)

    def _disarm_body_timer(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None

    def _check_body(self) -> None:
        self._body_timer = None
        if not self._in_body or self._closing or self.transport.is_closing():
            return
        now = self.loop.time()
        limits = self._limits
        cycle = self.cycle
        waiting = self.flow.read_paused or (cycle is not None and cycle.waiting_for_100_continue)
        if waiting or self._server_waited:
            # The server is not reading, or was not at the last check (it may have asked
            # for the rest only a moment ago): a whole timeout again, from now.
            self._body_start = now - self._body_bytes / limits.body_min_bytes_per_s
        self._server_waited = waiting
        due = self._body_start + limits.body_timeout_s + self._body_bytes / limits.body_min_bytes_per_s
        if now < due:
            self._arm_body_timer(now)
            return
        unanswered = not self.pipeline and cycle is not None and not cycle.response_started
        self._refuse(BODY_TOO_SLOW if unanswered else b"")
