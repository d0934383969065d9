"""FollowRoom: the live feed of one member (B10): the full view at once, then one after
every change of the room, until the member leaves or the room closes. No polling: each
view follows a notice of the room feed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

from noitu.application.noitu.rooms.commands import MemberCommand
from noitu.application.noitu.rooms.errors import Busy
from noitu.application.noitu.rooms.ports import RoomFeed
from noitu.application.noitu.rooms.unit_of_work import Rooms
from noitu.application.noitu.rooms.view import RoomView, RoomViews

STORE_RETRY_S = 0.5  # a feed whose read of the room failed reads again after this


class FollowRoom:
    def __init__(
        self, rooms: Rooms, views: RoomViews, feed: RoomFeed, retry_s: float = STORE_RETRY_S
    ) -> None:
        self._rooms = rooms
        self._views = views
        self._feed = feed
        self._retry_s = retry_s

    async def __call__(self, command: MemberCommand) -> AsyncGenerator[RoomView, None]:
        """Checks the credential now (`no_member`, `room_gone`), then hands out the
        views as an async generator."""
        seat = await self._rooms.seat_of(command.member)
        async with self._rooms.open(seat.room_key):  # room_gone now rather than later
            pass
        return self._views_of(seat.room_key, seat.user_id)

    async def _views_of(self, key: str, user_id: int) -> AsyncGenerator[RoomView, None]:
        store = self._rooms.store
        async with self._feed.subscribe(key) as notices:
            while True:
                try:
                    record = await store.get(key)
                except Busy:
                    # The store did not answer this once: the feed stays open and reads
                    # again shortly (each view is full, so nothing is lost).
                    await asyncio.sleep(self._retry_s)
                    continue
                if record is None or record.room.member(user_id) is None:
                    return
                yield self._views.of(record, user_id, self._rooms.now_ms())
                await anext(notices)
