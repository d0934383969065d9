"""The rooms' process-local adapters: the in-memory feed of their snapshots (one
instance; several need a broker behind the same port), and the timer that waits for a
moment of the clock on the event loop."""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import AsyncGenerator

from noitu.application.arena.rooms.snapshot import RoomViews
from noitu.application.ports import Clock

#: Snapshots a subscriber may fall behind by; older unread ones are dropped.
SUBSCRIBER_BACKLOG = 32
#: Closed rooms remembered, so that a late subscriber ends at once.
CLOSED_REMEMBERED = 10_000
#: Closed rooms whose last snapshot is kept for `latest` (a finished room stays readable).
CLOSED_SNAPSHOTS_KEPT = 1_000


class _Subscriber:
    __slots__ = ("backlog", "closed", "failure", "wake")

    def __init__(self) -> None:
        self.backlog: deque[RoomViews] = deque(maxlen=SUBSCRIBER_BACKLOG)
        self.wake = asyncio.Event()
        self.closed = False
        self.failure: Exception | None = None

    def push(self, views: RoomViews) -> None:
        self.backlog.append(views)
        self.wake.set()

    def end(self) -> None:
        self.closed = True
        self.wake.set()

    def fail(self, error: Exception) -> None:
        self.failure = error
        self.end()


class _Channel:
    __slots__ = ("latest", "subscribers")

    def __init__(self) -> None:
        self.latest: RoomViews | None = None
        self.subscribers: set[_Subscriber] = set()


class InMemoryRoomFeed:
    """`RoomFeed` for one process. A room's channel opens at its first snapshot or its
    first subscriber; when closed it is forgotten and its code remembered as closed (the
    last `CLOSED_REMEMBERED` codes) with, for the last `CLOSED_SNAPSHOTS_KEPT`, its last
    snapshot, which `latest` still gives (as the Redis feed's key does)."""

    def __init__(self) -> None:
        self._channels: dict[str, _Channel] = {}
        self._closed: OrderedDict[str, None] = OrderedDict()
        self._last: OrderedDict[str, RoomViews] = OrderedDict()

    def subscribers(self, code: str) -> int:
        channel = self._channels.get(code)
        return 0 if channel is None else len(channel.subscribers)

    def _channel(self, code: str) -> _Channel:
        channel = self._channels.get(code)
        if channel is None:
            channel = self._channels[code] = _Channel()
            self._closed.pop(code, None)
            self._last.pop(code, None)
        return channel

    async def publish(self, code: str, views: RoomViews) -> None:
        channel = self._channel(code)
        channel.latest = views
        for subscriber in channel.subscribers:
            subscriber.push(views)

    async def close(self, code: str) -> None:
        channel = self._channels.pop(code, None)
        self._closed[code] = None
        if channel is not None and channel.latest is not None:
            self._last[code] = channel.latest
            while len(self._last) > CLOSED_SNAPSHOTS_KEPT:
                self._last.popitem(last=False)
        while len(self._closed) > CLOSED_REMEMBERED:
            self._closed.popitem(last=False)
        if channel is not None:
            for subscriber in channel.subscribers:
                subscriber.end()

    async def latest(self, code: str) -> RoomViews | None:
        channel = self._channels.get(code)
        return self._last.get(code) if channel is None else channel.latest

    def fail_all(self, error: Exception) -> None:
        """End every subscription with `error` (raised once each has read what it was
        sent) and forget every channel: what feeds them was lost (a broker's link)."""
        channels, self._channels = self._channels, {}
        for channel in channels.values():
            for subscriber in channel.subscribers:
                subscriber.fail(error)

    async def stop(self) -> None:
        """Nothing to release (the server's shutdown closes every room first)."""

    def subscribe(self, code: str) -> AsyncGenerator[RoomViews, None]:
        # Joined now, not at the first iteration: nothing published after this call is
        # missed. A code not closed lately gets its channel now (its room may not have
        # published yet).
        subscriber = _Subscriber()
        channel = None if code in self._closed else self._channel(code)
        if channel is None:
            subscriber.end()
        else:
            if channel.latest is not None:
                subscriber.push(channel.latest)
            channel.subscribers.add(subscriber)
        return self._iterate(channel, subscriber)

    @staticmethod
    async def _iterate(
        channel: _Channel | None, subscriber: _Subscriber
    ) -> AsyncGenerator[RoomViews, None]:
        try:
            while True:
                while subscriber.backlog:
                    yield subscriber.backlog.popleft()
                if subscriber.failure is not None:
                    raise subscriber.failure
                if subscriber.closed:
                    return
                subscriber.wake.clear()
                await subscriber.wake.wait()
        finally:
            if channel is not None:
                channel.subscribers.discard(subscriber)


class LoopTimer:
    """`Timer` on the event loop: sleeps until the clock reads the moment (re-checking,
    so a clock that jumps does not make it wake early)."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock

    async def sleep_until(self, at_ms: int) -> None:
        while (left := at_ms - self._clock.now_ms()) > 0:
            await asyncio.sleep(left / 1000)
