"""GetRoom: a room's snapshot as the viewer sees it (spec B4, B6): anyone with the code
may watch; a seated viewer also learns its sides (`mine`) and, during placement, sees
its own pieces. Answered from the room's card, or once its match is handed over from
its latest views in the feed (they say what each owner sees): never a request to the
match's host."""

from __future__ import annotations

import msgspec

from noitu.application.arena.rooms.board_rooms import BoardRooms
from noitu.application.arena.rooms.snapshot import RoomSnapshot


class GetRoomCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    code: str
    viewer: str = ""  # the viewer's owner key hash; "" for a spectator without one


class GetRoom:
    def __init__(self, rooms: BoardRooms) -> None:
        self._rooms = rooms

    async def __call__(self, command: GetRoomCommand) -> RoomSnapshot:
        card = await self._rooms.card(command.code)
        return await self._rooms.shown(card, command.viewer)
