"""WatchRoom: a room's snapshots as they change, for the WebSocket (spec B6): the
current one at once (so a client that reconnects is right at once), then one after
every change, as the viewer sees it (a seated viewer's own sides and, in placement, own
pieces), never an older one than already sent; it ends after the room's last snapshot,
or when the caller stops iterating (`aclose()` it when the socket goes away).

A room that lives on another instance (the feed goes through a broker) is watched
through the feed alone, as a spectator sees it."""

from __future__ import annotations

from collections.abc import AsyncGenerator

from noitu.application.arena.errors import RoomNotFound
from noitu.application.arena.rooms.get_room import GetRoomCommand
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.room import Room, is_room_code, normalize_code
from noitu.application.arena.rooms.snapshot import RoomSnapshot


class WatchRoom:
    def __init__(self, host: RoomHost) -> None:
        self._host = host

    async def __call__(self, command: GetRoomCommand) -> AsyncGenerator[RoomSnapshot, None]:
        """RoomNotFound (raised here, before any iteration) for an unknown code."""
        host = self._host
        try:
            room = host.room(command.code)
        except RoomNotFound:
            code = normalize_code(command.code)
            if not is_room_code(code):
                raise
            latest = await host.feed.latest(code)
            if latest is None:
                raise
            # The subscription reads the latest again once it has joined: nothing
            # published meanwhile is lost.
            return self._elsewhere(latest, host.feed.subscribe(code))
        feed = None if room.feed_closed else host.feed.subscribe(room.code)
        return self._watch(room, command.viewer, feed)

    @staticmethod
    async def _elsewhere(
        latest: RoomSnapshot, feed: AsyncGenerator[RoomSnapshot, None]
    ) -> AsyncGenerator[RoomSnapshot, None]:
        sent = latest.version
        try:
            yield latest
            async for published in feed:
                if published.version > sent:
                    sent = published.version
                    yield published
        finally:
            await feed.aclose()

    async def _watch(
        self, room: Room, viewer: str, feed: AsyncGenerator[RoomSnapshot, None] | None
    ) -> AsyncGenerator[RoomSnapshot, None]:
        host = self._host
        try:
            current = host.view(room, viewer)
            sent = current.version
            yield current
            if feed is None:
                return
            async for published in feed:
                if published.version <= sent:
                    continue
                shown = host.view(room, viewer) if viewer else published
                sent = max(sent, shown.version)
                yield shown
        finally:
            if feed is not None:
                await feed.aclose()
