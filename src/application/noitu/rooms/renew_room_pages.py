"""RenewRoomPages: this process's open feeds keep holding their rooms' feeds (B10
revised: presence is holding the live feed). Run every `RENEW_EVERY_MS`; one write per
room, which no feed hears (nothing the members see changed), unless a member's
presence changed what they see."""

from __future__ import annotations

from noitu.application.noitu.rooms.errors import Busy, GameError
from noitu.application.noitu.rooms.pages import (
    PAGE_HOLD_MS,
    LivePages,
    Standing,
    standing,
)
from noitu.application.noitu.rooms.unit_of_work import Rooms


class RenewRoomPages:
    def __init__(self, rooms: Rooms, pages: LivePages, hold_ms: int = PAGE_HOLD_MS) -> None:
        self._rooms = rooms
        self._pages = pages
        self._hold_ms = hold_ms

    async def __call__(self) -> int:
        """Renew the holds of every open feed here; answers how many were renewed."""
        renewed = 0
        limits = self._rooms.limits
        for key in self._pages.rooms():
            held = self._pages.of(key)
            try:
                async with self._rooms.open(key) as work:
                    room, now = work.room, work.now_ms
                    until = now + self._hold_ms
                    host = room.host
                    for page_id in room.renew(held, until):
                        # Its hold ran out while the feed stayed open (this process
                        # was slow or cut off): taken again unless newer pages took
                        # over (then the feed is ending anyway).
                        page = held[page_id]
                        found = standing(work.record, page_id, page, limits.feeds_per_member)
                        if found is Standing.LAPSED:
                            room.hold(page_id, page.user_id, until, limits)
                    await work.commit(notify=room.host != host)
                    renewed += sum(1 for page_id in held if page_id in room.pages)
            except Busy:
                continue  # the next round renews them, long before they run out
            except GameError:
                continue  # the room is gone; its feeds are ending
        return renewed
