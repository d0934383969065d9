"""LeaveRoom: leave a room (spec B4, A6). Before the match begins, the seats the leaver
holds or put there are freed (a room left empty closes), and a room whose match waits
for its host closes (nobody played); once a host runs the match, leaving while seated —
in person, or as the owner of a seated bot — is a surrender, which that host makes
(`LeaveMatch`; a bot's late reply is then dropped). Leaving a finished room changes
nothing."""

from __future__ import annotations

import msgspec

from noitu.application.arena.errors import NotSeated
from noitu.application.arena.rooms.board_rooms import BoardRooms
from noitu.application.arena.rooms.cluster_ports import RoomDesk
from noitu.application.arena.rooms.forward_room_call import LEAVE, ask_host
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.seating import check_owner
from noitu.application.arena.rooms.snapshot import RoomSnapshot
from noitu.domain.arena.board import SIDES, Side


class LeaveRoomCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    code: str
    owner: str


class LeaveRoom:
    def __init__(self, rooms: BoardRooms, desk: RoomDesk) -> None:
        self._rooms = rooms
        self._desk = desk

    async def __call__(self, command: LeaveRoomCommand) -> RoomSnapshot:
        who = check_owner(command.owner)
        card = await self._rooms.card(command.code)
        if not card.hosted:
            left = await self._before_the_match(card.code, who)
            if left is not None:
                return left
        return await ask_host(self._desk, LEAVE, command)

    async def _before_the_match(self, code: str, who: str) -> RoomSnapshot | None:
        """Leave a room whose match no host runs (None: a host took it meanwhile)."""
        rooms = self._rooms
        async with rooms.holding([code]):
            room = await rooms.card(code)
            if room.ended:
                return await rooms.shown(room, who)
            if room.hosted:
                return None
            freed = [
                side
                for side, held in zip(SIDES, room.seats)
                if held is not None and (held.seated_by == who or held.controlled_by(who))
            ]
            if not freed:
                raise NotSeated()
            if not room.handed_over:
                for side in freed:
                    room = room.seated(side, None)
            if room.handed_over or all(held is None for held in room.seats):
                room = await rooms.close(room)  # its match not made yet, or left empty
            else:
                room = await rooms.put(room)
        if room.handed_over:
            await rooms.show_places()  # the ones behind it move up
        return rooms.host.view(room, who)


class LeaveMatch:
    """What a match's host does when a seated owner leaves: their side surrenders."""

    def __init__(self, host: RoomHost) -> None:
        self._host = host

    async def __call__(self, command: LeaveRoomCommand) -> RoomSnapshot:
        who = check_owner(command.owner)
        host = self._host
        room = host.room(command.code)
        sides = room.card.sides_of(who)
        live = room.live
        if not sides:
            raise NotSeated()
        if live is None:  # its match is being made: the room closes, nobody played
            host.abandon_waiting(room)
        elif not live.over:
            live.surrender(
                _leaving_side(sides, room.card.person_side(who), live.match.current_player)
            )
        return host.view(room, who)


def _leaving_side(sides: list[Side], person: Side | None, to_move: Side | None) -> Side:
    """The side that surrenders: the leaver's own seat; for an owner of both bots, the
    side to move (P1 before play)."""
    if person is not None:
        return person
    if to_move in sides:
        return to_move  # type: ignore[return-value]
    return sides[0]
