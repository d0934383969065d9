"""The SessionRepository port: what every adapter (memory, Redis) must do.

Tests named `test_redis_*` cover what only a shared store has: several instances on one
store, lock time-outs, key expiry, and Redis being unreachable.
"""

from __future__ import annotations

import asyncio
import random
import time

import pytest

from noitu.application.noitu.errors import Busy, NoSession
from noitu.application.noitu.ports import WriteConflict
from noitu.application.noitu.session import ReportState
from noitu.application.noitu.settle_expired import SettleExpired, SweepResult
from noitu.application.noitu.unit_of_work import WRITE_ATTEMPTS, Sessions, SessionWork
from noitu.domain.noitu.bots import BotIndex, make_opponents
from noitu.domain.noitu.chain import Side
from noitu.domain.noitu.game import EndReason, Status
from noitu.domain.noitu.opponent import Difficulty
from noitu.domain.noitu.rules import SessionLimits
from support.fakes import CollectingBackground, RecordingScoreReporter


class RecordingLog:
    """Stands in for the adapter's logger: keeps the event names."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def _record(self, event: str, **_: object) -> None:
        self.events.append(event)

    error = warning = info = _record


@pytest.fixture
def redis_log(monkeypatch) -> RecordingLog:
    from noitu.adapters.noitu.redis import repository
    from noitu.adapters.redis import client

    recorder = RecordingLog()
    monkeypatch.setattr(client, "log", recorder)
    monkeypatch.setattr(repository, "log", recorder)
    return recorder


def session_lexicon(repository, new_session):
    return new_session().game.lexicon


def assert_same(stored, original):
    """Everything a session carries, compared by value."""
    assert stored is not None
    assert stored.id == original.id
    assert stored.ticket == original.ticket
    assert (stored.created_ms, stored.last_active_ms, stored.last_move_ms) == (
        original.created_ms, original.last_active_ms, original.last_move_ms,
    )
    assert stored.report is original.report
    assert stored.new_record is original.new_record
    assert stored.replaced_by == original.replaced_by
    assert stored.refused == original.refused
    a, b = stored.game, original.game
    assert [(l.word, l.by, l.points) for l in a.chain.links] == [
        (l.word, l.by, l.points) for l in b.chain.links
    ]
    assert a.chain.used == b.chain.used
    assert a.chain.used_from == b.chain.used_from
    assert (a.status, a.end_reason, a.deadline_ms, a.ended_ms, a.score, a.suggestions) == (
        b.status, b.end_reason, b.deadline_ms, b.ended_ms, b.score, b.suggestions,
    )
    assert (a.difficulty, a.clock) == (b.difficulty, b.clock)


async def test_get_of_an_unknown_session_is_none(repository):
    assert await repository.get("0" * 32) is None


async def test_add_then_get(repository, new_session):
    session = new_session()
    assert await repository.add(session, max_playing=10)
    assert_same(await repository.get(session.id), session)
    assert await repository.count_playing() == 1
    assert await repository.ids() == [session.id]


async def test_a_change_reaches_the_store_only_when_saved(repository, new_session, clock):
    """What `get` hands out is a copy: a use case that forgets to commit loses its change
    on every store, so the forgotten commit fails here and not only on Redis."""
    session = new_session()
    assert await repository.add(session, 10)
    session.game.give_up(clock.now_ms())  # the added object is not the stored one
    async with repository.lock(session.id):
        read = await repository.get(session.id)
        read.game.give_up(clock.now_ms())
        read.last_active_ms += 5
    stored = await repository.get(session.id)
    assert stored.is_playing and stored.last_active_ms == session.last_active_ms
    assert stored is not read

    async with repository.lock(session.id):
        await repository.save(read)
    stored = await repository.get(session.id)
    assert not stored.is_playing and stored.last_active_ms == read.last_active_ms


async def test_a_real_game_round_trips(repository, new_session, clock):
    """Chain, used words, score, status, deadline, suggestions and report survive, and
    the restored game plays on like the original."""
    opponent = make_opponents(BotIndex(session_lexicon(repository, new_session)))[Difficulty.MEDIUM]
    rng = random.Random(3)
    session = new_session(inline="AAQ-inline")
    assert await repository.add(session, 10)
    async with repository.lock(session.id):
        clock.advance(4_000)
        assert session.game.play("đầu tiên", clock.now_ms(), opponent, rng).bot_word is not None
        session.last_move_ms = session.last_active_ms = clock.now_ms()
        await repository.save(session)
    stored = await repository.get(session.id)
    assert_same(stored, session)
    assert stored.game.score > 0 and stored.game.deadline_ms == clock.now_ms() + 30_000

    async with repository.lock(session.id):
        playing = await repository.get(session.id)
        clock.advance(1_000)
        game = playing.game
        assert game.play("viên chức", clock.now_ms(), opponent, rng).rejection.value == "wrong_link"
        assert game.play("tiên sinh", clock.now_ms(), opponent, rng).rejection.value == "wrong_link"
        assert game.play("sinh viên", clock.now_ms(), opponent, rng).bot_word is not None
        await repository.save(playing)
    stored = await repository.get(session.id)
    assert_same(stored, playing)
    assert [l.word.text for l in stored.game.chain.links] == [
        "mở đầu", "đầu tiên", "tiên sinh", "sinh viên", "viên chức",
    ]
    assert not stored.game.chain.has_legal_word() and not stored.game.is_over


async def test_an_ended_game_round_trips(repository, new_session, clock):
    opponent = make_opponents(BotIndex(session_lexicon(repository, new_session)))[Difficulty.EASY]
    session = new_session()
    assert await repository.add(session, 10)
    async with repository.lock(session.id):
        stored = await repository.get(session.id)
        clock.advance(300)
        stored.game.play("đầu tiên", clock.now_ms(), opponent, random.Random(1))
        clock.advance(40_000)
        assert stored.game.settle(clock.now_ms())
        stored.report = ReportState.PENDING
        await repository.save(stored)
    ended = await repository.get(session.id)
    assert_same(ended, stored)
    assert (ended.game.status, ended.game.end_reason) == (Status.LOST, EndReason.TIMEOUT)
    assert [ended.game.lexicon.words[w] for w in ended.game.suggestions] == ["sinh viên"]
    assert ended.game.deadline_ms == 0 and ended.report is ReportState.PENDING
    assert await repository.count_playing() == 0
    assert await repository.ids() == [session.id]


async def test_a_replaced_game_round_trips_with_its_successor(repository, new_session, clock):
    session = new_session()
    assert await repository.add(session, 10)
    async with repository.lock(session.id):
        stored = await repository.get(session.id)
        assert stored.replaced_by == ""
        stored.game.give_up(clock.now_ms())
        stored.replaced_by = "f" * 32
        await repository.save(stored)
    ended = await repository.get(session.id)
    assert_same(ended, stored)
    assert ended.replaced_by == "f" * 32


async def test_whether_the_report_set_a_record_reaches_every_instance(
    make_repository, new_session, clock,
):
    """B12: the score report's answer (the player's best raised or not) is kept with the
    ended game and read back by another instance. The same score twice on one game
    message: a record, then a tie, which is none."""
    first, second = make_repository(), make_repository()
    background = CollectingBackground()
    writer = Sessions(first, RecordingScoreReporter(), background, clock)
    opponent = make_opponents(BotIndex(session_lexicon(first, new_session)))[Difficulty.EASY]

    def play_and_give_up(work: SessionWork) -> None:
        work.session.game.play("đầu tiên", clock.now_ms(), opponent, random.Random(1))
        work.session.game.give_up(clock.now_ms())
        work.commit()

    scores, records = [], []
    for _ in range(2):
        session = new_session(message=1)
        assert await first.add(session, 10)
        clock.advance(1_000)
        await writer.change(session.id, play_and_give_up)
        await background.settle()
        stored = await second.get(session.id)
        assert_same(stored, await first.get(session.id))
        assert stored.report is ReportState.OK
        scores.append(stored.game.score)
        records.append(stored.new_record)
    assert scores[0] == scores[1] > 0
    assert records == [True, False]


async def test_every_side_and_difficulty_round_trips(repository, new_session):
    for difficulty in Difficulty:
        session = new_session(difficulty=difficulty)
        assert await repository.add(session, 10)
        stored = await repository.get(session.id)
        assert stored.game.difficulty is difficulty
        assert stored.game.chain.links[0].by is Side.BOT


async def test_add_refuses_beyond_the_cap(repository, new_session, clock):
    sessions = [new_session(user=u) for u in range(1, 5)]
    assert [await repository.add(s, max_playing=3) for s in sessions] == [True, True, True, False]
    assert await repository.get(sessions[3].id) is None
    assert await repository.count_playing() == 3
    # A finished game frees its slot.
    async with repository.lock(sessions[0].id):
        stored = await repository.get(sessions[0].id)
        stored.game.give_up(clock.now_ms())
        await repository.save(stored)
    assert await repository.count_playing() == 2
    assert await repository.add(sessions[3], max_playing=3)
    assert await repository.count_playing() == 3


async def test_the_cap_holds_for_concurrent_adds(make_repository, new_session):
    # Two "instances" (for Redis: two clients) add 20 sessions at once; the cap is 7.
    first, second = make_repository(), make_repository()
    sessions = [new_session(user=u) for u in range(1, 21)]
    results = await asyncio.gather(
        *((first if i % 2 else second).add(s, 7) for i, s in enumerate(sessions))
    )
    assert sum(results) == 7
    assert await first.count_playing() == 7
    assert len(await second.ids()) == 7


async def test_save_writes_and_counts_versions(repository, new_session, clock):
    session = new_session()
    await repository.add(session, 10)
    start = session.version
    for _ in range(3):
        async with repository.lock(session.id):
            stored = await repository.get(session.id)
            clock.advance(100)
            stored.last_active_ms = clock.now_ms()
            await repository.save(stored)
    stored = await repository.get(session.id)
    assert stored.version == start + 3
    assert stored.last_active_ms == clock.now_ms()


async def test_save_does_not_bring_back_a_removed_session(repository, new_session):
    session = new_session()
    await repository.add(session, 10)
    await repository.remove(session.id)
    with pytest.raises(WriteConflict):
        await repository.save(session)
    assert await repository.get(session.id) is None
    assert await repository.ids() == []
    assert await repository.count_playing() == 0


async def test_remove_clears_every_index(repository, new_session):
    session = new_session(user=5, message=9)
    other = new_session(user=5, message=10)
    await repository.add(session, 10)
    await repository.add(other, 10)
    await repository.remove(session.id)
    await repository.remove(session.id)  # twice is harmless
    assert await repository.get(session.id) is None
    assert await repository.find_by_owner(session.owner) is None
    assert [s.id for s in await repository.playing_of(5)] == [other.id]
    assert await repository.count_playing() == 1
    assert await repository.ids() == [other.id]


async def test_find_by_owner_follows_the_latest_session_on_a_message(repository, new_session):
    first = new_session(user=1, message=7)
    assert await repository.find_by_owner(first.owner) is None
    await repository.add(first, 10)
    assert (await repository.find_by_owner(first.owner)).id == first.id
    # Another player on the same message is another owner.
    stranger = new_session(user=2, message=7)
    await repository.add(stranger, 10)
    assert (await repository.find_by_owner(first.owner)).id == first.id
    # A new start on the same message takes the owner over; removing the old one
    # does not drop the new one.
    second = new_session(user=1, message=7)
    await repository.add(second, 10)
    assert (await repository.find_by_owner(first.owner)).id == second.id
    await repository.remove(first.id)
    assert (await repository.find_by_owner(first.owner)).id == second.id
    inline = new_session(user=1, inline="AAQ")
    await repository.add(inline, 10)
    assert (await repository.find_by_owner("1/i:AAQ")).id == inline.id


async def test_playing_of_lists_unfinished_sessions_oldest_first(repository, new_session, clock):
    mine = [new_session(user=3) for _ in range(4)]
    theirs = new_session(user=4)
    for session in (mine[0], theirs, mine[1], mine[2], mine[3]):
        await repository.add(session, 10)
    assert [s.id for s in await repository.playing_of(3)] == [s.id for s in mine]
    async with repository.lock(mine[1].id):
        stored = await repository.get(mine[1].id)
        stored.game.give_up(clock.now_ms())
        await repository.save(stored)
    assert [s.id for s in await repository.playing_of(3)] == [mine[0].id, mine[2].id, mine[3].id]
    assert [s.id for s in await repository.playing_of(4)] == [theirs.id]
    assert await repository.playing_of(99) == []
    assert await repository.count_playing() == 4
    assert sorted(await repository.ids()) == sorted([*(s.id for s in mine), theirs.id])


async def test_lock_excludes_two_tasks(make_repository):
    first, second = make_repository(), make_repository()
    inside = 0
    most = 0
    order: list[str] = []

    async def work(repository, name: str) -> None:
        nonlocal inside, most
        for _ in range(5):
            async with repository.lock("abc"):
                inside += 1
                most = max(most, inside)
                order.append(name)
                await asyncio.sleep(0.003)
                inside -= 1

    await asyncio.wait_for(asyncio.gather(work(first, "a"), work(second, "b")), 10)
    assert most == 1
    assert sorted(order) == ["a"] * 5 + ["b"] * 5


async def test_locks_on_different_keys_do_not_wait_for_each_other(repository):
    async with repository.lock("user:1"):
        async with asyncio.timeout(1):
            async with repository.lock("user:2"):
                pass


async def test_a_lock_is_released_when_its_body_fails(repository):
    with pytest.raises(RuntimeError):
        async with repository.lock("k"):
            raise RuntimeError("boom")
    async with asyncio.timeout(1):
        async with repository.lock("k"):
            pass


async def test_a_stale_copy_is_refused(repository, new_session):
    session = new_session()
    await repository.add(session, 10)
    one = await repository.get(session.id)
    two = await repository.get(session.id)
    one.last_move_ms = 1
    await repository.save(one)
    two.last_move_ms = 2
    with pytest.raises(WriteConflict):
        await repository.save(two)
    assert (await repository.get(session.id)).last_move_ms == 1
    # A copy read after the write is current again.
    three = await repository.get(session.id)
    three.last_move_ms = 3
    await repository.save(three)
    assert (await repository.get(session.id)).last_move_ms == 3


class ReadThenWait:
    """The repository port as the unit of work uses it, whose first read waits for a
    signal before answering, counting the writes refused."""

    def __init__(self, repository, has_read: asyncio.Event, go_on: asyncio.Event) -> None:
        self._repository = repository
        self._has_read, self._go_on = has_read, go_on
        self.reads = self.refused = 0

    async def recent(self, session_id):
        found = await self._repository.recent(session_id)
        self.reads += 1
        if self.reads == 1:
            self._has_read.set()
            await self._go_on.wait()
        return found

    async def is_current(self, session) -> bool:
        return await self._repository.is_current(session)

    async def save(self, stored) -> None:
        try:
            await self._repository.save(stored)
        except WriteConflict:
            self.refused += 1
            raise


async def test_concurrent_writers_on_one_session_lose_nothing(make_repository, new_session, clock):
    """Two instances change one session with no lock, the second's write landing
    between the first's read and write: the first's write is refused, the unit of
    work reads again and applies its change to the newer copy; both changes arrive."""
    first, second = make_repository(), make_repository()
    session = new_session()
    await first.add(session, 10)
    has_read, go_on = asyncio.Event(), asyncio.Event()
    slow = ReadThenWait(first, has_read, go_on)

    def bump(work: SessionWork) -> None:
        work.session.last_move_ms += 1
        work.commit()

    async def meanwhile() -> None:
        await has_read.wait()
        await Sessions(second, None, None, clock).change(session.id, bump)  # type: ignore[arg-type]
        go_on.set()

    await asyncio.wait_for(asyncio.gather(
        Sessions(slow, None, None, clock).change(session.id, bump),  # type: ignore[arg-type]
        meanwhile(),
    ), 10)
    assert (slow.reads, slow.refused) == (2, 1)
    stored = await second.get(session.id)
    assert stored.last_move_ms == 2
    assert stored.version == session.version + 2


async def test_a_change_that_keeps_losing_is_busy(repository, new_session, clock):
    session = new_session()
    await repository.add(session, 10)
    attempts: list[int] = []

    def step(work: SessionWork) -> None:
        attempts.append(work.session.version)
        work.commit()

    class AlwaysBeaten:
        """Another writer gets in between every read and write."""

        async def recent(self, session_id):
            found = await repository.recent(session_id)
            other = await repository.get(session_id)
            await repository.save(other)
            return found

        async def is_current(self, session) -> bool:
            return await repository.is_current(session)

        async def save(self, stored) -> None:
            await repository.save(stored)

    with pytest.raises(Busy):
        await Sessions(AlwaysBeaten(), None, None, clock).change(session.id, step)  # type: ignore[arg-type]
    assert len(attempts) == WRITE_ATTEMPTS
    assert len(set(attempts)) == WRITE_ATTEMPTS  # each attempt read a newer copy


def bump(work: SessionWork) -> int:
    """A change that must see every earlier one: counts up on the copy it is given."""
    work.session.last_move_ms += 1
    work.commit()
    return work.session.last_move_ms


def sessions_on(repository, clock) -> Sessions:
    return Sessions(repository, None, None, clock)  # type: ignore[arg-type]


async def test_two_instances_taking_turns_on_one_session_lose_nothing(
    make_repository, new_session, clock,
):
    """Each instance keeps the copy it wrote last; every change it makes must still
    start from the other's latest write, never from that copy."""
    first, second = make_repository(), make_repository()
    session = new_session()
    await first.add(session, 10)
    instances = [sessions_on(first, clock), sessions_on(second, clock)]
    seen = [await instances[turn % 2].change(session.id, bump) for turn in range(20)]
    assert seen == list(range(1, 21))
    for repository in (first, second):
        stored = await repository.get(session.id)
        assert (stored.last_move_ms, stored.version) == (20, session.version + 20)


async def test_an_answer_that_writes_nothing_comes_from_the_latest_copy(
    make_repository, new_session, clock,
):
    first, second = make_repository(), make_repository()
    session = new_session()
    await first.add(session, 10)
    await sessions_on(first, clock).change(session.id, bump)
    await sessions_on(second, clock).change(session.id, bump)

    def look(work: SessionWork) -> int:
        return work.session.last_move_ms

    assert await sessions_on(first, clock).change(session.id, look, touch=False) == 2


async def test_a_step_that_fails_on_a_lagging_copy_runs_again_on_the_latest(
    make_repository, new_session, clock,
):
    first, second = make_repository(), make_repository()
    session = new_session()
    await first.add(session, 10)
    await sessions_on(first, clock).change(session.id, bump)
    await sessions_on(second, clock).change(session.id, bump)

    def needs_two(work: SessionWork) -> int:
        if work.session.last_move_ms < 2:
            raise ValueError("a copy from before the second change")
        return bump(work)

    assert await sessions_on(first, clock).change(session.id, needs_two) == 3
    # And an error the latest copy raises reaches the caller.
    with pytest.raises(ValueError):
        await sessions_on(second, clock).change(session.id, needs_two_more)


def needs_two_more(work: SessionWork) -> int:
    raise ValueError(f"at {work.session.last_move_ms}, refused")


async def test_a_session_removed_by_another_instance_is_not_brought_back(
    make_repository, new_session, clock,
):
    first, second = make_repository(), make_repository()
    session = new_session()
    await first.add(session, 10)
    await sessions_on(first, clock).change(session.id, bump)  # the first keeps a copy
    await second.remove(session.id)
    with pytest.raises(NoSession):
        await sessions_on(first, clock).change(session.id, bump)
    assert await first.recent(session.id) is None
    assert await second.get(session.id) is None
    assert await first.ids() == []
    assert await first.count_playing() == 0


async def test_the_sweep_acts_on_the_latest_copy_and_drops_for_every_instance(
    make_repository, new_session, clock, limits,
):
    first, second = make_repository(), make_repository()
    session = new_session()
    await first.add(session, 10)
    await sessions_on(first, clock).change(session.id, bump)  # the first keeps a copy
    clock.advance(60_000)
    await sessions_on(second, clock).change(session.id, bump)  # the first's copy lags
    clock.advance(60_000)  # past the turn: the sweep settles the game
    sweep = SettleExpired(sessions_on(first, clock), limits)
    assert await sweep() == SweepResult(settled=1, dropped_idle=0, dropped_finished=0)
    stored = await second.get(session.id)
    assert stored.last_move_ms == 2  # the second's change is in the settled game
    assert stored.game.is_over
    clock.advance(limits.finished_ms)
    assert await sweep() == SweepResult(settled=0, dropped_idle=0, dropped_finished=1)
    for repository in (first, second):
        assert await repository.get(session.id) is None
        with pytest.raises(NoSession):
            await sessions_on(repository, clock).change(session.id, bump)
    assert await second.ids() == []


async def test_a_small_cache_still_finds_every_session(make_repository, new_session, clock):
    repository = make_repository(cache_size=1)
    ids = []
    for _ in range(3):
        session = new_session()
        await repository.add(session, 10)
        ids.append(session.id)
    sessions = sessions_on(repository, clock)
    for _ in range(2):
        for session_id in ids:
            await sessions.change(session_id, bump)
    assert [(await repository.get(i)).last_move_ms for i in ids] == [2, 2, 2]


# Redis only.


@pytest.mark.redis
@pytest.mark.parametrize("kind", ["redis"])
async def test_redis_a_kept_copy_of_an_expired_session_is_not_brought_back(
    make_repository, new_session, redis_url, clock,
):
    import redis.asyncio as aioredis

    instance = make_repository()
    session = new_session()
    await instance.add(session, 10)
    await sessions_on(instance, clock).change(session.id, bump)  # kept on this instance
    raw = aioredis.Redis.from_url(redis_url)
    try:
        assert await raw.delete(f"noitu:s:{session.id}") == 1  # as Redis expiring it
    finally:
        await raw.aclose()
    with pytest.raises(NoSession):
        await sessions_on(instance, clock).change(session.id, bump)
    with pytest.raises(NoSession):
        await sessions_on(instance, clock).change(session.id, lambda work: None)
    assert await instance.get(session.id) is None


@pytest.mark.redis
@pytest.mark.parametrize("kind", ["redis"])
async def test_redis_a_held_lock_times_out_as_busy(make_repository):
    holder = make_repository()
    waiter = make_repository(lock_wait_s=0.3)
    async with holder.lock("s1"):
        started = time.monotonic()
        with pytest.raises(Busy):
            async with waiter.lock("s1"):
                pass
        assert 0.25 < time.monotonic() - started < 1.5


@pytest.mark.redis
@pytest.mark.parametrize("kind", ["redis"])
async def test_redis_a_dead_holders_lock_runs_out(make_repository):
    holder = make_repository(lock_ttl_ms=200)
    other = make_repository()
    # The holder "dies": it takes the lock and never releases it.
    manager = holder.lock("s2")
    await manager.__aenter__()
    started = time.monotonic()
    async with other.lock("s2"):
        assert 0.1 < time.monotonic() - started < 1.5
    # The late release of the dead holder does not free someone else's lock.
    async with other.lock("s2"):
        await manager.__aexit__(None, None, None)
        with pytest.raises(Busy):
            async with make_repository(lock_wait_s=0.1).lock("s2"):
                pass


@pytest.mark.redis
@pytest.mark.parametrize("kind", ["redis"])
async def test_redis_keys_expire_with_the_spec_and_indexes_follow(
    make_repository, new_session, redis_url, clock
):
    import redis.asyncio as aioredis

    limits = SessionLimits(idle_ms=1_000, finished_ms=200)
    repository = make_repository(limits=limits, expiry_margin_ms=1)
    playing = new_session(user=8, message=1)
    ended = new_session(user=8, message=2)
    await repository.add(playing, 10)
    await repository.add(ended, 10)
    async with repository.lock(ended.id):
        stored = await repository.get(ended.id)
        stored.game.give_up(clock.now_ms())
        await repository.save(stored)

    async with aioredis.from_url(redis_url) as client:
        ttl_playing = await client.pttl(f"noitu:s:{playing.id}")
        ttl_ended = await client.pttl(f"noitu:s:{ended.id}")
        assert 0 < ttl_ended <= 201 < ttl_playing <= 1_001
        assert 201 < await client.pttl(f"noitu:owner:{playing.owner}") <= 1_001
        assert await client.pttl("noitu:user:8") > 201
        await asyncio.sleep(0.35)
        assert await repository.get(ended.id) is None
        assert await repository.ids() == [playing.id]
        assert await repository.count_playing() == 1
        await asyncio.sleep(max(ttl_playing / 1000 - 0.35, 0) + 0.05)
        assert await repository.get(playing.id) is None
        assert await repository.ids() == []
        assert await repository.count_playing() == 0
        assert await repository.playing_of(8) == []
        assert await repository.find_by_owner(playing.owner) is None
        assert await client.zcard("noitu:user:8") == 0
        # Only the start counter is left: nothing grows without bound.
        assert await client.keys("noitu:*") == [b"noitu:seq"]
    # A freed slot is usable again.
    assert await repository.add(new_session(user=9), 1)


@pytest.mark.redis
@pytest.mark.parametrize("kind", ["redis"])
async def test_redis_the_expiry_follows_last_activity(make_repository, new_session, redis_url, clock):
    import redis.asyncio as aioredis

    repository = make_repository()
    session = new_session()
    await repository.add(session, 10)
    clock.advance(10 * 60_000)  # ten idle minutes: 5 left, plus the margin
    async with repository.lock(session.id):
        stored = await repository.get(session.id)
        await repository.save(stored)  # the sweep saves without activity
    async with aioredis.from_url(redis_url) as client:
        ttl = await client.pttl(f"noitu:s:{session.id}")
    assert 5 * 60_000 < ttl <= 6 * 60_000


@pytest.mark.redis
@pytest.mark.parametrize("kind", ["redis"])
async def test_redis_an_unknown_word_reads_as_gone(
    make_repository, new_session, redis_url
):
    import redis.asyncio as aioredis

    repository = make_repository()
    session = new_session()
    await repository.add(session, 10)
    async with aioredis.from_url(redis_url, decode_responses=True) as client:
        data = await client.hget(f"noitu:s:{session.id}", "d")
        await client.hset(f"noitu:s:{session.id}", "d", data.replace("mở đầu", "mở màn"))
    assert await repository.get(session.id) is None


@pytest.mark.redis
async def test_redis_down_answers_busy_fast_and_logs_once(
    redis_links, little, rules, limits, clock, redis_log
):
    from noitu.adapters.noitu.redis.repository import RedisSessionRepository
    from noitu.bench.redis_server import free_port

    link = redis_links(f"redis://127.0.0.1:{free_port()}/0")
    repository = RedisSessionRepository(link, little, rules, limits, clock)
    for _ in range(3):
        started = time.monotonic()
        with pytest.raises(Busy):
            await repository.get("0" * 32)
        with pytest.raises(Busy):
            async with repository.lock("x"):
                pass
        assert time.monotonic() - started < 2.5
    assert redis_log.events == ["redis_unavailable"]
    assert link.down


@pytest.mark.redis
async def test_redis_recovers_by_itself_and_logs_it(
    tmp_path, little, rules, limits, clock, new_session, redis_links, redis_log
):
    from noitu.adapters.noitu.redis.repository import RedisSessionRepository
    from noitu.bench.redis_server import RedisServer

    server = RedisServer(tmp_path / "redis")
    server.start()
    try:
        repository = RedisSessionRepository(redis_links(server.url), little, rules, limits, clock)
        session = new_session()
        assert await repository.add(session, 10)
        server.stop(save=True)
        with pytest.raises(Busy):
            await repository.get(session.id)
        with pytest.raises(Busy):
            await repository.count_playing()
        server.start()
        assert (await repository.get(session.id)).id == session.id
        assert await repository.count_playing() == 1
        assert redis_log.events == ["redis_unavailable", "redis_recovered"]
    finally:
        server.kill()


@pytest.mark.redis
async def test_redis_a_frozen_server_answers_busy_within_the_timeout(
    tmp_path, little, rules, limits, clock, new_session, redis_links
):
    from noitu.adapters.noitu.redis.repository import RedisSessionRepository
    from noitu.bench.redis_server import RedisServer

    server = RedisServer(tmp_path / "redis")
    server.start()
    try:
        repository = RedisSessionRepository(redis_links(server.url), little, rules, limits, clock)
        session = new_session()
        assert await repository.add(session, 10)
        server.pause()
        started = time.monotonic()
        with pytest.raises(Busy):
            await repository.get(session.id)
        assert time.monotonic() - started < 2.0
        server.resume()
        assert (await repository.get(session.id)).id == session.id
    finally:
        server.kill()
