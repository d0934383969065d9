"""What happens to rooms by themselves, whether or not anyone is connected (B10):
`SettleRoomTurns` (run a few times a second, so within 1 s after the grace) takes every
room with something due — the bot seat's word after its pause, turns that ran out, the
presence rules (a host absent 2 minutes passing the role, a member absent 10 minutes
leaving, a feed's hold running out), a room with no member and no game for 10 minutes
closing; `CloseIdleRooms` (run minutely) does the same to every room, so a room the
due index lost track of is kept too."""

from __future__ import annotations

from enum import Enum

from noitu.application.noitu.rooms.errors import RoomGone
from noitu.application.noitu.rooms.unit_of_work import Rooms
from noitu.domain.noitu.room_game import BotSeat


class Kept(str, Enum):
    SAME = "same"  # nothing the members see changed
    CHANGED = "changed"
    CLOSED = "closed"


async def keep_room(rooms: Rooms, key: str, bots: BotSeat) -> Kept:
    """Bring one room up to now: settle its game, apply the presence rules (the commit
    does), close it when it has had no member and no game long enough."""
    try:
        async with rooms.open(key) as work:
            record, now = work.record, work.now_ms
            game = record.room.game
            settled = game is not None and game.settle(now, bots)
            if not settled and record.closable(now, rooms.limits):
                await work.close()
                return Kept.CLOSED
            people = len(record.room.people)
            host = record.room.host
            await work.commit(notify=settled)
            moved = settled or len(record.room.people) != people or record.room.host != host
            return Kept.CHANGED if moved else Kept.SAME
    except RoomGone:
        # The index named a room the store no longer has: forget it there too.
        await rooms.store.remove(key)
        return Kept.SAME


class SettleRoomTurns:
    def __init__(self, rooms: Rooms, bots: BotSeat) -> None:
        self._rooms = rooms
        self._bots = bots

    async def __call__(self) -> int:
        """Bring every room with something due up to now; answers how many changed."""
        changed = 0
        for key in await self._rooms.store.due(self._rooms.now_ms()):
            if await keep_room(self._rooms, key, self._bots) is not Kept.SAME:
                changed += 1
        return changed

    async def wait_ms(self) -> int | None:
        """How long until the next room has something due (0: now), or None."""
        due = await self._rooms.store.next_due()
        return None if due is None else max(due - self._rooms.now_ms(), 0)


class CloseIdleRooms:
    def __init__(self, rooms: Rooms, bots: BotSeat) -> None:
        self._rooms = rooms
        self._bots = bots

    async def __call__(self) -> int:
        """Bring every room up to now; answers how many closed."""
        closed = 0
        for key in await self._rooms.store.keys():
            if await keep_room(self._rooms, key, self._bots) is Kept.CLOSED:
                closed += 1
        return closed
