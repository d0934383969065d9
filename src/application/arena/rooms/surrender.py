"""Surrender: a seated person gives up, or the owner of a seated uploaded bot gives up
for it (spec B4, B5), at any time once the match is made: in placement, in the queue,
while the bot thinks (its late reply is dropped and its process stopped). The other
side wins with SURRENDER."""

from __future__ import annotations

import msgspec

from noitu.application.arena.errors import BadRequest, NotOwner, NotSeated, WrongRoomPhase
from noitu.application.arena.rooms.forward_room_call import (
    LADDER_PLAYS_ON,
    LEAVE_INSTEAD,
    MATCH_OVER,
    ONLY_OWNERS_SURRENDER,
)
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.seating import check_owner
from noitu.application.arena.rooms.snapshot import RoomSnapshot
from noitu.domain.arena.board import Side


class SurrenderCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    code: str
    owner: str
    side: str | None = None  # needed only by an owner of both seated bots


class Surrender:
    def __init__(self, host: RoomHost) -> None:
        self._host = host

    async def __call__(self, command: SurrenderCommand) -> RoomSnapshot:
        who = check_owner(command.owner)
        host = self._host
        room = host.room(command.code)
        sides = room.card.sides_of(who)
        if not sides:
            if room.card.involves(who):
                raise NotOwner(ONLY_OWNERS_SURRENDER)
            raise NotSeated()
        if room.card.ladder:  # the ladder measures the bots: nobody gives a match away
            raise WrongRoomPhase(LADDER_PLAYS_ON)
        live = room.live
        if live is None or live.over:
            raise WrongRoomPhase(MATCH_OVER if live is not None else LEAVE_INSTEAD)
        if command.side is not None:
            if command.side not in ("P1", "P2"):
                raise BadRequest("Chọn bên P1 hoặc P2.")
            side = Side(command.side)
            if side not in sides:
                raise NotOwner("Bạn không điều khiển bên này.")
        elif len(sides) == 1:
            side = sides[0]
        else:
            raise BadRequest("Bạn điều khiển cả hai bên: hãy chọn bên đầu hàng (P1 hoặc P2).")
        live.surrender(side)
        return host.view(room, who)
