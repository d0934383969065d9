"""uvicorn's HTTP/1.1 protocol (httptools), sending each answer in one write.

uvicorn writes a response's status line and headers as soon as the app starts the
response, and its body when the app sends it: two socket writes, two TCP segments and
two wake-ups of the client for every answer of the API. `CoalescingTransport` holds the
writes made while one callback of the event loop runs and sends them together right
after it (`loop.call_soon`), so an answer leaves in one write; nothing is held longer,
and closing the connection sends what is held first. Under the load of issue 13 this
took 5–9% of the server's CPU per request off (docs/performance.md).
"""

from __future__ import annotations

import asyncio
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
