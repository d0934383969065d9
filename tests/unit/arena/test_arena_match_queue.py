"""The match queue: at most `slots` matches at once, the rest in order, each able to
read its place; a cancelled waiter leaves the line."""

from __future__ import annotations

import asyncio

import pytest

from noitu.application.arena.match_queue import MatchQueue, default_slots


def test_the_default_leaves_a_core_for_the_server():
    assert [default_slots(c) for c in (1, 2, 4, 8)] == [1, 2, 6, 14]


async def test_no_more_than_the_slots_play_and_the_rest_wait_in_order():
    queue = MatchQueue(2)
    started: list[str] = []
    release = {name: asyncio.Event() for name in "abcde"}
    most = 0

    async def play(name: str) -> None:
        nonlocal most
        async with queue.slot(name):
            started.append(name)
            most = max(most, queue.playing)
            await release[name].wait()

    tasks = [asyncio.create_task(play(n)) for n in "abcde"]
    await asyncio.sleep(0.01)
    assert started == ["a", "b"]
    assert [queue.place(n) for n in "abcde"] == [0, 0, 1, 2, 3]
    release["b"].set()
    await asyncio.sleep(0.01)
    assert started == ["a", "b", "c"] and queue.place("e") == 2
    for event in release.values():
        event.set()
    await asyncio.gather(*tasks)
    assert started == list("abcde") and most == 2
    assert (queue.playing, queue.waiting) == (0, 0)


async def test_a_cancelled_waiter_leaves_the_queue_and_the_next_moves_up():
    queue = MatchQueue(1)
    changes: list[tuple[int, int]] = []
    queue.on_change(lambda: changes.append((queue.playing, queue.waiting)))
    hold = asyncio.Event()

    async def play(name: str) -> None:
        async with queue.slot(name):
            await hold.wait()

    first = asyncio.create_task(play("a"))
    second = asyncio.create_task(play("b"))
    third = asyncio.create_task(play("c"))
    await asyncio.sleep(0.01)
    assert queue.place("c") == 2
    second.cancel()
    with pytest.raises(asyncio.CancelledError):
        await second
    assert queue.place("c") == 1 and queue.waiting == 1
    hold.set()
    await asyncio.gather(first, third)
    assert changes[-1] == (0, 0)


async def test_a_match_that_fails_frees_its_slot():
    queue = MatchQueue(1)

    async def crash() -> None:
        async with queue.slot("a"):
            raise RuntimeError("the match broke")

    with pytest.raises(RuntimeError):
        await crash()
    async with queue.slot("b"):
        assert queue.playing == 1


def test_a_queue_needs_a_slot():
    with pytest.raises(ValueError):
        MatchQueue(0)
