"""CreateRoom: a new room with a fresh code; its creator sits as P1 (spec B1, B4) — in
person, or with one of their bots, a public bot or a built-in bot — and may fill P2 at
once (e.g. against the server's `tactical` bot), which hands its match to the queue
(`BoardRooms.hand_over`). The owner's and the address's limits are counted under
their holds, so two instances never both let one more room through."""

from __future__ import annotations

import random

import msgspec

from noitu.application.arena.admission import AddressAction, Admission
from noitu.application.arena.errors import AlreadySeated, Busy, OneSpectacle, TooManyMatches
from noitu.application.arena.limits import MAX_LIVE_MATCHES_PER_OWNER
from noitu.application.arena.rooms.board_rooms import (
    BoardRooms,
    involving,
    limit_names,
    spectacles_of,
)
from noitu.application.arena.rooms.seating import SeatChoice, Seating, check_owner
from noitu.application.arena.rooms.snapshot import RoomSnapshot
from noitu.domain.arena.room import Room, RoomSeat, SeatKind, new_room_code

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
        rooms: BoardRooms,
        seating: Seating,
        rng: random.Random,
        admission: Admission | None = None,
    ) -> None:
        """`admission` counts the rooms opened per client address (spec B10)."""
        self._rooms = rooms
        self._seating = seating
        self._rng = rng
        self._admission = admission

    async def __call__(self, command: CreateRoomCommand) -> RoomSnapshot:
        who = check_owner(command.owner)
        rooms = self._rooms
        async with rooms.holding(limit_names(who, command.address)):
            cards, unfinished = await rooms.unfinished()
            if involving(unfinished, who) >= MAX_LIVE_MATCHES_PER_OWNER:
                raise TooManyMatches()
            first = await self._seating.seat(command.seat, who, command.address)
            second = None
            if command.opponent is not None:
                second = await self._seating.seat(command.opponent, who, command.address)
                if first.kind is SeatKind.PERSON and second.kind is SeatKind.PERSON:
                    raise AlreadySeated(
                        "Bạn không ngồi được cả hai bên. Hãy mời một người khác vào phòng."
                    )
                both_builtin = all(s.kind is SeatKind.BUILTIN for s in (first, second))
                if both_builtin and spectacles_of(unfinished, command.address):
                    raise OneSpectacle()
            if self._admission is not None:
                await self._admission.admit(AddressAction.ROOM, command.address)
            room, place = await self._new_room(who, (first, second), cards)
            if room.full:
                await rooms.queue_match(room)
        if room.full:
            await rooms.show_places()  # it may have come in ahead of others
        return rooms.host.view(room, who, place)

    async def _new_room(
        self, who: str, seats: tuple[RoomSeat, RoomSeat | None], cards: list[Room]
    ) -> tuple[Room, int | None]:
        rooms = self._rooms
        for _ in range(CODE_TRIES):
            room = Room(
                code=new_room_code(self._rng), created_ms=rooms.now_ms, creator=who, seats=seats
            )
            place = None
            if room.full:
                room, place = rooms.hand_over(room, cards)
            added = await rooms.add(room, place)
            if added is not None:
                return added, place
        raise Busy()
