"""GetRoom: a room's snapshot as the viewer sees it (spec B4, B6): anyone with the code
may watch; a seated viewer also learns its sides (`mine`) and, during placement, sees
its own pieces."""

from __future__ import annotations

import msgspec

from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.snapshot import RoomSnapshot


class GetRoomCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    code: str
    viewer: str = ""  # the viewer's owner key hash; "" for a spectator without one


class GetRoom:
    def __init__(self, host: RoomHost) -> None:
        self._host = host

    async def __call__(self, command: GetRoomCommand) -> RoomSnapshot:
        room = self._host.room(command.code)
        return self._host.view(room, command.viewer)
