"""JoinRoom: take the empty seat of a waiting room (or the one asked for) — in person,
or with a bot (spec B4, B5). Filling the second seat starts the match."""

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
from noitu.application.arena.replay import SeatKind
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.ports import MatchStarter
from noitu.application.arena.rooms.room import Room, RoomPhase
from noitu.application.arena.rooms.seating import SeatChoice, Seating, check_owner
from noitu.application.arena.rooms.snapshot import RoomSnapshot
from noitu.domain.arena.board import SIDES, Side


class JoinRoomCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    code: str
    owner: str  # who joins: an owner key hash
    seat: SeatChoice
    side: str | None = None  # "P1" or "P2"; the empty one when not given
    address: str = ""  # the client's address (B10); "": not a network client


class JoinRoom:
    def __init__(self, host: RoomHost, seating: Seating, start: MatchStarter) -> None:
        self._host = host
        self._seating = seating
        self._start = start

    async def __call__(self, command: JoinRoomCommand) -> RoomSnapshot:
        who = check_owner(command.owner)
        host = self._host
        room = host.room(command.code)
        side = self._side(room, command, who)
        if not room.involves(who) and host.rooms_involving(who) >= MAX_LIVE_MATCHES_PER_OWNER:
            raise TooManyMatches()
        held = await self._seating.seat(command.seat, who, command.address)
        side = self._side(room, command, who)  # the room may have changed meanwhile
        other = room.seats[1 - side.number]
        if (
            held.seat.kind is SeatKind.BUILTIN
            and other is not None
            and other.seat.kind is SeatKind.BUILTIN
            and host.spectacles_of(command.address)
        ):
            raise OneSpectacle()
        room.seats[side.number] = held
        host.changed(room)
        if room.full:
            try:
                await self._start(room)
            except BaseException:
                if room.live is None and room.seats[side.number] is held:
                    room.seats[side.number] = None
                    host.changed(room)
                raise
        return host.view(room, who)

    @staticmethod
    def _side(room: Room, command: JoinRoomCommand, who: str) -> Side:
        if room.phase is not RoomPhase.WAITING or room.starting:
            if room.is_over:
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
