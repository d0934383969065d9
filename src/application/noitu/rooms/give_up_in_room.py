"""GiveUpInRoom: "Chịu thua" puts the player out, on their turn or not (B10)."""

from __future__ import annotations

from noitu.application.noitu.rooms.commands import MemberCommand
from noitu.application.noitu.rooms.errors import GameError, NoGame, room_rules
from noitu.application.noitu.rooms.unit_of_work import Rooms
from noitu.application.noitu.rooms.view import RoomView, RoomViews
from noitu.domain.noitu.room import BotSeat


class GiveUpInRoom:
    def __init__(self, rooms: Rooms, views: RoomViews, bots: BotSeat) -> None:
        self._rooms = rooms
        self._views = views
        self._bots = bots

    async def __call__(self, command: MemberCommand) -> RoomView:
        async with self._rooms.open_as(command.member) as work:
            record, now, user = work.record, work.now_ms, work.user_id
            game = record.room.game
            if game is None:
                raise NoGame()
            # A turn that already ran out ends as it ran out, not as a give-up.
            settled = game.settle(now, self._bots)
            try:
                with room_rules():
                    player = game.check_alive(user)
            except GameError:
                if settled:
                    await work.commit()
                raise
            game.give_up(player.seat, now, self._bots)
            await work.commit()
            return self._views.of(record, user, now)
