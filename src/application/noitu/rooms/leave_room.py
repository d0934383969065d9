"""LeaveRoom: the member leaves; in a game they are out (`left`), the host passes on,
and their credential stops working (B10)."""

from __future__ import annotations

from noitu.application.noitu.rooms.commands import MemberCommand
from noitu.application.noitu.rooms.record import MemberSeat
from noitu.application.noitu.rooms.unit_of_work import Rooms
from noitu.application.noitu.rooms.view import RoomView, RoomViews
from noitu.domain.noitu.room_game import BotSeat


class LeaveRoom:
    def __init__(self, rooms: Rooms, views: RoomViews, bots: BotSeat) -> None:
        self._rooms = rooms
        self._views = views
        self._bots = bots

    async def __call__(self, command: MemberCommand) -> RoomView:
        async with self._rooms.open_as(command.member) as work:
            record, now, user = work.record, work.now_ms, work.user_id
            if record.room.game is not None:
                record.room.game.settle(now, self._bots)
            record.room.leave(user, now, self._bots)
            record.forget(user)
            await self._rooms.credentials.revoke(MemberSeat(record.key, user))
            await work.commit()
            return self._views.of(record, user, now)
