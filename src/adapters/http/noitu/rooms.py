"""Nối từ's group rooms over HTTP (spec B10): POST routes under
`/games/noitu/api/room/`, and the live feed `GET /games/noitu/api/room/feed?member=…`,
a WebSocket or, for a client that asks with `Accept: text/event-stream` (any plain
GET), server-sent events. Every message of the feed is the member's full view: the
first at once, then one after every change of the room; a feed another took over (the
member joined again, or opened a third page) ends with `{"replaced": true}`. The
credential travels in the query, never in the path (the request log records paths
only).

A feed's views are pumped by one task into a small queue, so the connection can wait
for the next view with a time-out (a keep-alive comment for event streams, a check that
the client is still there for sockets) without cancelling the views' generator.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Annotated, Any, Protocol

import msgspec
import structlog
from litestar import Router, WebSocket, get, post, websocket
from litestar.datastructures import State
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import OpenAPI, OpenAPIType, Schema
from litestar.params import QueryParameter
from litestar.response import ServerSentEvent
from litestar.response.sse import ServerSentEventMessage

from noitu.adapters.http.errors import ERROR_STATUS, LIMIT_ERROR_HANDLERS, error_responses
from noitu.adapters.http.fast_paths import JsonAnswer
from noitu.adapters.http.noitu.api import (
    MAX_BODY_BYTES,
    WORD_CONSTRAINTS,
    JsonBody,
    tighten_schema,
)
from noitu.adapters.http.paths import NOITU_API_PATH
from noitu.adapters.http.socket_feed import let_go_of, refuse, send_until_gone
from noitu.application.errors import GameError
from noitu.application.noitu.errors import BadToken, TokenExpired, TooFast
from noitu.application.noitu.rooms.add_room_bot import AddRoomBot
from noitu.application.noitu.rooms.commands import (
    AddRoomBotCommand,
    JoinRoomCommand,
    MemberCommand,
    RoomMoveCommand,
)
from noitu.application.noitu.rooms.errors import (
    Busy,
    GameRunning,
    NoGame,
    NoMember,
    NotARoomLink,
    NotEnoughPlayers,
    NotHost,
    NotYourTurn,
    OutOfGame,
    RoomFull,
    RoomGone,
    TooManyRooms,
    Watching,
)
from noitu.application.noitu.rooms.follow_room import FeedMessage, FollowRoom, Replaced
from noitu.application.noitu.rooms.give_up_in_room import GiveUpInRoom
from noitu.application.noitu.rooms.join_room import JoinRoom
from noitu.application.noitu.rooms.leave_room import LeaveRoom
from noitu.application.noitu.rooms.play_room_move import PlayRoomMove, RoomMoveResult
from noitu.application.noitu.rooms.start_room_game import StartRoomGame
from noitu.application.noitu.rooms.view import JoinView, RoomView
from noitu.domain.noitu.opponent import Difficulty

log = structlog.get_logger("noitu.http")

ROOM_API_PATH = f"{NOITU_API_PATH}/room"
FEED_PATH = "/feed"
KEEPALIVE_S = 15.0  # an event stream's comment line while nothing changes
PUMP_QUEUE = 2  # views waiting for a slow client; older ones are dropped (each is full)

MemberQuery = Annotated[
    str,
    QueryParameter(
        name="member",
        description="The member credential room/join answered (32 hex digits)",
        min_length=1,
        max_length=64,
    ),
]


class RoomUseCases(Protocol):
    group_join: Callable[[], JoinRoom]
    group_start: Callable[[], StartRoomGame]
    group_add_bot: Callable[[], AddRoomBot]
    group_move: Callable[[], PlayRoomMove]
    group_give_up: Callable[[], GiveUpInRoom]
    group_leave: Callable[[], LeaveRoom]
    group_feed: Callable[[], FollowRoom]


class FeedError(msgspec.Struct, frozen=True):
    error: str
    message: str


_encode = msgspec.json.Encoder().encode

MEMBER_ERRORS = (NoMember, RoomGone, Busy)


async def _pump(views: AsyncGenerator[FeedMessage, None], queue: asyncio.Queue[bytes | None]) -> None:
    """Encode each view into the queue; a full queue drops its oldest view."""
    try:
        async for view in views:
            body = _encode(view)
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(body)
    except GameError as error:  # the store went away mid-feed
        log.warning("room_feed_ended", error=error.code)
    finally:
        await views.aclose()
        if queue.full():
            queue.get_nowait()
        queue.put_nowait(None)


@contextlib.asynccontextmanager
async def pumped(views: AsyncGenerator[FeedMessage, None]) -> AsyncIterator[asyncio.Queue[bytes | None]]:
    queue: asyncio.Queue[bytes | None] = asyncio.Queue(PUMP_QUEUE)
    task = asyncio.ensure_future(_pump(views, queue))
    try:
        yield queue
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task


async def _event_stream(views: AsyncGenerator[FeedMessage, None]) -> AsyncIterator[ServerSentEventMessage]:
    async with pumped(views) as queue:
        while True:
            try:
                body = await asyncio.wait_for(queue.get(), KEEPALIVE_S)
            except TimeoutError:
                yield ServerSentEventMessage(comment="ping", sep="\n")
                continue
            if body is None:
                return
            yield ServerSentEventMessage(data=body.decode(), sep="\n")


async def _send_all(
    socket: WebSocket[Any, Any, State], views: AsyncGenerator[FeedMessage, None]
) -> None:
    async with pumped(views) as queue:
        while (body := await queue.get()) is not None:
            await socket.send_text(body.decode())


def group_room_router(use_cases: RoomUseCases) -> Router:
    @post(
        "/join",
        status_code=200,
        summary="Join the room of a room card's link: a member credential and the view",
        responses=error_responses(BadToken, TokenExpired, NotARoomLink, TooFast, RoomFull,
                                  TooManyRooms, Busy, wait_in_body=True),
    )
    async def join(data: Annotated[JoinRoomCommand, JsonBody]) -> JoinView:
        return await use_cases.group_join()(data)

    @post(
        "/start",
        status_code=200,
        summary="The host starts a game with the first 8 members",
        responses=error_responses(*MEMBER_ERRORS, NotHost, GameRunning, NotEnoughPlayers,
                                  TooFast, wait_in_body=True),
    )
    async def start(data: Annotated[MemberCommand, JsonBody]) -> RoomView:
        return await use_cases.group_start()(data)

    @post(
        "/add-bot",
        status_code=200,
        summary="The host adds the bot as a player (level easy, medium or hard; null removes it)",
        responses=error_responses(*MEMBER_ERRORS, NotHost, GameRunning, RoomFull),
    )
    async def add_bot(data: Annotated[AddRoomBotCommand, JsonBody]) -> RoomView:
        return await use_cases.group_add_bot()(data)

    @post(
        "/move",
        status_code=200,
        summary="Play a word on your turn",
        responses=error_responses(*MEMBER_ERRORS, NoGame, Watching, OutOfGame,
                                  NotYourTurn, TooFast, wait_in_body=True),
    )
    async def move(data: Annotated[RoomMoveCommand, JsonBody]) -> RoomMoveResult:
        return await use_cases.group_move()(data)

    @post(
        "/give-up",
        status_code=200,
        summary="Chịu thua: leave the game being played (on your turn or not)",
        responses=error_responses(*MEMBER_ERRORS, NoGame, Watching, OutOfGame),
    )
    async def give_up(data: Annotated[MemberCommand, JsonBody]) -> RoomView:
        return await use_cases.group_give_up()(data)

    @post(
        "/leave",
        status_code=200,
        summary="Leave the room (out of a game being played); the credential stops working",
        responses=error_responses(*MEMBER_ERRORS),
    )
    async def leave(data: Annotated[MemberCommand, JsonBody]) -> RoomView:
        return await use_cases.group_leave()(data)

    @get(
        FEED_PATH,
        summary="The live feed as server-sent events (a WebSocket at the same path too)",
        description=(
            "Every event's data is the member's full RoomView: the first at once, then one"
            " after every change of the room (a refused word is no change: it is answered"
            " to its sender only). A feed another took over — the member joined again, or"
            " opened a third feed with one credential (at most 2 stay open) — gets one"
            " last message {\"replaced\": true} and ends; the page stops there. The same"
            " path upgrades to a WebSocket whose text frames are the same messages (closed"
            " with 1000 after the last); a refused credential is one frame"
            " {error, message} and a close with 4000 + the error's HTTP status."
        ),
        media_type="text/event-stream",
        responses={
            200: ResponseSpec(
                data_container=RoomView | Replaced,  # type: ignore[arg-type]
                description="text/event-stream of RoomView, or one last Replaced",
                media_type="text/event-stream", generate_examples=False,
            ),
            **error_responses(*MEMBER_ERRORS),
        },
        cache_control=None,
    )
    async def feed_events(member: MemberQuery) -> ServerSentEvent:
        views = await use_cases.group_feed()(MemberCommand(member))
        return ServerSentEvent(_event_stream(views), headers={"Cache-Control": "no-store"})

    @websocket(FEED_PATH)
    async def feed_socket(socket: WebSocket[Any, Any, State]) -> None:
        with let_go_of(socket):
            await socket.accept()
            member = socket.query_params.get("member", "")
            try:
                views = await use_cases.group_feed()(MemberCommand(member))
            except GameError as error:
                frame = _encode(FeedError(error.code, error.message)).decode()
                await refuse(socket, frame, 4000 + ERROR_STATUS[error.code])
                return
            await send_until_gone(
                socket, lambda: _send_all(socket, views), failed="room_feed_failed"
            )

    return Router(
        path=ROOM_API_PATH,
        route_handlers=[join, start, add_bot, move, give_up, leave, feed_events, feed_socket],
        tags=["rooms"],
        request_max_body_size=MAX_BODY_BYTES,
        response_class=JsonAnswer,
        exception_handlers=LIMIT_ERROR_HANDLERS,  # a 429 says when to ask again
    )


ROOM_SCHEMA_CONSTRAINTS: dict[type, dict[str, dict[str, Any]]] = {
    AddRoomBotCommand: {},
    RoomMoveCommand: {"word": WORD_CONSTRAINTS},
    JoinRoomCommand: {},
    MemberCommand: {},
}


def tighten_group_rooms_schema(schema: OpenAPI) -> None:
    """No unknown fields and the checks the use cases make, said in the document."""
    tighten_schema(schema, ROOM_SCHEMA_CONSTRAINTS)
    components = (schema.components.schemas if schema.components else None) or {}
    # A level, or null to remove the bot.
    bot = components["AddRoomBotCommand"]
    assert bot.properties is not None
    bot.properties["level"] = Schema(
        one_of=[
            Schema(type=OpenAPIType.STRING, enum=[d.value for d in Difficulty]),
            Schema(type=OpenAPIType.NULL),
        ]
    )
    # A feed's last message when another took over: always exactly {"replaced": true}.
    replaced = components["Replaced"]
    replaced.properties = {"replaced": Schema(type=OpenAPIType.BOOLEAN, const=True)}
    replaced.required = ["replaced"]
    replaced.description = (
        "The feed's last message: the member joined again elsewhere (a new credential)"
        " or opened a third feed with this credential; the feed then closes"
    )
