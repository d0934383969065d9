"""Every place the server leans on private code of litestar or uvicorn, in one module.

Each entry says what it relies on and why it is worth it (the figures are in
docs/performance.md); `tests/unit/test_fast_paths.py` checks the shape of each private
thing it touches, and fails with what to do when an upgrade changes it. pyproject.toml
bounds litestar and uvicorn to the versions these checks have passed on.

- `ScopeHeaderRequest.content_length` writes litestar's private `Request._content_length`
  cache: litestar's own property parses every header into a `Headers` first, 4% of a
  move's CPU under load.
- `cached_json` / `remember_json` read and fill litestar's private JSON cache
  (`Request._json` and the scope state's `json`), so the strict decoder of `bodies.py`
  decodes a body once and litestar's later reads find it.
- `allow_every_method_in_options` rewrites a closure cell of litestar's automatic
  OPTIONS handler: upstream bug litestar-org/litestar#4169 (a path with several
  methods answers `Allow` with the first one only), fixed in Litestar 3 only.
- `CoalescingHttpToolsProtocol` subclasses uvicorn's private `HttpToolsProtocol` to
  send each answer in one write: 5–9% of the server's CPU per request.
- `client_left_mid_body` tells litestar's error for a client gone before its request body
  had all come (a plain `InternalServerException`, told apart only by its text) from a
  real internal error: `noitu serve` closes connections whose body is too slow
  (`server_protocol.py`), and each would otherwise be logged as a 500 with a traceback.
- `JsonAnswer` is the `response_class` of both games' JSON APIs: a handler returns its
  result struct, and litestar hands it to this class, which encodes it with msgspec
  and answers with a bare ASGI app instead of building an `ASGIResponse` through a
  mutable header view (a tenth of a move's CPU under load). `response_class` and
  `to_asgi_response` are public, but this relies on how litestar's data handler calls
  them (the keywords it passes), which is not.
- `ClosingWebSocketsProtocol` subclasses uvicorn's WebSocket protocol (its
  websockets-sansio one, `conn` its private `websockets` connection) to close that
  connection's parser when the socket is gone: the parser is a generator that refers
  back to its connection, and uvicorn leaves it suspended, so every closed WebSocket
  (with its permessage-deflate zlib state, ~45 KB) stayed in memory until a full
  garbage collection, which `noitu serve` makes rare (B10's feeds, issue 30).
"""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
from litestar import Litestar, Request, Response
from litestar.exceptions import ClientException, InternalServerException
from litestar.routes import HTTPRoute
from litestar.types import Empty, Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol


class ScopeHeaderRequest(Request[Any, Any, Any]):
    @property
    def content_length(self) -> int | None:
        """The Content-Length header read straight from the ASGI scope, as litestar's
        own property reads it (the first one; a malformed one is the client's error)
        but without parsing every header into a `Headers` first."""
        cached = self._content_length
        if cached is not Empty:
            return cached  # type: ignore[return-value]
        length: int | None = None
        for name, value in self.scope["headers"]:
            if name == b"content-length":
                try:
                    length = int(value)
                except ValueError:
                    raise ClientException(f"Invalid content-length: {value!r}") from None
                break
        self._content_length = length
        return length


def cached_json(request: Request[Any, Any, Any]) -> Any:
    """The body this request (or an earlier reader of the same scope) decoded, or
    litestar's `Empty`."""
    if request._json is not Empty:
        return request._json
    if (decoded := request._connection_state.json) is not Empty:
        request._json = decoded
    return decoded


def remember_json(request: Request[Any, Any, Any], value: Any) -> None:
    request._json = request._connection_state.json = value


#: The text of the error litestar's `Request.stream` raises when the ASGI server says the
#: client is gone (`http.disconnect`) before the body's end.
CLIENT_GONE = "client disconnected prematurely"


def client_left_mid_body(error: Exception) -> bool:
    """`error` is litestar's word that the client left before its request body had all
    come (or the server closed it for a body too slow), not an error of the app."""
    return isinstance(error, InternalServerException) and error.detail == CLIENT_GONE


def allow_every_method_in_options(app: Litestar) -> None:
    """Make the automatic OPTIONS answer of a path name all of the path's methods.

    Litestar 2 builds a path's route again for each handler it registers there, and the
    OPTIONS handler made with the first route keeps answering `Allow` from that route's
    methods only (litestar-org/litestar#4169; a path with GET and POST says `GET,
    OPTIONS`). Pointing each automatic handler's closure at its final route fixes the
    header (the OpenAPI document lists every method, and clients and the schema tests
    compare the two).
    """
    for route in app.routes:
        if not isinstance(route, HTTPRoute):
            continue
        for handler in route.route_handlers:
            fn = getattr(handler, "fn", None)
            if handler.http_methods != {"OPTIONS"} or getattr(fn, "__name__", "") != "options_handler":
                continue
            for cell in getattr(fn, "__closure__", None) or ():
                if isinstance(cell.cell_contents, HTTPRoute):
                    cell.cell_contents = route


class CoalescingTransport:
    """A transport that sends the writes of one event-loop callback as one write; every
    other call goes to the real transport.

    uvicorn writes a response's status line and headers as soon as the app starts the
    response, and its body when the app sends it: two socket writes, two TCP segments
    and two wake-ups of the client for every answer of the API. This holds the writes
    made while one callback of the event loop runs and sends them together right after
    it (`loop.call_soon`); nothing is held longer, and closing sends what is held first.
    """

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
    as `http=`). uvicorn has no public hook for the transport a connection writes to;
    its request cycles write through the transport given to `connection_made`."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(CoalescingTransport(transport, self.loop))  # type: ignore[arg-type]


_encode = msgspec.json.Encoder().encode
_JSON = (b"content-type", b"application/json")
_NO_BODY = frozenset({204, 304})


class JsonAnswer(Response[Any]):
    """The answer of a route that returns a struct: its JSON, encoded with msgspec as
    litestar encodes it, with the route's status code, sent by `EncodedJson`. The
    security headers come from the `before_send` hook, as for every answer.

    Litestar builds `response_class(content=..., status_code=..., background=...,
    media_type=..., type_encoders=...)` for a handler's return value and then calls
    `to_asgi_response(app=None, request=..., headers=..., cookies=...)`; the routes of
    the APIs set no headers, cookies or background tasks, and a route that did would
    be refused here rather than lose them.
    """

    __slots__ = ()

    def __init__(
        self, content: Any, *, status_code: int | None = None, background: Any = None,
        **_litestar: Any,
    ) -> None:
        self.content = content
        self.status_code = status_code or 200
        self.background = background

    def to_asgi_response(  # type: ignore[override]
        self, app: Any, request: Any, *, background: Any = None, cookies: Any = None,
        headers: Any = None, **_litestar: Any,
    ) -> EncodedJson:
        if self.background is not None or background is not None or cookies or headers:
            raise TypeError("JsonAnswer sends no headers, cookies or background tasks")
        if self.status_code in _NO_BODY:
            return EncodedJson(b"", self.status_code)
        return EncodedJson(_encode(self.content), self.status_code)


class EncodedJson:
    """A JSON answer already encoded, as a bare ASGI app."""

    __slots__ = ("body", "status")

    def __init__(self, body: bytes, status: int) -> None:
        self.body = body
        self.status = status

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = self.body
        headers = [_JSON, (b"content-length", b"%d" % len(body))] if body else []
        await send({"type": "http.response.start", "status": self.status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class ClosingWebSocketsProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, letting go of its connection once the socket is gone
    (`noitu serve` passes it as uvicorn's `ws`)."""

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        # websockets' sans-I/O connection parses with a generator that holds the
        # connection; closing it breaks that cycle, so the memory goes now.
        self.conn.parser.close()
