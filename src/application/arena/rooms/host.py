"""RoomHost: the rooms whose match this process hosts (`PlayMatch` takes them from the
board), and the sender of every room's views to the feed — a hosted room's at each
change of its match, and a card's at each change a room use case makes
(`BoardRooms`). One per process (a singleton of the container).

A hosted room is its card (the domain's frozen `Room`, a new value at each change) with
what runs its match beside it (`HostedRoom`: the live match, the replay, whether it is
archived). What a room has to publish is kept by the host, per room code: the views
of each change in order (each change's own, built at once), then the end of the feed,
sent by one sender per room. When the feed's broker is away (`Busy`), the sender keeps
only the newest views (each is the whole room) and the end, and tries again with
`Patience` until the broker is back (B9 "Faults"), so the latest views a reconnecting
viewer reads are the room's current ones. Whoever waits for what rooms have to publish
to be out (`published`, `CloseRooms`, `PlayMatch`) waits in `until_sent`, woken each
time a room's sender stops: no polling.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from noitu.application.arena.errors import Busy, RoomNotFound
from noitu.application.arena.patience import Patience
from noitu.application.arena.rooms.hosted_room import HostedRoom
from noitu.application.arena.rooms.ports import RoomFeed
from noitu.application.arena.rooms.snapshot import RoomSnapshot, RoomViews, snapshot_of, views_of
from noitu.application.ports import Background, Clock
from noitu.domain.arena.room import Room, normalize_code


@dataclass(frozen=True, eq=False)
class _EndOfFeed:
    """In a room's outbox: close the feed here (and say so to the hosted room, if any,
    even once it is forgotten)."""

    hosted: HostedRoom | None


@dataclass(eq=False)
class _Outbox:
    """A room's views (or the end of its feed) waiting to be published, in order."""

    items: deque[RoomViews | _EndOfFeed] = field(default_factory=deque)
    sending: bool = False


class RoomHost:
    def __init__(
        self,
        feed: RoomFeed,
        clock: Clock,
        background: Background,
        patience: Patience | None = None,
    ) -> None:
        """Without `patience`, views the feed refuses are dropped (one instance's
        in-memory feed never refuses any)."""
        self.feed = feed
        self.clock = clock
        self.background = background
        self._patience = patience
        self._hosted: dict[str, HostedRoom] = {}
        self._outboxes: dict[str, _Outbox] = {}
        #: Who waits in `until_sent`, woken each time a room's sender stops.
        self._waiting: set[asyncio.Future[None]] = set()

    # -- the rooms hosted here -----------------------------------------------------

    def host(self, card: Room) -> HostedRoom:
        """Host the room of `card` here (its match's host took it)."""
        hosted = self._hosted[card.code] = HostedRoom(card)
        return hosted

    def find(self, code: str) -> HostedRoom | None:
        """The hosted room of this code (as typed: trimmed, any case), if any."""
        return self._hosted.get(normalize_code(code))

    def room(self, code: str) -> HostedRoom:
        """The hosted room of this code; RoomNotFound."""
        room = self.find(code)
        if room is None:
            raise RoomNotFound()
        return room

    def rooms(self) -> list[HostedRoom]:
        return list(self._hosted.values())

    def room_of_match(self, match_id: str) -> HostedRoom | None:
        for room in self._hosted.values():
            if room.match_id == match_id:
                return room
        return None

    def forget(self, code: str) -> None:
        """Host the room no longer (whoever waits for every hosted room's feed to close
        no longer waits for it)."""
        self._hosted.pop(code, None)
        self._wake()

    # -- showing -------------------------------------------------------------------

    def view(
        self, room: Room | HostedRoom, viewer: str = "", queue_place: int | None = None
    ) -> RoomSnapshot:
        """The room as `viewer` (an owner key's hash, or "" for a spectator) sees it."""
        card = room.card if isinstance(room, HostedRoom) else room
        mine = card.sides_of(viewer) if viewer else []
        return snapshot_of(room, self.clock.now_ms(), mine, queue_place)

    def views(self, code: str) -> RoomViews | None:
        """The current views of a room this process hosts (None: it hosts none of that
        code)."""
        room = self.find(code)
        return None if room is None else views_of(room, self.clock.now_ms())

    def changed(self, room: HostedRoom) -> None:
        """Publish a hosted room's views after a change (its version grows by one)."""
        room.card = replace(room.card, version=room.card.version + 1)
        self.show(room)

    def show(self, room: Room | HostedRoom, queue_place: int | None = None) -> None:
        """Publish the room's views as they are now, at its current version (a card's
        with its place in the queue, while its match waits for a host)."""
        card = room.card if isinstance(room, HostedRoom) else room
        self._outbox(card.code).items.append(views_of(room, self.clock.now_ms(), queue_place))
        self._send(card.code)

    def on_change_of(self, room: HostedRoom) -> Callable[[], None]:
        """What a room's LiveMatch calls at each change. The change that ends the match
        is published once the match is archived (`StartMatch` then calls `changed`), so
        no viewer learns the result before the archive has it, its stderr tails with it."""

        def announce() -> None:
            if room.result is None or room.archived:
                self.changed(room)

        return announce

    def quiet(self, code: str) -> bool:
        """Nothing of the room's is waiting to be published."""
        return code not in self._outboxes

    async def published(self, code: str, within_ms: int = 2_000) -> None:
        """Wait until what the room has to publish is out (at most `within_ms`; the
        sender keeps trying after that): a change answered after this is in the feed,
        so a viewer on any instance that connects at once finds it."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(within_ms / 1000):
                await self.until_sent(lambda: self.quiet(code))

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

    def close(self, room: Room | HostedRoom) -> None:
        """End the room's feed once what it has to publish is out (a hosted room learns
        when, even once forgotten)."""
        hosted = room if isinstance(room, HostedRoom) else None
        code = room.card.code if isinstance(room, HostedRoom) else room.code
        self._outbox(code).items.append(_EndOfFeed(hosted))
        self._send(code)

    def _outbox(self, code: str) -> _Outbox:
        outbox = self._outboxes.get(code)
        if outbox is None:
            outbox = self._outboxes[code] = _Outbox()
        return outbox

    def _send(self, code: str) -> None:
        outbox = self._outboxes[code]
        if not outbox.sending:
            outbox.sending = True
            self.background.spawn(self._drain(code, outbox))

    async def _drain(self, code: str, outbox: _Outbox) -> None:
        try:
            while outbox.items:
                if self._patience is None:
                    await self._send_first(code, outbox)
                else:
                    await self._patience(
                        f"snapshot of room {code}",
                        lambda: self._send_first(code, outbox),
                        retry_on=(Busy,),
                    )
        finally:
            outbox.sending = False
            if not outbox.items and self._outboxes.get(code) is outbox:
                del self._outboxes[code]
            self._wake()

    async def _send_first(self, code: str, outbox: _Outbox) -> None:
        """Publish the outbox's first item and take it out; when the feed is away, keep
        only the newest views and the end for the next try."""
        items = outbox.items
        item = items[0]
        try:
            if isinstance(item, _EndOfFeed):
                await self.feed.close(code)
                if item.hosted is not None:
                    item.hosted.feed_closed = True
            else:
                await self.feed.publish(code, item)
        except Busy:
            if self._patience is None:
                items.popleft()
            else:
                _keep_newest(items)
            raise
        items.popleft()

    # -- closing -------------------------------------------------------------------

    def abandon_waiting(self, room: HostedRoom) -> None:
        """Close a hosted room whose match could not be made (its card is written by
        whoever hosts it)."""
        room.card = replace(room.card, closed=True, finished_ms=self.clock.now_ms())
        self.changed(room)
        self.close(room)
        self.forget(room.code)


def _keep_newest(items: deque[RoomViews | _EndOfFeed]) -> None:
    """Drop all views but the newest (the end stays, last)."""
    newest = [item for item in items if not isinstance(item, _EndOfFeed)][-1:]
    ended = [item for item in items if isinstance(item, _EndOfFeed)][:1]
    items.clear()
    items.extend(newest + ended)
