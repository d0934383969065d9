"""The `RoomFeed` port (application/arena/rooms/ports.py) against every adapter: the
in-memory feed of one instance and the Redis feed of several. For Redis, the publisher
and the viewers are separate "instances" (their own clients on one server)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any

import msgspec
import pytest

from noitu.adapters.arena.redis_feed import RedisRoomFeed
from noitu.adapters.arena.rooms import InMemoryRoomFeed
from noitu.application.arena.rooms.snapshot import RoomViews, snapshot_of
from noitu.domain.arena.room import Room

CODE = "A3C4E6"
OWNER = "ab" * 32


def snapshot(version: int, code: str = CODE) -> RoomViews:
    """A room's views at `version`: the spectator's, and an owner's own view (what only
    they see travels with the rest, and comes back equal)."""
    room = msgspec.structs.replace(snapshot_of(Room(code=code, created_ms=0, creator=""), 1_000), version=version)
    own = msgspec.structs.replace(room, mine=("P1",))
    return RoomViews(room, {OWNER: ("P1",)}, {OWNER: own})


@pytest.fixture
async def made() -> AsyncIterator[list[Any]]:
    """The feeds a test made, stopped after it (their listener tasks end)."""
    feeds: list[Any] = []
    yield feeds
    for feed in feeds:
        await feed.stop()


@pytest.fixture
def feeds(kind: str, made: list[Any], request: pytest.FixtureRequest) -> Callable[[], Any]:
    """Makes a feed of the parametrised kind: each call another instance (for memory,
    the same feed: one process)."""
    if kind == "memory":
        shared = InMemoryRoomFeed()
        made.append(shared)
        return lambda: shared
    make_link = request.getfixturevalue("redis_links")

    def make() -> RedisRoomFeed:
        feed = RedisRoomFeed(make_link())
        made.append(feed)
        return feed

    return make


async def until(condition: Callable[[], bool], timeout_s: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not condition():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.005)


async def take(feed: AsyncGenerator[RoomViews, None], n: int) -> list[int]:
    return [(await anext(feed)).version for _ in range(n)]


async def test_a_viewer_gets_the_latest_then_each_one_in_order_then_the_end(feeds: Any) -> None:
    publisher, viewer = feeds(), feeds()
    await publisher.publish(CODE, snapshot(1))
    await publisher.publish(CODE, snapshot(2))
    watching = viewer.subscribe(CODE)
    assert await take(watching, 1) == [2]
    await until(lambda: viewer.subscribers(CODE) == 1)
    for version in (3, 4, 5):
        await publisher.publish(CODE, snapshot(version))
    assert await take(watching, 3) == [3, 4, 5]
    await publisher.close(CODE)
    rest = [s.version async for s in watching]
    assert rest == []
    await until(lambda: viewer.subscribers(CODE) == 0)


async def test_the_latest_snapshot_is_kept_and_unknown_rooms_have_none(feeds: Any) -> None:
    publisher, other = feeds(), feeds()
    assert await other.latest(CODE) is None
    await publisher.publish(CODE, snapshot(7))
    latest = await other.latest(CODE)
    assert latest is not None and latest.version == 7 and latest == snapshot(7)
    assert latest.seen_by(OWNER).mine == ("P1",) and latest.seen_by("").mine == ()


async def test_a_closed_rooms_feed_ends_at_once(feeds: Any) -> None:
    publisher, viewer = feeds(), feeds()
    await publisher.publish(CODE, snapshot(1))
    await publisher.close(CODE)
    assert [s.version async for s in viewer.subscribe(CODE)] == []


async def test_a_viewer_that_stops_leaves_and_the_others_go_on(feeds: Any) -> None:
    publisher, viewer = feeds(), feeds()
    await publisher.publish(CODE, snapshot(1))
    first, second = viewer.subscribe(CODE), viewer.subscribe(CODE)
    assert await take(first, 1) == [1] and await take(second, 1) == [1]
    await until(lambda: viewer.subscribers(CODE) == 2)
    await first.aclose()
    assert viewer.subscribers(CODE) == 1
    await publisher.publish(CODE, snapshot(2))
    assert await take(second, 1) == [2]
    await second.aclose()
    assert viewer.subscribers(CODE) == 0


async def test_rooms_do_not_mix(feeds: Any) -> None:
    publisher, viewer = feeds(), feeds()
    await publisher.publish(CODE, snapshot(1))
    watching = viewer.subscribe(CODE)
    assert await take(watching, 1) == [1]
    await until(lambda: viewer.subscribers(CODE) == 1)
    await publisher.publish("FFFFFF", snapshot(9, "FFFFFF"))
    await publisher.publish(CODE, snapshot(2))
    assert await take(watching, 1) == [2]
    await watching.aclose()


async def test_a_viewer_waits_for_a_room_that_has_not_published_yet(feeds: Any) -> None:
    publisher, viewer = feeds(), feeds()
    watching = viewer.subscribe(CODE)
    waiting = asyncio.ensure_future(take(watching, 1))
    await until(lambda: viewer.subscribers(CODE) == 1)
    await asyncio.sleep(0.05)
    assert not waiting.done()
    await publisher.publish(CODE, snapshot(1))
    assert await asyncio.wait_for(waiting, 5) == [1]
    await watching.aclose()
