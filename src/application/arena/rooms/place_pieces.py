"""PlacePieces: a seated person's placement (spec B1, B4): PLACE one piece on a square
of their half (moving it there if it was placed already), RANDOM_PLACEMENT of the
pieces still to place (from the match's own Random), READY once all 18 stand. During
placement a person sees only their own pieces. After 120 s the server places what is
left and readies every side."""

from __future__ import annotations

import msgspec

from noitu.application.arena.errors import (
    BadRequest,
    NotSeated,
    PlacementRefused,
    TimeUp,
    WrongRoomPhase,
)
from noitu.application.arena.rooms.forward_room_call import NOT_PLACING
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.inputs import ActionInput
from noitu.application.arena.rooms.seating import check_owner
from noitu.application.arena.rooms.snapshot import RoomSnapshot
from noitu.domain.arena.errors import ArenaRuleError
from noitu.domain.arena.match import Phase


class PlacePiecesCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    code: str
    owner: str
    action: ActionInput  # PLACE (pieceId, to), RANDOM_PLACEMENT or READY


class PlacePieces:
    def __init__(self, host: RoomHost) -> None:
        self._host = host

    async def __call__(self, command: PlacePiecesCommand) -> RoomSnapshot:
        who = check_owner(command.owner)
        host = self._host
        room = host.room(command.code)
        side = room.card.person_side(who)
        if side is None:
            raise NotSeated()
        live = room.live
        if live is None or live.match.phase is not Phase.PLACEMENT:
            raise WrongRoomPhase(NOT_PLACING)
        deadline = room.placement_deadline_ms
        if deadline is not None and host.clock.now_ms() >= deadline:
            live.place_rest_and_ready()
            raise TimeUp("Hết giờ xếp quân: máy chủ đã xếp nốt quân cho bạn.")
        action = command.action
        try:
            if action.type == "PLACE":
                if not action.piece_id or action.to is None:
                    raise BadRequest("PLACE cần pieceId và to.")
                live.place(side, action.piece_id, action.to.square())
            elif action.type == "RANDOM_PLACEMENT":
                live.random_placement(side)
            elif action.type == "READY":
                live.ready(side)
            else:
                raise BadRequest("Khi xếp quân chỉ dùng PLACE, RANDOM_PLACEMENT hoặc READY.")
        except ArenaRuleError as refused:
            raise PlacementRefused(str(refused)) from None
        return host.view(room, who)
