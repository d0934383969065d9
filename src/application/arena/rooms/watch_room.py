"""WatchRoom: a room's snapshots as they change, for the WebSocket (spec B6): the
current one at once (so a client that reconnects is right at once), then one after
every change, as the viewer sees it (a seated viewer's own sides and, in placement, own
pieces), never an older one than already sent; it ends after the room's last snapshot,
or when the caller stops iterating (`aclose()` it when the socket goes away).

Everything comes from the feed, whose views say what each owner sees (`RoomViews`):
one path whether the room's match runs in this process or on a worker (B9), and no
request to whoever runs it. Only the first views of a room whose match this process
hosts are its own, read at once: a broker that was away may have lost them from the
feed, and then the room is still shown as it is."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable

from noitu.application.arena.errors import RoomNotFound
from noitu.application.arena.rooms.get_room import GetRoomCommand
from noitu.application.arena.rooms.ports import RoomFeed
from noitu.application.arena.rooms.snapshot import RoomSnapshot, RoomViews
from noitu.domain.arena.room import is_room_code, normalize_code


class WatchRoom:
    def __init__(self, feed: RoomFeed, hosted_here: Callable[[str], RoomViews | None]) -> None:
        """`hosted_here`: the current views of a room whose match this process hosts
        (None for a room it does not: `RoomHost.views`)."""
        self._feed = feed
        self._hosted_here = hosted_here

    async def __call__(self, command: GetRoomCommand) -> AsyncGenerator[RoomSnapshot, None]:
        """RoomNotFound (raised here, before any iteration) for an unknown code."""
        code = normalize_code(command.code)
        if not is_room_code(code):
            raise RoomNotFound()
        latest = self._hosted_here(code)
        if latest is None:
            latest = await self._feed.latest(code)
        if latest is None:
            raise RoomNotFound()
        # The subscription reads the latest again once it has joined: nothing published
        # meanwhile is lost.
        return self._watch(latest, self._feed.subscribe(code), command.viewer)

    async def _watch(
        self, latest: RoomViews, feed: AsyncGenerator[RoomViews, None], viewer: str
    ) -> AsyncGenerator[RoomSnapshot, None]:
        try:
            sent = latest.version
            yield latest.seen_by(viewer)
            async for published in feed:
                if published.version > sent:
                    sent = published.version
                    yield published.seen_by(viewer)
            # The feed ended: the room closed. A room that ended between the read of
            # `latest` above and the subscription's joining has a closed feed that ends
            # at once (the port's word), its last views only in `latest` now.
            last = await self._feed.latest(latest.room.code)
            if last is not None and last.version > sent:
                yield last.seen_by(viewer)
        finally:
            await feed.aclose()
