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
    assert [queue.place(n) for n in "abcde"] == [None, None, 1, 2, 3]
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
    assert (queue.playing, queue.waiting) == (0, 0)


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


# --- the fair order (spec B10) -----------------------------------------------------------


class Line:
    """A queue with one match playing (held until the test ends), and matches that wait
    with their tags; `order` is the waiting line as the places say."""

    def __init__(self) -> None:
        self.queue = MatchQueue(1)
        self.hold = asyncio.Event()
        self.started: list[str] = []
        self.tasks: list[asyncio.Task[None]] = []

    async def add(self, name: str, *tags: str, spectacle: bool = False) -> None:
        async def play() -> None:
            async with self.queue.slot(name, frozenset(tags), spectacle):
                self.started.append(name)
                await self.hold.wait()

        self.tasks.append(asyncio.create_task(play()))
        await asyncio.sleep(0)

    def order(self) -> list[str]:
        waiting = [t for t in self.names if self.queue.place(t) is not None]
        return sorted(waiting, key=self.queue.place)

    @property
    def names(self) -> list[str]:
        return [name for name in "abcdefghijklmnop"]

    async def play_all(self) -> list[str]:
        """Release the matches one at a time: the order they start in."""
        self.hold.set()
        await asyncio.gather(*self.tasks)
        return self.started


async def test_a_second_waiting_match_of_one_owner_goes_behind_every_other_owners():
    line = Line()
    await line.add("a")  # plays
    for name in "bcd":
        await line.add(name, "owner:x", "address:1")  # the attacker's next matches
    await line.add("e", "owner:y", "address:2")  # a person comes after them
    await line.add("f", "owner:z", "address:3")
    assert line.order() == ["b", "e", "f", "c", "d"]
    assert [line.queue.place(n) for n in "bcdef"] == [1, 4, 5, 2, 3]
    assert await line.play_all() == ["a", "b", "e", "f", "c", "d"]


async def test_fresh_owner_keys_from_one_address_are_still_one_address():
    line = Line()
    await line.add("a")
    for n, name in enumerate("bcd"):
        await line.add(name, f"owner:k{n}", "address:attacker")
    await line.add("e", "owner:person", "address:home")
    assert line.order() == ["b", "e", "c", "d"]


async def test_one_owner_from_several_addresses_is_still_one_owner():
    line = Line()
    await line.add("a")
    await line.add("b", "owner:x", "address:1")
    await line.add("c", "owner:x", "address:2")
    await line.add("d", "owner:y", "address:3")
    assert line.order() == ["b", "d", "c"]


async def test_spectacles_wait_behind_every_match_with_a_person_or_an_upload():
    line = Line()
    await line.add("a")
    await line.add("b", "address:1", spectacle=True)
    await line.add("c", "address:2", spectacle=True)
    await line.add("d", "owner:y", "address:3")  # a person, later than both
    assert line.order() == ["d", "b", "c"]
    await line.add("e", "owner:z", "address:4")
    assert line.order() == ["d", "e", "b", "c"]
    assert await line.play_all() == ["a", "d", "e", "b", "c"]


async def test_an_owners_second_match_stays_behind_a_later_person_after_its_first_started():
    queue = MatchQueue(1)
    release = {name: asyncio.Event() for name in "abcd"}
    started: list[str] = []

    async def play(name: str, *tags: str) -> None:
        async with queue.slot(name, frozenset(tags)):
            started.append(name)
            await release[name].wait()

    tasks = [asyncio.create_task(play("a", "owner:p"))]
    await asyncio.sleep(0)
    tasks += [asyncio.create_task(play("b", "owner:x")), asyncio.create_task(play("c", "owner:x"))]
    await asyncio.sleep(0)
    tasks.append(asyncio.create_task(play("d", "owner:y")))
    await asyncio.sleep(0.01)
    assert [queue.place(n) for n in "bcd"] == [1, 3, 2]
    release["a"].set()
    await asyncio.sleep(0.01)
    # b plays, then ends: c, x's second, still waits behind d, who came later.
    assert started == ["a", "b"] and [queue.place(n) for n in "cd"] == [2, 1]
    release["b"].set()
    await asyncio.sleep(0.01)
    assert started == ["a", "b", "d"]
    for event in release.values():
        event.set()
    await asyncio.gather(*tasks)
    assert started == ["a", "b", "d", "c"]


# --- ladder matches fill idle capacity only (spec B8 "Scheduling") ---------------------


class LadderLine:
    """Matches entering one queue, each held until the test ends it."""

    def __init__(self, queue: MatchQueue) -> None:
        self.queue = queue
        self.started: list[str] = []
        self._release: dict[str, asyncio.Event] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def come(self, name: str, *, ladder: bool = False, spectacle: bool = False) -> None:
        self._release[name] = asyncio.Event()

        async def play() -> None:
            async with self.queue.slot(name, spectacle=spectacle, ladder=ladder):
                self.started.append(name)
                await self._release[name].wait()

        self._tasks[name] = asyncio.create_task(play())

    async def end(self, name: str) -> None:
        self._release[name].set()
        await self._tasks[name]

    async def end_all(self) -> None:
        for name in self._release:
            self._release[name].set()
        await asyncio.gather(*self._tasks.values())


async def test_ladder_matches_leave_one_slot_so_a_room_starts_at_once():
    line = LadderLine(MatchQueue(3))
    for name in ("ladder-1", "ladder-2", "ladder-3"):
        line.come(name, ladder=True)
    await asyncio.sleep(0.01)
    # all but one slot: the third ladder match waits although a slot is free
    assert line.started == ["ladder-1", "ladder-2"]
    assert line.queue.ladder_playing == 2 and line.queue.place("ladder-3") == 1
    line.come("room")
    await asyncio.sleep(0.01)
    assert line.started == ["ladder-1", "ladder-2", "room"]
    assert line.queue.place("room") is None and line.queue.playing == 3
    await line.end_all()


async def test_a_room_match_goes_ahead_of_every_waiting_ladder_match():
    line = LadderLine(MatchQueue(2))
    line.come("room-1")
    line.come("room-2")
    await asyncio.sleep(0.01)
    line.come("ladder", ladder=True)  # waits: both slots are the rooms'
    await asyncio.sleep(0.01)
    line.come("room-3")
    line.come("show", spectacle=True)
    await asyncio.sleep(0.01)
    # the room's place counts room matches only, the spectacle included
    assert [line.queue.place(n) for n in ("room-3", "show", "ladder")] == [1, 2, 3]
    await line.end("room-1")
    await asyncio.sleep(0.01)
    assert line.started[-1] == "room-3" and line.queue.place("ladder") == 2
    await line.end("room-2")
    await asyncio.sleep(0.01)
    assert line.started[-1] == "show"
    await line.end("room-3")
    await asyncio.sleep(0.01)
    assert line.started[-1] == "ladder"
    await line.end_all()
    assert line.started == ["room-1", "room-2", "room-3", "show", "ladder"]


async def test_a_one_slot_queue_keeps_its_slot_for_the_rooms():
    line = LadderLine(MatchQueue(1))
    line.come("ladder", ladder=True)
    await asyncio.sleep(0.01)
    assert line.started == [] and line.queue.ladder_slots == 0
    line.come("room")
    await asyncio.sleep(0.01)
    assert line.started == ["room"]
    line._tasks["ladder"].cancel()
    with pytest.raises(asyncio.CancelledError):
        await line._tasks["ladder"]
    await line.end("room")
    assert (line.queue.playing, line.queue.waiting) == (0, 0)


async def test_a_match_keeps_the_rank_and_arrival_its_card_gave_it():
    # A room's card keeps its rank and arrival from when it was handed over: the queue
    # orders by them, not by when the job reached it.
    line = LadderLine(MatchQueue(1))
    line.come("playing")
    await asyncio.sleep(0.01)
    tasks = []
    for name, rank, arrival in (("late-first", 0, 10), ("early-second", 1, 5), ("early", 0, 5)):
        tasks.append(asyncio.create_task(play_ranked(line.queue, name, rank, arrival)))
    await asyncio.sleep(0.01)
    assert [line.queue.place(n) for n in ("early", "late-first", "early-second")] == [1, 2, 3]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await line.end_all()


async def play_ranked(queue: MatchQueue, name: str, rank: int, arrival: int) -> None:
    async with queue.slot(name, rank=rank, arrival=arrival):
        await asyncio.Event().wait()
