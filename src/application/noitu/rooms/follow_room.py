"""FollowRoom: the live feed of one member (B10): the full view at once, then one after
every change of the room, until the member leaves or the room closes. No polling: each
view follows a notice of the room feed.

While the feed is open its page holds the feed, so the member is present (B10
revised). A feed that another took over — the member joined again (a new credential),
or opened more pages than `feeds_per_member` — gets one last message,
`{"replaced": true}`, and ends."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncGenerator

import msgspec

from noitu.application.noitu.rooms.commands import MemberCommand
from noitu.application.noitu.rooms.errors import Busy, GameError
from noitu.application.noitu.rooms.pages import (
    HeldPage,
    LivePages,
    Standing,
    let_go,
    standing,
    take_hold,
)
from noitu.application.noitu.rooms.ports import RoomFeed
from noitu.application.noitu.rooms.record import credential_tag
from noitu.application.noitu.rooms.unit_of_work import Rooms
from noitu.application.noitu.rooms.view import RoomView, RoomViews

STORE_RETRY_S = 0.5  # a feed whose read of the room failed reads again after this


class Replaced(msgspec.Struct, frozen=True):
    """A feed's last message when another took over (the page says so and stops)."""

    replaced: bool = True


REPLACED = Replaced()

FeedMessage = RoomView | Replaced


class FollowRoom:
    def __init__(
        self, rooms: Rooms, views: RoomViews, feed: RoomFeed, pages: LivePages,
        id_source: random.Random, retry_s: float = STORE_RETRY_S,
    ) -> None:
        self._rooms = rooms
        self._views = views
        self._feed = feed
        self._pages = pages
        self._ids = id_source
        self._retry_s = retry_s

    async def __call__(self, command: MemberCommand) -> AsyncGenerator[FeedMessage, None]:
        """Checks the credential now (`no_member`, `room_gone`), then hands out the
        messages as an async generator; its page holds the feed while it runs."""
        seat = await self._rooms.seat_of(command.member)
        async with self._rooms.open(seat.room_key):  # room_gone now rather than later
            pass
        page = HeldPage(seat.user_id, credential_tag(command.member))
        return self._messages(seat.room_key, f"{self._ids.getrandbits(64):016x}", page)

    async def _messages(
        self, key: str, page_id: str, page: HeldPage
    ) -> AsyncGenerator[FeedMessage, None]:
        store, limit = self._rooms.store, self._rooms.limits.feeds_per_member
        async with self._feed.subscribe(key) as notices:
            held = await self._hold(key, page_id, page, new=True)
            if held is Standing.REPLACED:
                yield REPLACED
            if held is not Standing.HOLDING:
                return
            self._pages.add(key, page_id, page)
            try:
                while True:
                    try:
                        record = await store.get(key)
                    except Busy:
                        # The store did not answer this once: the feed stays open and
                        # reads again shortly (each view is full, so nothing is lost).
                        await asyncio.sleep(self._retry_s)
                        continue
                    found = standing(record, page_id, page, limit)
                    if found is Standing.LAPSED:
                        found = await self._hold(key, page_id, page, new=False)
                        if found is Standing.HOLDING:
                            continue
                    if found is Standing.REPLACED:
                        yield REPLACED
                    if found is not Standing.HOLDING or record is None:
                        return
                    yield self._views.of(record, page.user_id, self._rooms.now_ms())
                    await anext(notices)
            finally:
                self._pages.remove(key, page_id)
                with contextlib.suppress(GameError):
                    await let_go(self._rooms, key, page_id)

    async def _hold(self, key: str, page_id: str, page: HeldPage, *, new: bool) -> Standing:
        """Take the hold. A new feed that cannot (`busy`: the store is away, or a crowd
        of feeds waits for the room's lock) ends, and its page reconnects; an open one
        whose hold ran out keeps trying."""
        while True:
            try:
                return await take_hold(self._rooms, key, page_id, page, new=new)
            except Busy:
                if new:
                    raise
                await asyncio.sleep(self._retry_s)
            except GameError:  # the room is gone
                return Standing.GONE
