"""Waiting for what rooms have to publish (issue 31): `published`, `CloseRooms` and
`PlayMatch` wait on the host's `until_sent`, woken when a room's sender stops or a room
is forgotten, not by polling. A feed held at a gate shows each wait ends when, and only
when, what it waits for has happened (well before the wait's own time limit)."""

from __future__ import annotations

import asyncio

from noitu.adapters.arena.rooms import InMemoryRoomFeed
from noitu.application.arena.rooms.close_rooms import CloseRooms
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.hosted_room import HostedRoom
from noitu.application.arena.rooms.snapshot import RoomSnapshot
from noitu.domain.arena.room import Room
from support.fakes import CollectingBackground, FakeClock


class GatedFeed(InMemoryRoomFeed):
    """A feed that takes nothing (snapshot or end) until its gate opens."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.waiting = 0
        self.published: list[int] = []

    async def _through_the_gate(self) -> None:
        self.waiting += 1
        try:
            await self.gate.wait()
        finally:
            self.waiting -= 1

    async def publish(self, code: str, snapshot: RoomSnapshot) -> None:
        await self._through_the_gate()
        self.published.append(snapshot.version)
        await super().publish(code, snapshot)

    async def close(self, code: str) -> None:
        await self._through_the_gate()
        await super().close(code)


def hosting() -> tuple[RoomHost, GatedFeed, HostedRoom]:
    """A host and its gated feed, with a room that closed before its match (so closing
    the rooms leaves it as it is, and waits for its feed)."""
    clock, feed = FakeClock(), GatedFeed()
    host = RoomHost(feed, clock, CollectingBackground())
    room = host.host(Room(code="K7MPQ2", created_ms=clock.now_ms(), creator="someone", closed=True))
    return host, feed, room


async def until(condition) -> None:
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("the condition never held")


async def test_published_returns_once_the_feed_took_the_rooms_snapshots() -> None:
    host, feed, room = hosting()
    host.changed(room)
    host.changed(room)
    waiting = asyncio.create_task(host.published(room.code, within_ms=60_000))
    await until(lambda: feed.waiting == 1)
    assert not waiting.done()
    feed.gate.set()
    await asyncio.wait_for(waiting, 5.0)
    assert feed.published == [1, 2] and host.quiet(room.code)


async def test_published_gives_up_after_its_time_the_sender_going_on() -> None:
    host, feed, room = hosting()
    host.changed(room)
    await asyncio.wait_for(host.published(room.code, within_ms=1), 5.0)
    assert not host.quiet(room.code) and feed.waiting == 1  # still trying


async def test_closing_the_rooms_waits_until_every_feed_is_closed() -> None:
    host, feed, room = hosting()
    host.changed(room)
    host.close(room)
    closing = asyncio.create_task(CloseRooms(host)(timeout_s=60.0))
    await until(lambda: feed.waiting == 1)
    for _ in range(20):
        await asyncio.sleep(0)
    assert not closing.done()
    feed.gate.set()
    assert await asyncio.wait_for(closing, 5.0) == 0
    assert room.feed_closed and feed.published == [1]


async def test_a_room_forgotten_is_no_longer_waited_for() -> None:
    host, feed, room = hosting()
    host.changed(room)
    closing = asyncio.create_task(CloseRooms(host)(timeout_s=60.0))
    await until(lambda: feed.waiting == 1)
    assert not closing.done()
    host.forget(room.code)  # a worker's match cut short, its feed still away
    assert await asyncio.wait_for(closing, 5.0) == 0
    assert not room.feed_closed
