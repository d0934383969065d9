"""CreateRoom: a new room with a fresh code; its creator sits as P1 (spec B1, B4) — in
person, or with one of their bots, a public bot or a built-in bot — and may fill P2 at
once (e.g. against the server's `tactical` bot), which starts the match."""

from __future__ import annotations

import random

import msgspec

from noitu.application.arena.admission import AddressAction, Admission
from noitu.application.arena.errors import AlreadySeated, Busy, OneSpectacle, TooManyMatches
from noitu.application.arena.limits import MAX_LIVE_MATCHES_PER_OWNER
from noitu.application.arena.replay import SeatKind
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.ports import MatchStarter
from noitu.application.arena.rooms.room import Room, new_room_code
from noitu.application.arena.rooms.seating import SeatChoice, Seating, check_owner
from noitu.application.arena.rooms.snapshot import RoomSnapshot

#: Tries at a free code before answering `busy` (a code is 6 of 20 characters).
CODE_TRIES = 20


class CreateRoomCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    owner: str  # the creator's owner key hash
    seat: SeatChoice  # what sits as P1
    opponent: SeatChoice | None = None  # what sits as P2 at once, if anything
    address: str = ""  # the client's address (B10); "": not a network client


class CreateRoom:
    def __init__(
        self,
        host: RoomHost,
        seating: Seating,
        start: MatchStarter,
        rng: random.Random,
        admission: Admission | None = None,
    ) -> None:
        """`admission` counts the rooms opened per client address (spec B10)."""
        self._host = host
        self._seating = seating
        self._start = start
        self._rng = rng
        self._admission = admission

    async def __call__(self, command: CreateRoomCommand) -> RoomSnapshot:
        who = check_owner(command.owner)
        host = self._host
        host.sweep()
        if host.rooms_involving(who) >= MAX_LIVE_MATCHES_PER_OWNER:
            raise TooManyMatches()
        first = await self._seating.seat(command.seat, who, command.address)
        second = None
        if command.opponent is not None:
            second = await self._seating.seat(command.opponent, who, command.address)
            if first.seat.kind is SeatKind.PERSON and second.seat.kind is SeatKind.PERSON:
                raise AlreadySeated(
                    "Bạn không ngồi được cả hai bên. Hãy mời một người khác vào phòng."
                )
            both_builtin = all(s.seat.kind is SeatKind.BUILTIN for s in (first, second))
            if both_builtin and host.spectacles_of(command.address):
                raise OneSpectacle()
        if self._admission is not None:
            await self._admission.admit(AddressAction.ROOM, command.address)
        room = self._new_room(who)
        room.seats = [first, second]
        host.changed(room)
        if room.full:
            try:
                await self._start(room)
            except BaseException:
                host.abandon_waiting(room)
                raise
        return host.view(room, who)

    def _new_room(self, who: str) -> Room:
        now = self._host.clock.now_ms()
        for _ in range(CODE_TRIES):
            room = Room(new_room_code(self._rng), now, who)
            if self._host.registry.add(room):
                return room
        raise Busy()
