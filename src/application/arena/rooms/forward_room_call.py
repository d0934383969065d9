"""ForwardRoomCall: a placement, a move or a surrender (spec B4), asked of any process
(issue 31: one path on one machine and on several). While a host runs the room's
match (`PlayMatch`: its card names it), the request goes to that host through the
`RoomDesk` — which judges it with the match's own use case (`PlacePieces`,
`PlayAction`, `Surrender`) and answers with the room as the asker sees it, or the
refusal (`busy` when no answer came within 2 s). A request that comes as the match is
being made (its seats just filled) waits for it, up to 2 s. A room whose match no host
runs (waiting for a player or for a host, closed, or over) refuses here with the answer
its host would give (`refusal`).
"""

from __future__ import annotations

import asyncio
from typing import Generic, Protocol, TypeVar

import msgspec

from noitu.application.arena.errors import (
    ARENA_ERRORS,
    Busy,
    GameError,
    NotOwner,
    NotSeated,
    WrongRoomPhase,
)
from noitu.application.arena.rooms.board_rooms import BoardRooms
from noitu.application.arena.rooms.cluster_ports import ASK_WITHIN_S, DeskRequest, RoomDesk
from noitu.application.arena.rooms.seating import check_owner
from noitu.application.arena.rooms.snapshot import RoomSnapshot
from noitu.domain.arena.room import Room


class RoomCommand(Protocol):
    @property
    def code(self) -> str: ...

    @property
    def owner(self) -> str: ...


C = TypeVar("C", bound=RoomCommand)

#: The request kinds a match's host answers, by the command each carries.
PLACE, ACT, SURRENDER, LEAVE = "place", "act", "surrender", "leave"

#: What a room answers when its match is not being played, whoever is asked.
NOT_PLACING = "Lúc này không phải lúc xếp quân."
NOT_STARTED = "Trận chưa bắt đầu."
LEAVE_INSTEAD = "Trận chưa bắt đầu: bạn có thể rời phòng."
MATCH_OVER = "Trận đã kết thúc."
ROOM_CLOSED = "Phòng này đã đóng."
LADDER_PLAYS_ON = "Trận xếp hạng chơi đến hết, không đầu hàng được."
ONLY_OWNERS_SURRENDER = "Chỉ chủ của bot mới đầu hàng thay bot được."

_ERRORS: dict[str, type[GameError]] = {error.code: error for error in ARENA_ERRORS}
_snapshot = msgspec.json.Decoder(RoomSnapshot)
_encoder = msgspec.json.Encoder()


async def ask_host(desk: RoomDesk, kind: str, command: RoomCommand) -> RoomSnapshot:
    """The host's answer to the request; raises its refusal, or `Busy`."""
    request = DeskRequest(kind=kind, command=msgspec.Raw(_encoder.encode(command)))
    reply = await desk.ask(room_code(command), request)
    if reply.snapshot is not None:
        return _snapshot.decode(reply.snapshot)
    code = reply.error or Busy.code
    raise _ERRORS.get(code, GameError)(reply.message or None)


def room_code(command: RoomCommand) -> str:
    return command.code.strip().upper()


def refusal(kind: str, room: Room, who: str) -> GameError:
    """Why a room whose match no host runs refuses a placement, a move or a surrender."""
    if kind == SURRENDER:
        if not room.sides_of(who):
            return NotOwner(ONLY_OWNERS_SURRENDER) if room.involves(who) else NotSeated()
        if room.ladder:
            return WrongRoomPhase(LADDER_PLAYS_ON)
    elif room.person_side(who) is None:
        return NotSeated()
    if room.closed:
        return WrongRoomPhase(ROOM_CLOSED)
    if room.over:
        return WrongRoomPhase(MATCH_OVER)
    return WrongRoomPhase({PLACE: NOT_PLACING, ACT: NOT_STARTED}.get(kind, LEAVE_INSTEAD))


class ForwardRoomCall(Generic[C]):
    def __init__(self, kind: str, rooms: BoardRooms, desk: RoomDesk) -> None:
        """`kind`: PLACE, ACT or SURRENDER."""
        self._kind = kind
        self._rooms = rooms
        self._desk = desk

    async def __call__(self, command: C) -> RoomSnapshot:
        who = check_owner(command.owner)
        card = await self._rooms.card(command.code)
        if card.handed_over and card.match_id is None and not card.ended:
            card = await self._made(card)
        if card.hosted:
            return await ask_host(self._desk, self._kind, command)
        raise refusal(self._kind, card, who)

    async def _made(self, card: Room) -> Room:
        """The card once its match is made (its views name it), if that comes within
        `ASK_WITHIN_S`: a request that comes just after the seats were filled waits for
        the host taking the match rather than being refused."""
        rooms = self._rooms
        watching = rooms.host.feed.subscribe(card.code)
        try:
            async with asyncio.timeout(ASK_WITHIN_S):
                async for views in watching:
                    if views.room.match_id is not None or views.room.phase != "PLACEMENT":
                        break
        except (TimeoutError, Busy):
            pass
        finally:
            await watching.aclose()
        return await rooms.card(card.code)
