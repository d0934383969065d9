"""LeaveRoom: leave a room (spec B4, A6). Before the match begins, the seats the leaver
holds or put there are freed (a room left empty closes); once the match is made,
leaving while seated — in person, or as the owner of a seated bot — is a surrender (a
bot's late reply is then dropped). Leaving a finished room changes nothing."""

from __future__ import annotations

import msgspec

from noitu.application.arena.errors import NotSeated
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.room import RoomPhase
from noitu.application.arena.rooms.seating import check_owner
from noitu.application.arena.rooms.snapshot import RoomSnapshot
from noitu.domain.arena.board import Side


class LeaveRoomCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    code: str
    owner: str


class LeaveRoom:
    def __init__(self, host: RoomHost) -> None:
        self._host = host

    async def __call__(self, command: LeaveRoomCommand) -> RoomSnapshot:
        who = check_owner(command.owner)
        host = self._host
        room = host.room(command.code)
        if room.is_over:
            return host.view(room, who)
        if room.phase is RoomPhase.WAITING:
            freed = [
                side
                for side, held in enumerate(room.seats)
                if held is not None and (held.seated_by == who or held.controlled_by(who))
            ]
            if not freed:
                raise NotSeated()
            for number in freed:
                room.seats[number] = None
            if all(held is None for held in room.seats):
                host.abandon_waiting(room)
            else:
                host.changed(room)
            return host.view(room, who)
        sides = room.sides_of(who)
        live = room.live
        if not sides or live is None:
            raise NotSeated()
        live.surrender(_leaving_side(sides, room.person_side(who), live.match.current_player))
        return host.view(room, who)


def _leaving_side(sides: list[Side], person: Side | None, to_move: Side | None) -> Side:
    """The side that surrenders: the leaver's own seat; for an owner of both bots, the
    side to move (P1 before play)."""
    if person is not None:
        return person
    if to_move in sides:
        return to_move  # type: ignore[return-value]
    return sides[0]
