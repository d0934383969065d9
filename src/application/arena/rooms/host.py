"""RoomHost: the rooms whose match this process hosts (`PlayMatch` takes them from the
board), and the sender of every room's views to the feed — a hosted room's at each
change of its match, and a card's at each change a room use case makes
(`BoardRooms`). One per process (a singleton of the container).

Every change of a room goes through `changed(room)`: the room's version grows by one,
its views of that moment (`RoomViews`: the spectator's and each owner's) are built at
once (so every change has its own) and published in order by one sender per room; `close(room)` ends the room's feed after
its last snapshot. When the feed's broker is away (`Busy`), the sender keeps only the
newest snapshot (each is the whole room) and the end, and tries again with `Patience`
until the broker is back (B9 "Faults"), so the latest snapshot a reconnecting viewer
reads is the room's current one. Whoever waits for what rooms have to publish to be
out (`published`, `CloseRooms`, `PlayMatch`) waits in `until_sent`, woken each time a
room's sender stops: no polling.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable

from noitu.application.arena.errors import Busy, RoomNotFound
from noitu.application.arena.patience import Patience
from noitu.application.arena.rooms.ports import RoomFeed, RoomRegistry
from noitu.application.arena.rooms.room import Room, normalize_code
from noitu.application.arena.rooms.snapshot import RoomSnapshot, RoomViews, snapshot_of, views_of
from noitu.application.ports import Background, Clock


class _EndOfFeed:
    """In a room's outbox: close the feed here."""


_END = _EndOfFeed()


class RoomHost:
    def __init__(
        self,
        registry: RoomRegistry,
        feed: RoomFeed,
        clock: Clock,
        background: Background,
        patience: Patience | None = None,
    ) -> None:
        """Without `patience`, a snapshot the feed refuses is dropped (one instance's
        in-memory feed never refuses one)."""
        self.registry = registry
        self.feed = feed
        self.clock = clock
        self.background = background
        self._patience = patience
        #: Who waits in `until_sent`, woken each time a room's sender stops.
        self._waiting: set[asyncio.Future[None]] = set()

    # -- finding -------------------------------------------------------------------

    def room(self, code: str) -> Room:
        """The live room of this code (as typed: trimmed, any case); RoomNotFound."""
        room = self.registry.get(normalize_code(code))
        if room is None:
            raise RoomNotFound()
        return room

    def room_of_match(self, match_id: str) -> Room | None:
        for room in self.registry.rooms():
            if room.match_id == match_id:
                return room
        return None

    # -- showing -------------------------------------------------------------------

    def view(self, room: Room, viewer: str = "") -> RoomSnapshot:
        """The room as `viewer` (an owner key's hash, or "" for a spectator) sees it."""
        mine = room.sides_of(viewer) if viewer else []
        return snapshot_of(room, self.clock.now_ms(), mine)

    def views(self, code: str) -> RoomViews | None:
        """The current views of a room this process hosts (None: it hosts none of that
        code)."""
        room = self.registry.get(normalize_code(code))
        return None if room is None else views_of(room, self.clock.now_ms())

    def changed(self, room: Room) -> None:
        room.version += 1
        self.show(room)

    def show(self, room: Room) -> None:
        """Publish the room's views as they are now, at its current version."""
        room.outbox.append(views_of(room, self.clock.now_ms()))
        self._send(room)

    def on_change_of(self, room: Room) -> Callable[[], None]:
        """What a room's LiveMatch calls at each change. The change that ends the match
        is published once the match is archived (`StartMatch` then calls `changed`), so
        no viewer learns the result before the archive has it, its stderr tails with it."""

        def announce() -> None:
            if room.result is None or room.archived:
                self.changed(room)

        return announce

    async def published(self, room: Room, within_ms: int = 2_000) -> None:
        """Wait until what the room has to publish is out (at most `within_ms`; the
        sender keeps trying after that): a change answered after this is in the feed,
        so a viewer on any instance that connects at once finds it."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(within_ms / 1000):
                await self.until_sent(lambda: not (room.outbox or room.sending))

    async def until_sent(self, done: Callable[[], bool]) -> None:
        """Return once `done()` holds, a condition on what rooms have to publish: it is
        asked now, and again each time a room's sender stops or a room is forgotten,
        the only moments at which what a room has to publish runs out (its sender
        alone takes things out of its outbox)."""
        loop = asyncio.get_running_loop()
        while not done():
            woken: asyncio.Future[None] = loop.create_future()
            self._waiting.add(woken)
            try:
                await woken
            finally:
                self._waiting.discard(woken)

    def _wake(self) -> None:
        for woken in self._waiting:
            if not woken.done():
                woken.set_result(None)

    def forget(self, room: Room) -> None:
        """Take the room out of this process's registry (whoever waits for every room's
        feed to close no longer waits for it)."""
        self.registry.remove(room.code)
        self._wake()

    def close(self, room: Room) -> None:
        """End the room's feed once what it has to publish is out."""
        room.outbox.append(_END)
        self._send(room)

    def _send(self, room: Room) -> None:
        if not room.sending:
            room.sending = True
            self.background.spawn(self._drain(room))

    async def _drain(self, room: Room) -> None:
        try:
            while room.outbox:
                if self._patience is None:
                    await self._send_first(room)
                else:
                    await self._patience(
                        f"snapshot of room {room.code}",
                        lambda: self._send_first(room),
                        retry_on=(Busy,),
                    )
        finally:
            room.sending = False
            self._wake()

    async def _send_first(self, room: Room) -> None:
        """Publish the outbox's first item and take it out; when the feed is away, keep
        only the newest snapshot and the end for the next try."""
        item = room.outbox[0]
        try:
            if isinstance(item, _EndOfFeed):
                await self.feed.close(room.code)
                room.feed_closed = True
            else:
                await self.feed.publish(room.code, item)  # type: ignore[arg-type]
        except Busy:
            if self._patience is None:
                room.outbox.popleft()
            else:
                _keep_newest(room.outbox)
            raise
        room.outbox.popleft()

    # -- closing -------------------------------------------------------------------

    def abandon_waiting(self, room: Room) -> None:
        """Close a hosted room whose match could not be made (its card is written by
        whoever hosts it)."""
        room.closed = True
        room.finished_ms = self.clock.now_ms()
        self.changed(room)
        self.close(room)
        self.forget(room)


def _keep_newest(outbox: deque[object]) -> None:
    """Drop every snapshot but the newest (the end stays, last)."""
    newest = [item for item in outbox if not isinstance(item, _EndOfFeed)][-1:]
    ended = [item for item in outbox if isinstance(item, _EndOfFeed)][:1]
    outbox.clear()
    outbox.extend(newest + ended)
