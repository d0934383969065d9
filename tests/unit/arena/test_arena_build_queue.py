"""The global build queue (spec B10): at most one build per core at once, whoever asks;
the rest wait in the fair order (one per owner and per address ahead of others'), and
each learns how long it waited."""

from __future__ import annotations

import asyncio

import pytest

from noitu.application.arena.build_queue import BuildQueue
from noitu.application.arena.fair_order import who
from support.fakes import FakeClock


async def test_builds_past_the_cap_wait_in_order_and_learn_how_long():
    clock = FakeClock()
    queue = BuildQueue(2, clock)
    started: list[str] = []
    waited: dict[str, int] = {}
    release = {name: asyncio.Event() for name in "abcd"}

    async def build(name: str) -> None:
        async with queue.turn() as turn:
            started.append(name)
            waited[name] = turn.waited_ms
            await release[name].wait()

    tasks = [asyncio.create_task(build(name)) for name in "abcd"]
    await asyncio.sleep(0.01)
    assert started == ["a", "b"] and (queue.running, queue.waiting) == (2, 2)
    clock.advance(7_000)
    release["b"].set()
    await asyncio.sleep(0.01)
    assert started == ["a", "b", "c"] and queue.running == 2
    clock.advance(3_000)
    release["a"].set()
    await asyncio.sleep(0.01)
    assert started == ["a", "b", "c", "d"]
    for event in release.values():
        event.set()
    await asyncio.gather(*tasks)
    assert waited == {"a": 0, "b": 0, "c": 7_000, "d": 10_000}
    assert (queue.running, queue.waiting) == (0, 0)


async def test_a_cancelled_waiter_leaves_the_line_and_a_failed_build_frees_its_place():
    queue = BuildQueue(1, FakeClock())
    hold = asyncio.Event()
    started: list[str] = []

    async def build(name: str, fail: bool = False) -> None:
        async with queue.turn():
            started.append(name)
            if fail:
                raise RuntimeError("the compiler broke")
            await hold.wait()

    first = asyncio.create_task(build("a", fail=False))
    second = asyncio.create_task(build("b"))
    third = asyncio.create_task(build("c", fail=True))
    await asyncio.sleep(0.01)
    second.cancel()
    with pytest.raises(asyncio.CancelledError):
        await second
    assert queue.waiting == 1
    hold.set()
    await first
    with pytest.raises(RuntimeError):
        await third
    assert started == ["a", "c"] and (queue.running, queue.waiting) == (0, 0)
    async with queue.turn() as turn:
        assert turn.waited_ms == 0 and queue.running == 1


async def test_one_addresss_flood_of_builds_waits_behind_another_addresss_build():
    # The attack, bounded: one address queues builds under fresh owner keys, each
    # holding the one place for a long compile; a build from another address, asked
    # for later, is the next to run rather than the last.
    queue = BuildQueue(1, FakeClock())
    started: list[str] = []
    release = {name: asyncio.Event() for name in ("a1", "a2", "a3", "a4", "b1")}

    async def build(name: str, tags: frozenset[str]) -> None:
        async with queue.turn(tags):
            started.append(name)
            await release[name].wait()

    flood = [
        asyncio.create_task(build(f"a{n}", who(f"key-a{n}", "10.0.0.66"))) for n in range(1, 5)
    ]
    await asyncio.sleep(0.01)
    victim = asyncio.create_task(build("b1", who("key-b1", "10.0.0.7")))
    await asyncio.sleep(0.01)
    for name in ("a1", "b1", "a2", "a3", "a4"):
        assert started[-1] == name
        release[name].set()
        await asyncio.sleep(0.01)
    await asyncio.gather(*flood, victim)
    assert started == ["a1", "b1", "a2", "a3", "a4"]


async def test_an_owners_second_build_waits_behind_anothers_first_whatever_the_address():
    queue = BuildQueue(1, FakeClock())
    started: list[str] = []
    hold = asyncio.Event()

    async def build(name: str, tags: frozenset[str]) -> None:
        async with queue.turn(tags):
            started.append(name)
            await hold.wait()

    tasks = [
        asyncio.create_task(build("running", who("someone", "10.0.0.1"))),
        asyncio.create_task(build("lan-1", who("lan", "10.0.0.2"))),
        asyncio.create_task(build("lan-2", who("lan", "10.0.0.3"))),
        asyncio.create_task(build("minh-1", who("minh", "10.0.0.4"))),
    ]
    await asyncio.sleep(0.01)
    hold.set()
    await asyncio.gather(*tasks)
    assert started == ["running", "lan-1", "minh-1", "lan-2"]


def test_a_queue_needs_room_for_one_build():
    with pytest.raises(ValueError):
        BuildQueue(0, FakeClock())
