"""SettleRoomTurns: puts out the players whose turn ran out, whether or not anyone is
connected (run about twice a second, so within 1 s after the grace), and closes rooms
with no member and no game for 10 minutes (`close_idle`, run minutely)."""

from __future__ import annotations

from noitu.application.noitu.rooms.errors import RoomGone
from noitu.application.noitu.rooms.unit_of_work import Rooms
from noitu.domain.noitu.room import BotSeat


class SettleRoomTurns:
    def __init__(self, rooms: Rooms, bots: BotSeat) -> None:
        self._rooms = rooms
        self._bots = bots

    async def __call__(self) -> int:
        """Settle every room whose turn ran out; answers how many were settled."""
        settled = 0
        for key in await self._rooms.store.due(self._rooms.now_ms()):
            try:
                async with self._rooms.open(key) as work:
                    game = work.record.room.game
                    if game is not None and game.settle(work.now_ms, self._bots):
                        settled += 1
                        await work.commit()
            except RoomGone:
                continue
        return settled


class CloseIdleRooms:
    def __init__(self, rooms: Rooms) -> None:
        self._rooms = rooms

    async def __call__(self) -> int:
        closed = 0
        store, idle_ms = self._rooms.store, self._rooms.limits.idle_close_ms
        for key in await store.keys():
            async with store.lock(key):
                record = await store.get(key)
                # The bot alone does not keep a room open.
                if record is None or record.room.people or record.room.playing:
                    continue
                if self._rooms.now_ms() - record.last_active_ms >= idle_ms:
                    await store.remove(key)
                    closed += 1
        return closed
