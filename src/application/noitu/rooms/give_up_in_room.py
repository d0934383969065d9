"""GiveUpInRoom: "Chịu thua" puts the player out, on their turn or not (B10)."""

from __future__ import annotations

from noitu.application.noitu.rooms.commands import MemberCommand
from noitu.application.noitu.rooms.unit_of_work import Rooms
from noitu.application.noitu.rooms.view import RoomView, RoomViews
from noitu.domain.noitu.room_game import BotSeat, RoomGame


class GiveUpInRoom:
    def __init__(self, rooms: Rooms, views: RoomViews, bots: BotSeat) -> None:
        self._rooms = rooms
        self._views = views
        self._bots = bots

    async def __call__(self, command: MemberCommand) -> RoomView:
        async with self._rooms.open_as(command.member) as work:
            record, now, user = work.record, work.now_ms, work.user_id
            # A turn that already ran out ends as it ran out, not as a give-up.
            game, player, _ = await work.settled_player(self._bots, RoomGame.check_alive)
            game.give_up(player.seat, now, self._bots)
            await work.commit()
            return self._views.of(record, user, now)
