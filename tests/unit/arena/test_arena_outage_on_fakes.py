"""Redis or the arena's database away for a while (spec B9 "Faults"), on fakes: the
writes tried again with a growing pause (`Patience`, on a fake clock), a match whose
end falls inside a database outage archived once it is back (result, replay and stderr
tails, none lost), and a room's snapshots kept for a feed that is away, the newest one
published when it returns."""

from __future__ import annotations

import asyncio

import pytest

from noitu.adapters.arena.rooms import InMemoryRoomFeed
from noitu.application.arena.errors import Busy
from noitu.application.arena.patience import LONGEST_PAUSE_MS, TELL_EVERY, Patience
from noitu.application.arena.records import MatchStatus
from noitu.application.arena.rooms.get_room import GetRoomCommand
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.snapshot import RoomSnapshot, snapshot_of
from noitu.application.arena.storage import StorageUnavailable
from noitu.domain.arena.room import Room
from support.arena_rooms import (
    Arena,
    FakeTimer,
    MemoryStores,
    ScriptedBot,
    builtin,
    new_owner,
    upload,
)
from support.fakes import START_MS, CollectingBackground, FakeClock


class Told:
    def __init__(self) -> None:
        self.lines: list[tuple[str, int, int, str | None]] = []

    def __call__(self, what: str, *, tries: int, waited_ms: int, error: BaseException | None) -> None:
        self.lines.append((what, tries, waited_ms, None if error is None else type(error).__name__))


class Flaky:
    """A write that fails with `error` its first `failures` times, then answers 42."""

    def __init__(self, failures: int, error: Exception | None = None) -> None:
        self.failures = failures
        self.error = error or StorageUnavailable("down")
        self.tries = 0

    async def __call__(self) -> int:
        self.tries += 1
        if self.tries <= self.failures:
            raise self.error
        return 42


async def until(condition, timeout_s: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not condition():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0)


# --- Patience ----------------------------------------------------------------------


def test_the_pauses_double_from_half_a_second_up_to_thirty() -> None:
    clock = FakeClock()
    pauses = Patience(clock, FakeTimer(clock)).pauses()
    assert [pauses() for _ in range(9)] == [
        500, 1000, 2000, 4000, 8000, 16000, LONGEST_PAUSE_MS, LONGEST_PAUSE_MS, LONGEST_PAUSE_MS
    ]


async def test_a_write_is_tried_again_after_each_pause_until_it_goes_through() -> None:
    clock = FakeClock()
    timer = FakeTimer(clock)
    told = Told()
    write = Flaky(failures=3)
    trying = asyncio.ensure_future(Patience(clock, timer, told)("result of match X", write))
    await until(lambda: timer.sleeping == 1)
    assert write.tries == 1
    timer.advance(499)
    await asyncio.sleep(0)
    assert write.tries == 1  # not before its pause
    timer.advance(1)
    await until(lambda: write.tries == 2 and timer.sleeping == 1)
    timer.advance(1000)
    await until(lambda: write.tries == 3 and timer.sleeping == 1)
    timer.advance(2000)
    assert await trying == 42
    assert write.tries == 4
    assert told.lines == [
        ("result of match X", 1, 0, "StorageUnavailable"),
        ("result of match X", 4, 3500, None),
    ]


async def test_a_long_wait_is_told_every_tenth_try() -> None:
    clock = FakeClock()
    timer = FakeTimer(clock)
    told = Told()
    write = Flaky(failures=TELL_EVERY + 1)
    trying = asyncio.ensure_future(Patience(clock, timer, told, longest_pause_ms=1000)("w", write))
    for tried in range(1, TELL_EVERY + 2):
        await until(lambda: write.tries == tried and timer.sleeping == 1)  # noqa: B023
        timer.advance(1000)
    assert await trying == 42
    assert [line[1] for line in told.lines] == [1, TELL_EVERY, TELL_EVERY + 2]


async def test_a_bounded_wait_tries_last_at_its_bound_and_raises_that_failure() -> None:
    clock = FakeClock()
    timer = FakeTimer(clock)
    write = Flaky(failures=100)
    trying = asyncio.ensure_future(Patience(clock, timer)("w", write, within_ms=3000))
    for tried, pause in ((1, 500), (2, 1000), (3, 1500)):
        await until(lambda: write.tries == tried and timer.sleeping == 1)  # noqa: B023
        timer.advance(pause)
    # Tries at 0, 0.5 and 1.5 s, the last at 3 s (its pause cut short to the bound).
    with pytest.raises(StorageUnavailable):
        await trying
    assert write.tries == 4 and clock.now_ms() - START_MS == 3000


async def test_a_write_that_works_at_once_never_waits_and_tells_nothing() -> None:
    clock = FakeClock()
    told = Told()
    assert await Patience(clock, FakeTimer(clock), told)("w", Flaky(failures=0)) == 42
    assert told.lines == []


async def test_other_errors_are_not_tried_again() -> None:
    clock = FakeClock()
    write = Flaky(failures=1, error=ValueError("a bug"))
    with pytest.raises(ValueError):
        await Patience(clock, FakeTimer(clock))("w", write)
    assert write.tries == 1


# --- a match ending while the database is away -------------------------------------


class AwayStores(MemoryStores):
    """The in-memory archive whose writes that finish a match fail while `away`, and
    whose write that starts play fails while `start_away`."""

    def __init__(self) -> None:
        super().__init__()
        self.away = False
        self.start_away = False
        self.refused = 0

    async def start_match(self, match_id: str, started_ms: int) -> bool:
        if self.start_away:
            self.refused += 1
            raise StorageUnavailable("connection refused")
        return await super().start_match(match_id, started_ms)

    async def finish_match(self, match_id: str, *args, **kwargs) -> bool:  # type: ignore[override]
        if self.away:
            self.refused += 1
            raise StorageUnavailable("connection refused")
        return await super().finish_match(match_id, *args, **kwargs)


async def test_a_match_that_ends_while_the_database_is_away_is_archived_when_it_returns(
    tmp_path,
) -> None:
    stores = AwayStores()
    arena = Arena(tmp_path / "data", stores=stores)
    lan = new_owner()
    mine = arena.add_bot(lan, name="Kéo sắc")
    p1, p2 = ScriptedBot(stderr=b"p1 thinks\n"), ScriptedBot(stderr=b"p2 thinks\n")
    arena.launcher.script(mine.id, p1)
    arena.launcher.script("random", p2)
    stores.away = True
    created = await arena.create(lan, upload(mine), builtin("random"))
    feed = await arena.watch_room(GetRoomCommand(created.code))
    seen: list[RoomSnapshot] = []

    async def collect() -> None:
        async for snapshot in feed:
            seen.append(snapshot)

    watching = asyncio.ensure_future(collect())
    shown = await arena.until_room(created.code, lambda s: s.result is not None)
    # The result is shown at once, its replay not ready; the bots are closed.
    assert shown.phase == "FINISHED" and shown.result.reason == "TURN_LIMIT"
    assert not shown.replay_ready
    await arena.until(lambda: p1.closed and p2.closed, "the bots closed during the outage")
    await arena.until(lambda: arena.timer.sleeping >= 1 and stores.refused >= 1, "waiting")
    record = stores.matches[shown.match_id]
    assert record.status is MatchStatus.LIVE
    await until(lambda: any(s.result is not None for s in seen))
    assert not watching.done()  # the feed stays open until the result is stored

    stores.away = False
    arena.timer.advance(500)
    await arena.until(lambda: watching.done(), "the feed ended after the archive")
    record = stores.matches[shown.match_id]
    assert record.status is MatchStatus.FINISHED
    assert record.result.reason.value == "TURN_LIMIT" and record.replay is not None
    assert await stores.match_stderr(record.id) == (b"p1 thinks\n", b"p2 thinks\n")
    assert seen[-1].replay_ready and seen[-1].result == shown.result
    room = arena.host.find(created.code)
    assert room is not None and room.concluded.is_set()
    events = (await arena.files.read_replay(record.replay)).splitlines()
    assert len(events) == 2 + 3 * 200


async def bot_against_bot(arena: Arena) -> tuple[str, ScriptedBot, ScriptedBot]:
    lan = new_owner()
    mine = arena.add_bot(lan, name="Kéo sắc")
    p1, p2 = ScriptedBot(), ScriptedBot()
    arena.launcher.script(mine.id, p1)
    arena.launcher.script("random", p2)
    created = await arena.create(lan, upload(mine), builtin("random"))
    return created.code, p1, p2


async def test_a_match_waits_for_the_database_to_start_and_plays_when_it_returns(
    tmp_path,
) -> None:
    stores = AwayStores()
    arena = Arena(tmp_path / "data", stores=stores)
    stores.start_away = True
    code, p1, _ = await bot_against_bot(arena)
    await arena.until(lambda: stores.refused >= 1 and arena.timer.sleeping == 1, "waiting")
    arena.timer.advance(500)
    await arena.until(lambda: stores.refused >= 2 and arena.timer.sleeping == 1, "waiting")
    room = await arena.room(code)
    assert room.phase == "PLACEMENT" and not p1.asked  # nothing abandoned, nothing played
    stores.start_away = False
    arena.timer.advance(1000)
    end = await arena.until_room(code, lambda s: s.replay_ready)
    assert end.result.reason == "TURN_LIMIT"
    assert stores.matches[end.match_id].started_ms is not None


async def test_a_match_whose_database_stays_away_past_30_s_before_play_is_abandoned(
    tmp_path,
) -> None:
    stores = AwayStores()
    arena = Arena(tmp_path / "data", stores=stores)
    stores.start_away = True
    code, p1, _ = await bot_against_bot(arena)
    for tried in range(1, 7):  # tries at 0, 0.5, 1.5, 3.5, 7.5, 15.5 s and the last at 30
        await arena.until(lambda: stores.refused == tried and arena.timer.sleeping == 1)  # noqa: B023
        arena.timer.advance(arena.timer.next_wake() - arena.clock.now_ms())
    end = await arena.until_room(code, lambda s: s.replay_ready)
    assert end.phase == "ABANDONED" and end.result.reason == "ABANDONED"
    assert stores.refused == 7 and arena.clock.now_ms() - START_MS == 30_000
    assert not p1.asked


# --- a room's feed away ------------------------------------------------------------


class AwayFeed(InMemoryRoomFeed):
    def __init__(self) -> None:
        super().__init__()
        self.away = False
        self.published: list[int] = []

    async def publish(self, code: str, snapshot: RoomSnapshot) -> None:
        if self.away:
            raise Busy()
        self.published.append(snapshot.version)
        await super().publish(code, snapshot)

    async def close(self, code: str) -> None:
        if self.away:
            raise Busy()
        await super().close(code)


async def test_snapshots_wait_for_the_feed_and_the_newest_one_is_published_when_it_returns() -> None:
    clock = FakeClock()
    timer = FakeTimer(clock)
    feed = AwayFeed()
    background = CollectingBackground()
    host = RoomHost(feed, clock, background, Patience(clock, timer))
    room = host.host(Room(code="K7MPQ2", created_ms=clock.now_ms(), creator="someone"))
    host.changed(room)
    await until(lambda: feed.published == [1])
    feed.away = True
    for _ in range(3):
        host.changed(room)
    host.close(room)
    await until(lambda: timer.sleeping == 1)
    assert feed.published == [1] and not room.feed_closed
    tried = clock.now_ms()
    timer.advance(500)  # still away: tried again, waits longer
    await until(lambda: timer.sleeping == 1 and timer.next_wake() == tried + 1500)
    feed.away = False
    timer.advance(1000)
    await background.settle()
    assert feed.published == [1, 4]  # the newest only, then the end
    assert room.feed_closed and host.quiet(room.code)
    latest = await feed.latest(room.code)  # closed, its last snapshot kept
    assert latest is not None and latest.version == 4
    assert [seen async for seen in feed.subscribe(room.code)] == []  # a late viewer ends


async def test_a_feed_failed_for_everyone_ends_each_subscription_with_busy() -> None:
    feed = InMemoryRoomFeed()
    subscription = feed.subscribe("K7MPQ2")
    room = Room(code="K7MPQ2", created_ms=0, creator="someone")
    await feed.publish("K7MPQ2", _snapshot(room))
    feed.fail_all(Busy())
    received = []
    with pytest.raises(Busy):
        async for snapshot in subscription:
            received.append(snapshot.version)
    assert received == [0]


def _snapshot(room: Room) -> RoomSnapshot:
    return snapshot_of(room, 0)
