"""PlayAction: a seated person's MOVE or PASS (spec B4) — the same objects as a bot's,
checked against the legal actions of the side to move — or SURRENDER. A turn has 60 s
that never pause: an action after the deadline ends the match as TIME_UP instead. A
refused action changes nothing."""

from __future__ import annotations

import msgspec

from noitu.application.arena.errors import (
    IllegalAction,
    NotSeated,
    NotYourTurn,
    TimeUp,
    WrongRoomPhase,
)
from noitu.application.arena.rooms.forward_room_call import MATCH_OVER, NOT_STARTED
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.inputs import ActionInput, action_of
from noitu.application.arena.rooms.seating import check_owner
from noitu.application.arena.rooms.snapshot import RoomSnapshot
from noitu.domain.arena import errors as rules
from noitu.domain.arena.room import RoomPhase


class PlayActionCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    code: str
    owner: str
    action: ActionInput  # MOVE (pieceId, from, to), PASS or SURRENDER


class PlayAction:
    def __init__(self, host: RoomHost) -> None:
        self._host = host

    async def __call__(self, command: PlayActionCommand) -> RoomSnapshot:
        who = check_owner(command.owner)
        host = self._host
        room = host.room(command.code)
        side = room.card.person_side(who)
        if side is None:
            raise NotSeated()
        live = room.live
        if live is None:
            raise WrongRoomPhase(NOT_STARTED)
        if command.action.type == "SURRENDER":
            if live.over:
                raise WrongRoomPhase(MATCH_OVER)
            live.surrender(side)
            return host.view(room, who)
        if room.phase is not RoomPhase.PLAYING or not live.started:
            raise WrongRoomPhase(MATCH_OVER if live.over else NOT_STARTED)
        if live.settle(host.clock.now_ms()):
            raise TimeUp()
        action = action_of(command.action)
        try:
            live.act(side, action)
        except rules.NotYourTurn as refused:
            raise NotYourTurn(str(refused)) from None
        except rules.WrongPhase as refused:
            raise WrongRoomPhase(str(refused)) from None
        except rules.ArenaRuleError as refused:
            raise IllegalAction(str(refused)) from None
        return host.view(room, who)
