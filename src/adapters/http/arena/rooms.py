"""The arena's rooms, matches and replays over HTTP, under /arena/api/ (spec B4–B6;
docs/arena-api.md "Rooms" and "Matches and replays").

Thin: a handler reads the owner key (header `X-Owner-Key`), decodes the body into the
tagged unions of `room_bodies` (so the OpenAPI document says exactly what is
accepted), turns it into the use case's command, calls the use case and returns its
result; errors go through the one table in `errors`. Creating or joining a room may
make a new owner key: both answer `ownerKey`. Use cases are reached through plain
closures, not litestar's dependency injection (resolving dependencies per request
costs a share of every request's CPU under load).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Protocol

import msgspec
from litestar import MediaType, Request, Response, Router, get, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import OpenAPI
from litestar.params import Body, FromPath

from noitu.adapters.http.arena.config import config_router
from noitu.adapters.http.arena.owner_key import OwnerKey, require_owner_key
from noitu.adapters.http.arena.room_bodies import (
    BODIES,
    ActionBody,
    CreateRoomBody,
    JoinRoomBody,
    PlacementBody,
    SurrenderBody,
    action_input,
    placement_input,
    seat_choice,
)
from noitu.adapters.http.client_address import ClientAddresses
from noitu.adapters.http.encodings import accepted_codings, gzipped, takes
from noitu.adapters.http.errors import error_responses
from noitu.adapters.http.fast_paths import JsonAnswer
from noitu.adapters.http.paths import ARENA_API_PATH
from noitu.application.arena.errors import (
    AddressTooManyKeys,
    AddressTooManyRooms,
    AlreadySeated,
    BadOwnerKey,
    BotNotBuilt,
    BotNotFound,
    Busy,
    IllegalAction,
    MatchNotFound,
    NotOwner,
    NotSeated,
    NotYourTurn,
    OneSpectacle,
    PlacementRefused,
    ReplayDeleted,
    ReplayNotReady,
    RoomFull,
    RoomNotFound,
    SeatTaken,
    TimeUp,
    TooManyMatches,
    WrongRoomPhase,
)
from noitu.application.arena.rooms.create_room import CreateRoomCommand
from noitu.application.arena.rooms.failure_details import (
    FailureDetails,
    FailureDetailsCommand,
    FailureDetailsResult,
)
from noitu.application.arena.rooms.get_replay import GetReplay, GetReplayCommand
from noitu.application.arena.rooms.get_room import GetRoomCommand
from noitu.application.arena.rooms.join_room import JoinRoomCommand
from noitu.application.arena.rooms.leave_room import LeaveRoomCommand
from noitu.application.arena.rooms.open_rooms import Lobby, OpenRoomsCommand
from noitu.application.arena.rooms.owner_keys import OwnerKeys
from noitu.application.arena.rooms.place_pieces import PlacePiecesCommand
from noitu.application.arena.rooms.play_action import PlayActionCommand
from noitu.application.arena.rooms.snapshot import RoomSnapshot
from noitu.application.arena.rooms.surrender import SurrenderCommand

MAX_BODY_BYTES = 4096
REPLAY_MEDIA_TYPE = "application/x-ndjson"

JsonBody = Body(media_type=MediaType.JSON)


class ArenaRoomUseCases(Protocol):
    """Where the routes find their use cases (the container's providers), looked up per
    request, so a provider overridden after the app was built is still the one used."""

    owner_keys: Callable[[], OwnerKeys]
    client_addresses: Callable[[], ClientAddresses]
    # One machine's use cases, or on several (B9) the same commands answered through
    # the board and the workers: the routes need only the call.
    create_room: Callable[[], Callable[[CreateRoomCommand], Awaitable[RoomSnapshot]]]
    open_rooms: Callable[[], Callable[[OpenRoomsCommand], Awaitable[Lobby]]]
    get_room: Callable[[], Callable[[GetRoomCommand], Awaitable[RoomSnapshot]]]
    join_room: Callable[[], Callable[[JoinRoomCommand], Awaitable[RoomSnapshot]]]
    leave_room: Callable[[], Callable[[LeaveRoomCommand], Awaitable[RoomSnapshot]]]
    place_pieces: Callable[[], Callable[[PlacePiecesCommand], Awaitable[RoomSnapshot]]]
    play_action: Callable[[], Callable[[PlayActionCommand], Awaitable[RoomSnapshot]]]
    surrender: Callable[[], Callable[[SurrenderCommand], Awaitable[RoomSnapshot]]]
    get_replay: Callable[[], GetReplay]
    failure_details: Callable[[], FailureDetails]


class RoomAnswer(msgspec.Struct, frozen=True, rename="camel"):
    room: RoomSnapshot
    owner_key: str  # the key used, or the new one: keep it


#: The routes whose caller must send an owner key (the document says it is required).
KEYED = {
    ("post", "/rooms/{code}/leave"),
    ("post", "/rooms/{code}/placement"),
    ("post", "/rooms/{code}/actions"),
    ("post", "/rooms/{code}/surrender"),
    ("get", "/matches/{match_id}/failure"),
}

def rooms_router(use_cases: ArenaRoomUseCases) -> Router:
    @post(
        "/rooms",
        status_code=201,
        summary="Create a room; the creator's seat is P1 (a P2 given at once starts the match)",
        description="Without an owner key a new one is made and returned: keep it.",
        responses=error_responses(
            BadOwnerKey, BotNotFound, BotNotBuilt, AlreadySeated, TooManyMatches, Busy,
            AddressTooManyKeys, AddressTooManyRooms, OneSpectacle,
        ),
    )
    async def create(
        request: Request, data: Annotated[CreateRoomBody, JsonBody], owner_key: OwnerKey = None
    ) -> RoomAnswer:
        address = use_cases.client_addresses().of(request)
        caller = await use_cases.owner_keys().seating_caller(owner_key, address)
        opponent = None if data.opponent is None else seat_choice(data.opponent)
        command = CreateRoomCommand(caller.owner, seat_choice(data.seat), opponent, address)
        return RoomAnswer(await use_cases.create_room()(command), caller.key)

    @get(
        "/rooms",
        summary="The lobby: rooms waiting for a player, and rooms to watch",
        description=(
            "With the owner key, the caller's own rooms come first and are always listed;"
            " then, of the waiting rooms, those where a person waits; each part newest"
            " first."
        ),
        responses=error_responses(BadOwnerKey),
    )
    async def lobby(owner_key: OwnerKey = None) -> Lobby:
        caller = use_cases.owner_keys().caller(owner_key)
        return await use_cases.open_rooms()(OpenRoomsCommand(viewer=caller.owner))

    @get(
        "/rooms/{code:str}",
        summary="A room; with the owner key, also what the caller may see (its sides)",
        responses=error_responses(BadOwnerKey, RoomNotFound),
    )
    async def room(code: FromPath[str], owner_key: OwnerKey = None) -> RoomSnapshot:
        caller = use_cases.owner_keys().caller(owner_key)
        return await use_cases.get_room()(GetRoomCommand(code, caller.owner))

    @post(
        "/rooms/{code:str}/join",
        status_code=200,
        summary="Take the empty seat (or the side asked for); filling it starts the match",
        description="Without an owner key a new one is made and returned: keep it.",
        responses=error_responses(
            BadOwnerKey, RoomNotFound, RoomFull, SeatTaken, AlreadySeated, WrongRoomPhase,
            BotNotFound, BotNotBuilt, TooManyMatches, Busy, AddressTooManyKeys, OneSpectacle,
        ),
    )
    async def join(
        request: Request,
        code: FromPath[str],
        data: Annotated[JoinRoomBody, JsonBody],
        owner_key: OwnerKey = None,
    ) -> RoomAnswer:
        address = use_cases.client_addresses().of(request)
        caller = await use_cases.owner_keys().seating_caller(owner_key, address)
        command = JoinRoomCommand(
            code, caller.owner, seat_choice(data.seat), data.side, address
        )
        return RoomAnswer(await use_cases.join_room()(command), caller.key)

    @post(
        "/rooms/{code:str}/leave",
        status_code=200,
        summary="Leave the room: before the match, free one's seats; during it, surrender",
        responses=error_responses(BadOwnerKey, RoomNotFound, NotSeated),
    )
    async def leave(code: FromPath[str], owner_key: OwnerKey = None) -> RoomSnapshot:
        caller = use_cases.owner_keys().caller(owner_key)
        return await use_cases.leave_room()(LeaveRoomCommand(code, caller.owner))

    @post(
        "/rooms/{code:str}/placement",
        status_code=200,
        summary="A person's placement: PLACE a piece, RANDOM_PLACEMENT of the rest, READY",
        responses=error_responses(
            BadOwnerKey, RoomNotFound, NotSeated, WrongRoomPhase, PlacementRefused, TimeUp
        ),
    )
    async def placement(
        code: FromPath[str], data: Annotated[PlacementBody, JsonBody], owner_key: OwnerKey = None
    ) -> RoomSnapshot:
        caller = use_cases.owner_keys().caller(owner_key)
        command = PlacePiecesCommand(code, caller.owner, placement_input(data))
        return await use_cases.place_pieces()(command)

    @post(
        "/rooms/{code:str}/actions",
        status_code=200,
        summary="A person's MOVE or PASS, one of the room's `legalActions`",
        responses=error_responses(
            BadOwnerKey, RoomNotFound, NotSeated, WrongRoomPhase, NotYourTurn, IllegalAction,
            TimeUp,
        ),
    )
    async def action(
        code: FromPath[str], data: Annotated[ActionBody, JsonBody], owner_key: OwnerKey = None
    ) -> RoomSnapshot:
        caller = use_cases.owner_keys().caller(owner_key)
        command = PlayActionCommand(code, caller.owner, action_input(data))
        return await use_cases.play_action()(command)

    @post(
        "/rooms/{code:str}/surrender",
        status_code=200,
        summary="Surrender: a seated person, or the owner of a seated uploaded bot",
        responses=error_responses(BadOwnerKey, RoomNotFound, NotSeated, NotOwner, WrongRoomPhase),
    )
    async def surrender(
        code: FromPath[str],
        owner_key: OwnerKey = None,
        data: Annotated[SurrenderBody | None, JsonBody] = None,
    ) -> RoomSnapshot:
        caller = use_cases.owner_keys().caller(owner_key)
        side = None if data is None else data.side
        return await use_cases.surrender()(SurrenderCommand(code, caller.owner, side))

    @get(
        "/matches/{match_id:str}/replay",
        summary=(
            "A finished match's replay: JSON Lines, one B4 event a line; zstd or gzip"
            " Content-Encoding when Accept-Encoding takes it"
        ),
        media_type=REPLAY_MEDIA_TYPE,
        responses={
            200: ResponseSpec(
                data_container=str,
                media_type=REPLAY_MEDIA_TYPE,
                description="The replay as a download, match-<id>.jsonl",
            ),
            **error_responses(MatchNotFound, ReplayNotReady, ReplayDeleted, Busy),
        },
    )
    async def replay(request: Request, match_id: FromPath[str]) -> Response[bytes]:
        codings = accepted_codings(request.headers.get("accept-encoding"))
        command = GetReplayCommand(match_id, zstd=takes(codings, "zstd"))
        download = await use_cases.get_replay()(command)
        headers = {
            "Content-Disposition": f'attachment; filename="match-{download.match_id}.jsonl"',
            "Vary": "Accept-Encoding",
        }
        data = download.data
        if download.zstd:
            headers["Content-Encoding"] = "zstd"
        elif takes(codings, "gzip"):
            data = await gzipped(data)
            headers["Content-Encoding"] = "gzip"
        return Response(data, media_type=REPLAY_MEDIA_TYPE, headers=headers)

    @get(
        "/matches/{match_id:str}/failure",
        summary="Why the caller's bots failed in a match, with their stderr (owner only)",
        responses=error_responses(BadOwnerKey, MatchNotFound, NotOwner, Busy),
    )
    async def failure(match_id: FromPath[str], owner_key: OwnerKey = None) -> FailureDetailsResult:
        caller = use_cases.owner_keys().caller(owner_key)
        return await use_cases.failure_details()(FailureDetailsCommand(match_id, caller.owner))

    return Router(
        path=ARENA_API_PATH,
        route_handlers=[
            create, lobby, room, join, leave, placement, action, surrender, replay, failure,
        ],
        tags=["arena"],
        request_max_body_size=MAX_BODY_BYTES,
        response_class=JsonAnswer,
    )


def tighten_rooms_schema(schema: OpenAPI) -> None:
    """Say in the document what the handlers enforce: the bodies have no other fields,
    and the routes of KEYED need the owner key."""
    components = (schema.components.schemas if schema.components else None) or {}
    for body in BODIES:
        for name, component in components.items():
            if name == body.__name__ or name.endswith(f"_{body.__name__}"):
                component.additional_properties = False
    require_owner_key(schema, ARENA_API_PATH, KEYED, "room")


def arena_room_routers(use_cases: ArenaRoomUseCases) -> list[Any]:
    return [rooms_router(use_cases), config_router()]
