"""AddRoomBot: the host adds the bot as a player (easy, medium or hard), changes its
level, or removes it with no level (B10)."""

from __future__ import annotations

from noitu.application.noitu.rooms.commands import AddRoomBotCommand
from noitu.application.noitu.rooms.errors import BadRequest, room_rules
from noitu.application.noitu.rooms.messages import BAD_LEVEL
from noitu.application.noitu.rooms.unit_of_work import Rooms
from noitu.application.noitu.rooms.view import RoomView, RoomViews
from noitu.domain.noitu.opponent import Difficulty


def parse_level(value: str | None) -> Difficulty | None:
    if value is None:
        return None
    try:
        return Difficulty(value)
    except ValueError:
        raise BadRequest(BAD_LEVEL) from None


class AddRoomBot:
    def __init__(self, rooms: Rooms, views: RoomViews) -> None:
        self._rooms = rooms
        self._views = views

    async def __call__(self, command: AddRoomBotCommand) -> RoomView:
        level = parse_level(command.level)
        async with self._rooms.open_as(command.member) as work:
            with room_rules():
                work.record.room.set_bot(work.user_id, level, self._rooms.limits)
            await work.commit()
            return self._views.of(work.record, work.user_id, work.now_ms)
