"""The `RoomBoard` port (application/arena/rooms/cluster_ports.py) against every adapter:
the in-memory board of one process and the Redis board of a cluster. For Redis, each
`instance()` is another process (its own client on one server); for memory, the same
board."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from noitu.adapters.arena.redis_room_board import RedisRoomBoard
from noitu.adapters.arena.room_board import InMemoryRoomBoard
from noitu.application.errors import Busy
from noitu.domain.arena.room import Room, RoomSeat, SeatKind
from support.fakes import FakeClock

T0 = 1_800_000_000_000


def card(code: str = "A3C4E6", created_ms: int = T0, **changes: Any) -> Room:
    plain = Room(code=code, created_ms=created_ms, creator="c1", seats=(None, None), version=1)
    return replace(plain, **changes)


@pytest.fixture
def cluster(kind: str, clock: FakeClock, request: pytest.FixtureRequest) -> Callable[..., Any]:
    """`cluster(**options)` gives `instance()`, which makes a board of the parametrised
    kind on one shared store: for Redis each call another process, for memory the same
    board (one process)."""

    links = None if kind == "memory" else request.getfixturevalue("redis_links")

    def make(**options: Any) -> Callable[[], Any]:
        if links is None:
            shared = InMemoryRoomBoard(clock, **options)
            return lambda: shared
        return lambda: RedisRoomBoard(links(), **options)

    return make


async def test_a_card_comes_back_with_every_field(cluster) -> None:
    instance = cluster()
    writer, reader = instance(), instance()
    full = Room(
        code="B7D9F2",
        created_ms=T0 + 17,
        creator="creator-1",
        seats=(
            RoomSeat(kind=SeatKind.UPLOAD, ref="42", name="Sói", owner="o-1", seated_by="p-1",
                     address="10.0.0.9"),
            None,
        ),
        version=12,
        closed=True,
        handed_over=True,
        match_id="m-77",
        worker="host-a:123",
        over=True,
        finished_ms=T0 + 9_000,
        ladder=True,
        seed=987_654_321,
        turn_limit=300,
    )
    assert await writer.add(full) is True
    assert await reader.get(full.code) == full
    other = card("C1C1C1", seats=(None, RoomSeat(kind=SeatKind.BUILTIN, ref="random",
                                                  name="Ngẫu nhiên", seated_by="p-2")))
    assert await writer.add(other) is True
    assert await reader.get(other.code) == other
    assert await reader.get("ZZZZZZ") is None


async def test_a_taken_code_is_refused_and_the_first_card_stays(cluster) -> None:
    instance = cluster()
    first, second = instance(), instance()
    kept = card(creator="first")
    assert await first.add(kept) is True
    assert await second.add(card(creator="second", created_ms=T0 - 5)) is False
    assert await first.get(kept.code) == kept
    assert await second.cards() == [kept]


async def test_put_replaces_the_card(cluster) -> None:
    instance = cluster()
    first, second = instance(), instance()
    await first.add(card(version=1))
    changed = card(version=2, match_id="m-1", worker="w-1", handed_over=True)
    await second.put(changed)
    assert await first.get(changed.code) == changed
    assert await first.cards() == [changed]
    # A card put without being added first is kept all the same.
    unseen = card("D2D2D2", created_ms=T0 + 1)
    await second.put(unseen)
    assert await first.cards() == [changed, unseen]


async def test_cards_are_oldest_first_and_removed_ones_go(cluster) -> None:
    instance = cluster()
    first, second = instance(), instance()
    assert await first.cards() == []
    middle, newest, oldest, gone = (
        card("MMMMMM", T0 + 10), card("NNNNNN", T0 + 20), card("OOOOOO", T0), card("GGGGGG", T0 + 5)
    )
    for each in (middle, newest, oldest, gone):
        assert await first.add(each) is True
    await second.remove(gone.code)
    assert await first.get(gone.code) is None
    assert await first.cards() == [oldest, middle, newest]
    await second.remove(gone.code)  # not kept: no error
    await second.remove("NEVER1")
    assert [c.code for c in await second.cards()] == ["OOOOOO", "MMMMMM", "NNNNNN"]
    # A removed code may be used again.
    again = card(gone.code, T0 + 30)
    assert await second.add(again) is True
    assert await first.cards() == [oldest, middle, newest, again]


async def test_a_hold_makes_a_second_holder_wait_until_it_is_released(cluster) -> None:
    instance = cluster()
    first, second = instance(), instance()
    order: list[str] = []
    entered = asyncio.Event()

    async def hold_first() -> None:
        async with first.hold("A3C4E6"):
            order.append("first in")
            entered.set()
            await asyncio.sleep(0.1)
            order.append("first out")

    async def hold_second() -> None:
        await entered.wait()
        order.append("second asks")
        async with second.hold("A3C4E6"):
            order.append("second in")

    await asyncio.gather(hold_first(), hold_second())
    assert order == ["first in", "second asks", "first out", "second in"]


async def test_another_room_is_not_held(cluster) -> None:
    # A hold waited for would take its 5 s: had well within 2 s, it was not waited for.
    # (The second instance's link is opened first: a loaded machine's first connection
    # to Redis is not what this measures.)
    instance = cluster(hold_within_s=5.0)
    first, second = instance(), instance()
    await second.get("B7D9F2")
    async with first.hold("A3C4E6"), asyncio.timeout(2.0), second.hold("B7D9F2"):
        pass


async def test_a_hold_not_had_in_time_is_busy(cluster) -> None:
    instance = cluster(hold_within_s=0.15)
    first, second = instance(), instance()
    async with first.hold("A3C4E6"):
        started = time.monotonic()
        with pytest.raises(Busy):
            async with second.hold("A3C4E6"):
                pytest.fail("entered a held room")
        waited = time.monotonic() - started
        assert 0.1 <= waited < 1.0
    async with asyncio.timeout(0.5), second.hold("A3C4E6"):
        pass  # released: had at once


async def test_a_hold_is_released_when_its_body_raises(cluster) -> None:
    instance = cluster(hold_within_s=0.5)
    first, second = instance(), instance()
    with pytest.raises(ValueError, match="mistake"):
        async with first.hold("A3C4E6"):
            raise ValueError("mistake")
    async with asyncio.timeout(0.4), second.hold("A3C4E6"):
        pass


async def test_a_worker_is_alive_for_its_beats_time_to_live(cluster, elapse) -> None:
    instance = cluster()
    worker, watcher = instance(), instance()
    assert await watcher.alive("host-a:1") is False
    await worker.beat("host-a:1", 500)
    assert await watcher.alive("host-a:1") is True
    assert await watcher.alive("host-b:2") is False
    await elapse(250)
    assert await watcher.alive("host-a:1") is True
    await worker.beat("host-a:1", 500)  # a beat renews it
    await elapse(250)
    assert await watcher.alive("host-a:1") is True
    await elapse(400)
    assert await watcher.alive("host-a:1") is False
    await worker.beat("host-a:1", 500)  # beating again brings it back
    assert await watcher.alive("host-a:1") is True


async def test_the_match_slots_are_those_of_the_workers_alive(cluster, elapse) -> None:
    instance = cluster()
    first, second, watcher = instance(), instance(), instance()
    assert await watcher.match_slots() == 0
    await first.beat("host-a:1", 500, matches=4)
    await second.beat("host-b:2", 300, matches=2)
    assert await watcher.match_slots() == 6
    await first.beat("host-a:1", 500, matches=3)  # a beat says the worker's number anew
    assert await watcher.match_slots() == 5
    await elapse(400)  # the second worker's beat ran out
    assert await watcher.match_slots() == 3


# -- Redis only: what one process cannot show --------------------------------------------


@pytest.mark.redis
@pytest.mark.parametrize("kind", ["redis"])
async def test_redis_a_dead_holders_hold_runs_out_and_its_late_release_frees_nothing(
    cluster,
) -> None:
    instance = cluster(hold_within_s=2.0, hold_ttl_ms=500)
    dead, second, third = instance(), instance(), instance()
    abandoned = dead.hold("A3C4E6")
    await abandoned.__aenter__()  # its holder "dies" without releasing
    started = time.monotonic()
    async with second.hold("A3C4E6"):
        assert time.monotonic() - started >= 0.4
        # The dead holder's release, coming late, must not free the second's hold.
        await abandoned.__aexit__(None, None, None)
        impatient = cluster(hold_within_s=0.1)()
        with pytest.raises(Busy):
            async with impatient.hold("A3C4E6"):
                pytest.fail("entered a held room")
    async with asyncio.timeout(0.5), third.hold("A3C4E6"):
        pass


@pytest.mark.redis
@pytest.mark.parametrize("kind", ["redis"])
async def test_redis_a_card_not_written_for_its_time_to_live_is_forgotten(cluster) -> None:
    instance = cluster(card_ttl_ms=600)
    board = instance()
    old, kept = card("OOOOOO", T0), card("KKKKKK", T0 + 1)
    await board.add(old)
    await board.add(kept)
    await asyncio.sleep(0.4)
    await board.put(kept)  # each write starts its time again
    await asyncio.sleep(0.4)
    assert await board.get(old.code) is None
    assert await board.cards() == [kept]  # the index drops the code on the way
    assert await board.cards() == [kept]
    assert await board.add(card("OOOOOO", T0 + 2)) is True
    assert [c.code for c in await board.cards()] == ["KKKKKK", "OOOOOO"]


@pytest.mark.redis
async def test_redis_away_is_busy_for_every_call(redis_links) -> None:
    from noitu.bench.redis_server import free_port

    board = RedisRoomBoard(redis_links(f"redis://127.0.0.1:{free_port()}/0"))  # nobody there
    started = time.monotonic()
    calls = [
        lambda: board.add(card()), lambda: board.get("A3C4E6"), lambda: board.put(card()),
        board.cards, lambda: board.remove("A3C4E6"), lambda: board.beat("w", 1_000),
        lambda: board.alive("w"), board.match_slots,
    ]
    for call in calls:
        with pytest.raises(Busy):
            await call()
    with pytest.raises(Busy):
        async with board.hold("A3C4E6"):
            pytest.fail("held without Redis")
    assert time.monotonic() - started < 2.0
