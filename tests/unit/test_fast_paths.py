"""The fences of `noitu.adapters.http.fast_paths` (and of the uvicorn callbacks
`server_protocol.BoundedHttpToolsProtocol` overrides): each test checks the shape of
one private thing of litestar or uvicorn the server relies on, so an upgrade that
changes it fails here, with what to do, instead of misbehaving in production."""

from __future__ import annotations

import asyncio
import inspect

import httptools
import msgspec
import pytest
from litestar import Litestar, Request, get, post
from litestar.connection.base import ScopeState
from litestar.testing import TestClient
from litestar.types import Empty
from uvicorn.protocols.http import httptools_impl
from uvicorn.protocols.http.flow_control import FlowControl
from uvicorn.server import ServerState

from noitu.adapters.http.fast_paths import (
    CLIENT_GONE,
    EncodedJson,
    JsonAnswer,
    ScopeHeaderRequest,
    allow_every_method_in_options,
    cached_json,
    client_left_mid_body,
    remember_json,
)
from noitu.adapters.http.server_protocol import BoundedHttpToolsProtocol

UPGRADE = "a litestar or uvicorn upgrade changed what fast_paths.py relies on: "


def request() -> Request:
    scope = {"type": "http", "method": "POST", "path": "/", "headers": [], "query_string": b""}
    return Request(scope)  # type: ignore[arg-type]


def test_litestar_caches_content_length_in_a_private_slot() -> None:
    fresh = request()
    assert "_content_length" in Request.__slots__ and fresh._content_length is Empty, (
        UPGRADE + "Request._content_length is gone; compare ScopeHeaderRequest.content_length "
        "with litestar's own property and drop the override if that is fast now"
    )
    own = inspect.getsource(Request.content_length.fget)  # type: ignore[attr-defined]
    assert "self._content_length" in own, (
        UPGRADE + "litestar's content_length no longer reads _content_length; re-check "
        "ScopeHeaderRequest against it"
    )
    assert isinstance(ScopeHeaderRequest.__dict__["content_length"], property)


def test_litestar_caches_the_decoded_body_where_remember_json_writes() -> None:
    fresh = request()
    assert "_json" in Request.__slots__ and fresh._json is Empty, (
        UPGRADE + "Request._json is gone; re-check cached_json/remember_json"
    )
    assert "json" in ScopeState.__slots__, (
        UPGRADE + "litestar's ScopeState keeps no json; re-check cached_json/remember_json"
    )
    own = inspect.getsource(Request.json)
    assert "self._json" in own and "_connection_state.json" in own, (
        UPGRADE + "litestar's Request.json caches elsewhere; make cached_json/remember_json "
        "read and fill that cache"
    )
    remember_json(fresh, {"word": "con cá"})
    again = Request(fresh.scope)  # the same scope: litestar's later reader
    assert cached_json(again) == {"word": "con cá"}


@get("/path", sync_to_thread=False)
def read_it() -> str:
    return "read"


@post("/path", sync_to_thread=False)
def write_it() -> str:
    return "written"


def allow_header(app: Litestar) -> str:
    with TestClient(app) as client:
        return client.options("/path").headers["allow"]


def test_litestar_4169_still_names_one_method_in_options() -> None:
    assert allow_header(Litestar([read_it, write_it])) != "GET, OPTIONS, POST", (
        "litestar fixed litestar-org/litestar#4169 (OPTIONS' Allow header names every "
        "method): delete allow_every_method_in_options from fast_paths.py and app.py"
    )


def test_the_options_fix_finds_litestars_handler_and_names_every_method() -> None:
    app = Litestar([read_it, write_it])
    allow_every_method_in_options(app)
    assert allow_header(app) == "GET, OPTIONS, POST", (
        UPGRADE + "litestar's automatic OPTIONS handler is no longer `options_handler` "
        "closing over its HTTPRoute; re-check allow_every_method_in_options"
    )


def test_uvicorn_httptools_protocol_has_the_shape_the_subclasses_rely_on() -> None:
    protocol = httptools_impl.HttpToolsProtocol
    # CoalescingHttpToolsProtocol: the transport given to connection_made is the one
    # every request cycle writes to.
    assert list(inspect.signature(protocol.connection_made).parameters) == ["self", "transport"], (
        UPGRADE + "HttpToolsProtocol.connection_made changed its parameters"
    )
    assert "self.transport = transport" in inspect.getsource(protocol.connection_made), (
        UPGRADE + "HttpToolsProtocol keeps its transport elsewhere; CoalescingTransport "
        "no longer sits under the answers"
    )
    headers_complete = inspect.getsource(protocol.on_headers_complete)
    assert "transport=self.transport" in headers_complete, (
        UPGRADE + "uvicorn's request cycle no longer writes to the protocol's transport"
    )
    # BoundedHttpToolsProtocol: the parser callbacks it wraps, and the state it reads.
    for name in ("connection_lost", "data_received", "on_message_begin",
                 "on_headers_complete", "on_body", "on_message_complete",
                 "on_response_complete"):
        assert callable(getattr(protocol, name, None)), (
            UPGRADE + f"HttpToolsProtocol.{name} is gone; BoundedHttpToolsProtocol's head "
            "timer and connection cap need re-checking"
        )
        assert name in BoundedHttpToolsProtocol.__dict__
    init = inspect.getsource(protocol.__init__)
    for attribute in ("self.loop", "self.server_state", "self.cycle"):
        assert attribute in init, UPGRADE + f"HttpToolsProtocol no longer sets {attribute}"
    assert isinstance(ServerState().connections, set), (
        UPGRADE + "uvicorn's ServerState.connections is no longer a set; re-check the cap"
    )
    # The head's size: each read goes to the parser whole, in one call; the request line's
    # target gathers in `url` and each field in `headers`, as they come.
    assert "self.parser.feed_data(data)" in inspect.getsource(protocol.data_received), (
        UPGRADE + "HttpToolsProtocol.data_received no longer parses each read at once; "
        "re-check how BoundedHttpToolsProtocol counts a head's bytes"
    )
    assert 'self.url = b""' in inspect.getsource(protocol.on_message_begin)
    assert "self.url += url" in inspect.getsource(protocol.on_url)
    assert "self.headers.append((name, value))" in inspect.getsource(protocol.on_header), (
        UPGRADE + "HttpToolsProtocol keeps a head's fields elsewhere; re-check the head cap"
    )
    # The body timer: uvicorn's flow control says when the server stopped reading, and
    # the cycle whether an answer started and whether the client waits for 100 Continue.
    cycle_init = inspect.getsource(httptools_impl.RequestResponseCycle.__init__)
    for attribute in ("self.response_started", "self.waiting_for_100_continue"):
        assert attribute in cycle_init, UPGRADE + f"the request cycle no longer has {attribute}"
    assert "self.flow = FlowControl(" in inspect.getsource(protocol.connection_made)
    flow = FlowControl(Transport())
    assert flow.read_paused is False
    flow.pause_reading()
    assert flow.read_paused is True, (
        UPGRADE + "FlowControl.read_paused no longer says the server stopped reading; "
        "re-check BoundedHttpToolsProtocol's body timer"
    )
    assert "response_complete" in inspect.getsource(httptools_impl.RequestResponseCycle.__init__)
    # BoundedHttpToolsProtocol lets go of a finished request (cycle, scope, headers):
    # uvicorn must make them anew for each request and bear a cycle of None between two.
    assert "self.more_body" in inspect.getsource(httptools_impl.RequestResponseCycle.__init__)
    assert "self.pipeline" in init, UPGRADE + "HttpToolsProtocol no longer queues pipelined requests"
    assert "self.scope = {" in inspect.getsource(protocol.on_message_begin)
    assert "self.headers = []" in inspect.getsource(protocol.on_message_begin)
    assert "self.cycle = RequestResponseCycle(" in headers_complete
    for name in ("connection_lost", "shutdown"):
        assert "self.cycle is None" in inspect.getsource(getattr(protocol, name)) or (
            "if self.cycle" in inspect.getsource(getattr(protocol, name))
        ), UPGRADE + f"HttpToolsProtocol.{name} no longer bears a cycle of None"


class Transport(asyncio.Transport):
    def pause_reading(self) -> None:
        pass


class Recorder:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def on_headers_complete(self) -> None:
        self.calls.append("headers")

    def on_message_complete(self) -> None:
        self.calls.append("message")


def test_httptools_ends_the_message_of_an_upgrade_before_handing_over() -> None:
    """BoundedHttpToolsProtocol counts a request as reading its body from the end of its
    head to `on_message_complete`: an upgrade (a WebSocket) must get that call before
    the parser stops, or the old protocol would time a body that never comes."""
    recorder = Recorder()
    parser = httptools.HttpRequestParser(recorder)
    with pytest.raises(httptools.HttpParserUpgrade):
        parser.feed_data(b"GET /ws HTTP/1.1\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n")
    assert recorder.calls == ["headers", "message"], (
        UPGRADE + "httptools no longer ends an upgrade's message; re-check the body timer"
    )


async def test_litestar_tells_a_client_gone_mid_body_by_its_text() -> None:
    """The error litestar raises when uvicorn says the client is gone before the body's
    end is what `client_left_mid_body` recognises (errors.py answers it 408 and logs no
    internal error)."""
    messages = [{"type": "http.request", "body": b"{", "more_body": True}, {"type": "http.disconnect"}]

    async def receive() -> dict[str, object]:
        return messages.pop(0)

    class Handler:  # what litestar asks of the route for the body's size limit
        def resolve_request_max_body_size(self) -> int:
            return 4096

    scope = {
        "type": "http", "method": "POST", "path": "/", "headers": [], "query_string": b"",
        "route_handler": Handler(),
    }
    with pytest.raises(Exception) as raised:  # litestar's own class, whichever it is
        await Request(scope, receive).body()  # type: ignore[arg-type]
    assert client_left_mid_body(raised.value), (
        UPGRADE + f"litestar now raises {raised.value!r} for a client gone mid-body; "
        "update fast_paths.client_left_mid_body"
    )
    assert not client_left_mid_body(RuntimeError(CLIENT_GONE))


class Answer(msgspec.Struct, frozen=True):
    word: str
    points: int


def test_a_struct_returned_by_a_route_leaves_through_json_answer() -> None:
    """Litestar builds the route's `response_class` from the returned struct and calls its
    `to_asgi_response`: JsonAnswer's answer is what goes out, with the route's status."""
    made: list[object] = []

    class Watched(JsonAnswer):
        __slots__ = ()

        def to_asgi_response(self, *args: object, **kwargs: object) -> EncodedJson:  # type: ignore[override]
            answer = super().to_asgi_response(*args, **kwargs)
            made.append(answer)
            return answer

    @post("/play", status_code=200)
    async def play() -> Answer:
        return Answer("con cá", 3)

    @post("/made", status_code=201)
    async def create() -> Answer:
        return Answer("cá mè", 1)

    @post("/gone", status_code=204)
    async def gone() -> None:
        return None

    app = Litestar([play, create, gone], response_class=Watched, openapi_config=None)
    with TestClient(app) as client:
        played = client.post("/play")
        created = client.post("/made")
        removed = client.post("/gone")
    assert len(made) == 3 and all(isinstance(a, EncodedJson) for a in made), (
        UPGRADE + "litestar no longer sends a returned struct through the route's "
        "response_class.to_asgi_response; re-check fast_paths.JsonAnswer"
    )
    assert played.status_code == 200 and played.content == b'{"word":"con c\xc3\xa1","points":3}'
    assert played.headers["content-type"] == "application/json"
    assert played.headers["content-length"] == str(len(played.content))
    assert created.status_code == 201 and created.json() == {"word": "cá mè", "points": 1}
    assert removed.status_code == 204 and removed.content == b""


def test_json_answer_refuses_what_it_would_drop() -> None:
    """A route given headers or cookies must not lose them silently."""

    @post("/play", status_code=200, response_headers={"x-extra": "1"})
    async def play() -> Answer:
        return Answer("con cá", 3)

    app = Litestar([play], response_class=JsonAnswer, openapi_config=None)
    with TestClient(app, raise_server_exceptions=False) as client:
        assert client.post("/play").status_code == 500


def test_uvicorn_keeps_websockets_connection_whose_parser_refers_back_to_it() -> None:
    """`ClosingWebSocketsProtocol` closes `conn.parser` when the socket is gone: uvicorn's
    websockets-sansio protocol keeps websockets' connection as `conn`, and that
    connection parses with a generator that refers back to it (a cycle only a full
    garbage collection would free)."""
    import gc
    import weakref

    from uvicorn.protocols.websockets import websockets_sansio_impl
    from websockets.server import ServerProtocol

    from noitu.adapters.http.fast_paths import ClosingWebSocketsProtocol

    protocol = websockets_sansio_impl.WebSocketsSansIOProtocol
    assert issubclass(ClosingWebSocketsProtocol, protocol)
    assert "self.conn = ServerProtocol(" in inspect.getsource(protocol.__init__), (
        UPGRADE + "uvicorn's WebSocket protocol no longer keeps websockets' connection as "
        "`conn`; re-check fast_paths.ClosingWebSocketsProtocol"
    )
    assert "connection_lost" in vars(protocol), UPGRADE + "connection_lost moved"
    gc.disable()
    try:
        left = ServerProtocol()
        left_ref = weakref.ref(left)
        del left
        closed = ServerProtocol()
        closed.parser.close()
        closed_ref = weakref.ref(closed)
        del closed
        assert closed_ref() is None, UPGRADE + "a closed parser no longer frees websockets' connection"
        assert left_ref() is not None, (
            "websockets' connection no longer refers to itself through its parser: "
            "fast_paths.ClosingWebSocketsProtocol may go"
        )
    finally:
        gc.enable()
