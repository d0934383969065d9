"""JoinRoom: take the empty seat of a waiting room (or the one asked for) — in person,
or with a bot (spec B4, B5), a change of the room's card under its hold. Filling the
second seat hands the match to the queue."""

from __future__ import annotations

import msgspec

from noitu.application.arena.errors import (
    AlreadySeated,
    BadRequest,
    OneSpectacle,
    RoomFull,
    SeatTaken,
    TooManyMatches,
    WrongRoomPhase,
)
from noitu.application.arena.limits import MAX_LIVE_MATCHES_PER_OWNER
from noitu.application.arena.rooms.board_rooms import (
    BoardRooms,
    involving,
    limit_names,
    spectacles_of,
)
from noitu.application.arena.rooms.seating import SeatChoice, Seating, check_owner
from noitu.application.arena.rooms.snapshot import RoomSnapshot
from noitu.domain.arena.board import SIDES, Side
from noitu.domain.arena.room import Room, RoomPhase, SeatKind


class JoinRoomCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    code: str
    owner: str  # who joins: an owner key hash
    seat: SeatChoice
    side: str | None = None  # "P1" or "P2"; the empty one when not given
    address: str = ""  # the client's address (B10); "": not a network client


class JoinRoom:
    def __init__(self, rooms: BoardRooms, seating: Seating) -> None:
        self._rooms = rooms
        self._seating = seating

    async def __call__(self, command: JoinRoomCommand) -> RoomSnapshot:
        who = check_owner(command.owner)
        rooms = self._rooms
        card = await rooms.card(command.code)
        async with rooms.holding([card.code, *limit_names(who, command.address)]):
            room = await rooms.card(card.code)
            if room.expired(rooms.now_ms):
                room = await rooms.close(room)
            side = self._side(room, command, who)
            cards, unfinished = await rooms.unfinished()
            if not room.involves(who) and involving(unfinished, who) >= MAX_LIVE_MATCHES_PER_OWNER:
                raise TooManyMatches()
            held = await self._seating.seat(command.seat, who, command.address)
            other = room.seats[1 - side.number]
            if (
                held.kind is SeatKind.BUILTIN
                and other is not None
                and other.kind is SeatKind.BUILTIN
                and spectacles_of(unfinished, command.address)
            ):
                raise OneSpectacle()
            room, place = room.seated(side, held), None
            if room.full:
                room, place = rooms.hand_over(room, cards)
            room = await rooms.put(room, place)
            if room.full:
                await rooms.queue_match(room)
        if room.full:
            await rooms.show_places()  # it may have come in ahead of others
        return rooms.host.view(room, who, place)

    @staticmethod
    def _side(room: Room, command: JoinRoomCommand, who: str) -> Side:
        if room.phase is not RoomPhase.WAITING:
            if room.ended:
                raise WrongRoomPhase("Phòng này đã đóng.")
            raise RoomFull()
        if command.seat.kind == SeatKind.PERSON.value and room.person_side(who) is not None:
            raise AlreadySeated()
        if command.side is None:
            for side in SIDES:
                if room.seats[side.number] is None:
                    return side
            raise RoomFull()
        if command.side not in ("P1", "P2"):
            raise BadRequest("Chọn chỗ P1 hoặc P2.")
        side = Side(command.side)
        if room.seats[side.number] is not None:
            raise SeatTaken()
        return side
