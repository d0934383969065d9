"""WatchRoom: a room's snapshots as they change, for the WebSocket (spec B6): the
current one at once (so a client that reconnects is right at once), then one after
every change, as the viewer sees it (a seated viewer's own sides and, in placement, own
pieces), never an older one than already sent; it ends after the room's last snapshot,
or when the caller stops iterating (`aclose()` it when the socket goes away).

A room that lives on another instance (the feed goes through a broker) is watched
through the feed alone, as a spectator sees it."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable

from noitu.application.arena.errors import GameError, RoomNotFound
from noitu.application.arena.rooms.get_room import GetRoomCommand
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.room import Room, is_room_code, normalize_code
from noitu.application.arena.rooms.snapshot import RoomSnapshot


class WatchRoom:
    def __init__(
        self,
        host: RoomHost,
        viewer_view: Callable[[GetRoomCommand], Awaitable[RoomSnapshot]] | None = None,
    ) -> None:
        """`viewer_view` (several machines, B9) gives a seated viewer's own view of a
        room that lives elsewhere (`ForwardRoomCall` for `get`): asked at each snapshot
        while the viewer's view shows sides of theirs."""
        self._host = host
        self._viewer_view = viewer_view

    async def __call__(self, command: GetRoomCommand) -> AsyncGenerator[RoomSnapshot, None]:
        """RoomNotFound (raised here, before any iteration) for an unknown code."""
        host = self._host
        # On several machines every room is elsewhere: this instance's registry holds
        # only a passing copy of the board.
        room = None if self._viewer_view is not None else host.registry.get(
            normalize_code(command.code)
        )
        if room is None:
            code = normalize_code(command.code)
            if not is_room_code(code):
                raise RoomNotFound()
            latest = await host.feed.latest(code)
            if latest is None:
                raise RoomNotFound()
            # The subscription reads the latest again once it has joined: nothing
            # published meanwhile is lost.
            return self._elsewhere(latest, host.feed.subscribe(code), command.viewer)
        feed = None if room.feed_closed else host.feed.subscribe(room.code)
        return self._watch(room, command.viewer, feed)

    async def _elsewhere(
        self, latest: RoomSnapshot, feed: AsyncGenerator[RoomSnapshot, None], viewer: str
    ) -> AsyncGenerator[RoomSnapshot, None]:
        own = self._viewer_view if viewer else None
        try:
            first = latest if own is None else await self._own(own, latest, viewer)
            if not first.mine:
                own = None  # a spectator's view is the feed's
            sent = first.version
            yield first
            async for published in feed:
                if published.version <= sent:
                    continue
                shown = published if own is None else await self._own(own, published, viewer)
                sent = max(sent, shown.version)
                yield shown
            # The feed ended: the room closed. A room that ended between the read of
            # `latest` above and the subscription's joining has a closed feed that ends
            # at once (the port's word), its last snapshot only in `latest` now.
            last = await self._host.feed.latest(first.code)
            if last is not None and last.version > sent:
                yield last if own is None else await self._own(own, last, viewer)
        finally:
            await feed.aclose()

    @staticmethod
    async def _own(
        own: Callable[[GetRoomCommand], Awaitable[RoomSnapshot]],
        published: RoomSnapshot,
        viewer: str,
    ) -> RoomSnapshot:
        """The viewer's own view of the room, never older than `published`."""
        try:
            shown = await own(GetRoomCommand(published.code, viewer))
        except GameError:
            return published
        return shown if shown.version >= published.version else published

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
