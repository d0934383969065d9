"""The arena's metadata ports, `BotCatalogue` and `MatchArchive`: what every store must
do — the SQL repository on SQLite (a copy of a migrated file) and on PostgreSQL (one
throwaway server per session; one database migrated once and emptied before each test),
and the tests' in-memory `MemoryStores`, which the room use cases' unit tests stand on.

`open_repository` opens the store as a server would at start-up; each call is another
instance (in memory, the one process's store again). The SQL adapter's own tests (the
migrations, SQLite's settings, the URLs) are in tests/integration/arena/test_arena_sql.py;
the records' rules in tests/unit/arena/test_arena_records.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from noitu.adapters.arena.sql import migrations
from noitu.adapters.arena.sql.engine import create_engine
from noitu.adapters.arena.sql.repository import SqlArenaRepository
from noitu.application.arena.ports import Language
from noitu.application.arena.records import (
    BotRecord,
    BuildStatus,
    MatchStatus,
    Seat,
    new_bot_id,
    new_owner_key,
    owner_hash,
)
from noitu.application.arena.replay import SeatKind
from noitu.application.arena.retention import DAY_MS, Retention, replays_due
from noitu.application.arena.storage import AlreadyStored, BotCatalogue, MatchArchive
from noitu.domain.arena.match import EndReason, Result
from support.arena_databases import ALICE, BOB, BOT_FAILED, DRAW, RNG, T0, make_bot, make_match
from support.arena_rooms import MemoryStores


class Stores(BotCatalogue, MatchArchive, Protocol):
    """What the contract is checked on: both ports in one object, as every store has."""


@pytest.fixture(params=["sqlite", "postgresql", "memory"])
def database(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
async def open_repository(
    database: str, request: pytest.FixtureRequest, engines: list[AsyncEngine]
) -> Callable[[], Awaitable[Stores]]:
    if database == "memory":
        stores = MemoryStores()

        async def the_same(generous: bool = False) -> Stores:
            return stores  # type: ignore[return-value]

        return the_same
    url = request.getfixturevalue("new_url")(True)

    async def open_(generous: bool = False) -> Stores:
        """`generous`: PostgreSQL's connect and statement bounds (0.8 s, 1 s: the
        product's) raised to 10 s, for a test of something else that opens many
        connections at once on a loaded machine."""
        options: dict[str, Any] = {}
        if generous and database == "postgresql":
            options["connect_args"] = {"timeout": 10.0, "command_timeout": 10.0}
        engine = create_engine(url, **options)
        engines.append(engine)
        await migrations.upgrade(engine)
        return SqlArenaRepository(engine)  # type: ignore[return-value]

    return open_


@pytest.fixture
async def repo(open_repository: Callable[[], Awaitable[Stores]]) -> Stores:
    return await open_repository()


# --- owners and uploads ---------------------------------------------------------------


async def test_uploads_are_admitted_up_to_the_limit_per_window(repo) -> None:
    window, limit = 60_000, 3
    admitted = [
        await repo.record_upload(ALICE, T0 + i * 1_000, window_ms=window, limit=limit)
        for i in range(5)
    ]
    assert admitted == [True, True, True, False, False]
    # Another owner has a window of its own.
    assert await repo.record_upload(BOB, T0 + 4_000, window_ms=window, limit=limit)
    # The first upload leaves the window at T0 + 60 s: one place again, and only one.
    assert not await repo.record_upload(ALICE, T0 + 59_999, window_ms=window, limit=limit)
    assert await repo.record_upload(ALICE, T0 + 60_000, window_ms=window, limit=limit)
    assert not await repo.record_upload(ALICE, T0 + 60_500, window_ms=window, limit=limit)
    # Refused uploads took no place: one more for Bob, in his window.
    assert await repo.record_upload(BOB, T0 + 5_000, window_ms=window, limit=2)


async def test_concurrent_uploads_never_pass_the_limit(open_repository) -> None:
    first, second = await open_repository(), await open_repository()  # two instances
    results = await asyncio.gather(
        *(
            (first if i % 2 else second).record_upload(
                ALICE, T0 + i, window_ms=60_000, limit=5
            )
            for i in range(16)
        )
    )
    assert sum(results) == 5
    assert not await second.record_upload(ALICE, T0 + 20, window_ms=60_000, limit=5)


# --- bots -----------------------------------------------------------------------------


async def test_a_bot_comes_back_as_stored(repo) -> None:
    ok = make_bot(public=True, language=Language.JAR, build_messages="Cảnh báo: ổn ✓")
    failed = make_bot(
        created_ms=T0 + 1,
        language=Language.JAVA,
        build=BuildStatus.FAILED,
        build_messages="Main.java:3: error: ';' expected\n" * 200,
        artefact_dir=None,
        name="Đấu sĩ Ưng",
    )
    assert await repo.add_bot(ok)
    assert await repo.add_bot(failed)
    assert await repo.get_bot(ok.id) == ok
    assert await repo.get_bot(failed.id) == failed
    assert await repo.get_bot(new_bot_id(RNG)) is None


async def test_a_taken_bot_id_is_refused(repo) -> None:
    bot = make_bot()
    await repo.add_bot(bot)
    with pytest.raises(AlreadyStored):
        await repo.add_bot(make_bot(id=bot.id, owner=BOB, name="other"))
    assert await repo.get_bot(bot.id) == bot
    assert await repo.count_bots(BOB) == 0


async def test_an_owners_bots_come_newest_first(repo) -> None:
    mine = [make_bot(created_ms=T0 + i * 10) for i in range(4)]
    tied = [make_bot(created_ms=T0 + 100) for _ in range(2)]
    theirs = make_bot(owner=BOB, created_ms=T0 + 5)
    for bot in [*mine, *tied, theirs]:
        await repo.add_bot(bot)
    listed = await repo.bots_of(ALICE)
    assert listed == sorted(tied, key=lambda b: b.id, reverse=True) + mine[::-1]
    assert await repo.bots_of(BOB) == [theirs]
    assert await repo.bots_of(owner_hash(new_owner_key(RNG))) == []
    assert await repo.count_bots(ALICE) == 6
    assert await repo.count_bots(BOB) == 1


async def test_max_bots_refuses_the_one_too_many(repo) -> None:
    for i in range(3):
        assert await repo.add_bot(make_bot(created_ms=T0 + i), max_bots=3)
    extra = make_bot(created_ms=T0 + 9)
    assert not await repo.add_bot(extra, max_bots=3)
    assert await repo.get_bot(extra.id) is None
    assert await repo.count_bots(ALICE) == 3
    assert await repo.add_bot(make_bot(owner=BOB), max_bots=3)  # per owner


def failed_build(owner: str = ALICE, created_ms: int = T0) -> BotRecord:
    return make_bot(
        owner=owner,
        created_ms=created_ms,
        build=BuildStatus.FAILED,
        build_messages="mine.cpp:1:1: error",
        artefact_dir=None,
    )


async def test_failed_builds_do_not_count_and_are_listed_for_the_sweep(repo) -> None:
    failed = [failed_build(created_ms=T0 + i) for i in range(3)]
    for bot in failed:
        assert await repo.add_bot(bot, max_bots=None)
    assert await repo.count_bots(ALICE) == 0
    for i in range(2):
        assert await repo.add_bot(make_bot(created_ms=T0 + 10 + i), max_bots=2)
    assert not await repo.add_bot(make_bot(created_ms=T0 + 20), max_bots=2)
    assert await repo.count_bots(ALICE) == 2 and len(await repo.bots_of(ALICE)) == 5
    theirs = failed_build(owner=BOB, created_ms=T0 + 5)
    await repo.add_bot(theirs)
    assert await repo.failed_builds(ALICE) == failed[::-1]
    assert await repo.failed_builds() == [theirs, *failed[::-1]]
    assert await repo.failed_builds(owner_hash(new_owner_key(RNG))) == []


async def test_concurrent_adds_keep_every_bot_and_the_limit(open_repository) -> None:
    first, second = await open_repository(), await open_repository()
    bots = [make_bot(owner=ALICE if i % 2 else BOB, created_ms=T0 + i) for i in range(30)]
    await asyncio.gather(*((first if i % 3 else second).add_bot(b) for i, b in enumerate(bots)))
    assert await first.count_bots(ALICE) == 15 and await second.count_bots(BOB) == 15
    stored = {b.id for b in await first.bots_of(ALICE)} | {b.id for b in await first.bots_of(BOB)}
    assert stored == {b.id for b in bots}

    carol = owner_hash(new_owner_key(RNG))
    racing = [make_bot(owner=carol, created_ms=T0 + i) for i in range(12)]
    added = await asyncio.gather(
        *((first if i % 2 else second).add_bot(b, max_bots=4) for i, b in enumerate(racing))
    )
    assert sum(added) == 4
    assert await first.count_bots(carol) == 4


async def test_public_bots_page_newest_first(repo) -> None:
    public = [make_bot(owner=(ALICE, BOB)[i % 2], created_ms=T0 + i // 2, public=True)
              for i in range(7)]
    for bot in public:
        await repo.add_bot(bot)
    await repo.add_bot(make_bot(created_ms=T0 + 50))  # private
    expected = sorted(public, key=lambda b: (b.created_ms, b.id), reverse=True)
    assert await repo.public_bots(limit=100) == expected
    pages, before = [], None
    while page := await repo.public_bots(limit=3, before=before):
        pages.append(page)
        before = page[-1].cursor
    assert [len(p) for p in pages] == [3, 3, 1]
    assert [b for p in pages for b in p] == expected
    assert await repo.public_bots(limit=0) == []


async def test_only_the_owner_publishes_and_hides(repo) -> None:
    bot = make_bot()
    await repo.add_bot(bot)
    assert not await repo.set_public(bot.id, BOB, True)
    assert not await repo.set_public(new_bot_id(RNG), ALICE, True)
    assert await repo.public_bots(limit=10) == []
    assert await repo.set_public(bot.id, ALICE, True)
    assert await repo.public_bots(limit=10) == [dataclasses.replace(bot, public=True)]
    assert await repo.set_public(bot.id, ALICE, False)
    assert (await repo.get_bot(bot.id)).public is False


async def test_only_the_owner_deletes_and_matches_keep_the_seat(repo) -> None:
    bot, other = make_bot(), make_bot(created_ms=T0 + 1)
    await repo.add_bot(bot)
    await repo.add_bot(other)
    match = make_match(p1=Seat(SeatKind.UPLOAD, bot.id, bot.name, ALICE))
    await repo.add_match(match)
    assert not await repo.delete_bot(bot.id, BOB)
    assert await repo.get_bot(bot.id) == bot
    assert await repo.delete_bot(bot.id, ALICE)
    assert not await repo.delete_bot(bot.id, ALICE)
    assert await repo.get_bot(bot.id) is None
    assert await repo.bots_of(ALICE) == [other]
    assert await repo.count_bots(ALICE) == 1
    assert (await repo.get_match(match.id)).p1 == match.p1


# --- matches --------------------------------------------------------------------------


async def test_a_match_comes_back_as_stored(repo) -> None:
    live = make_match(runner="instance-a")
    person = make_match(
        created_ms=T0 + 1,
        seed=0,
        turn_limit=7,
        p1=Seat(SeatKind.PERSON, "Nguyễn Thị Ánh", "Nguyễn Thị Ánh", BOB),
        p2=Seat(SeatKind.UPLOAD, new_bot_id(RNG), "Bot", ALICE),
    )
    finished = make_match(
        created_ms=T0 + 2,
        started_ms=T0 + 3,
        finished_ms=T0 + 4,
        status=MatchStatus.FINISHED,
        result=BOT_FAILED,
        replay="replays/ABCDEF01.jsonl",
    )
    for match in (live, person, finished):
        await repo.add_match(match)
        assert await repo.get_match(match.id) == match
    assert await repo.get_match("DEADBEEF") is None
    with pytest.raises(AlreadyStored):
        await repo.add_match(dataclasses.replace(live, room="ZZZZZZ"))
    assert await repo.get_match(live.id) == live


async def test_finished_matches_page_newest_first_by_bot_and_ladder(repo) -> None:
    mine = new_bot_id(RNG)
    me = Seat(SeatKind.UPLOAD, mine, "Bot của An", ALICE)
    # A person who calls themselves like a built-in is not that bot.
    random_person = Seat(SeatKind.PERSON, "random", "random", BOB)
    stored = [
        make_match(p1=me, ladder=True),
        make_match(p2=me),
        make_match(p2=Seat(SeatKind.BUILTIN, "random", "random")),
        make_match(p1=random_person, ladder=True),
        make_match(p1=me),
    ]
    ends = [T0 + 10, T0 + 30, T0 + 20, T0 + 20, T0 + 30]
    for match, ended in zip(stored, ends, strict=True):
        await repo.add_match(match)
        await repo.finish_match(match.id, DRAW, ended, None)
    await repo.add_match(make_match(p1=me))  # live: never listed
    ids = [match.id for match in stored]

    def newest_first(*picked: int) -> list[str]:
        chosen = [(ends[i], ids[i]) for i in picked]
        return [match_id for _, match_id in sorted(chosen, reverse=True)]

    every = await repo.finished_matches(10)
    assert [match.id for match in every] == newest_first(0, 1, 2, 3, 4)
    assert every[0].status is MatchStatus.FINISHED
    first = await repo.finished_matches(2, bot=mine)
    assert [match.id for match in first] == newest_first(0, 1, 4)[:2]
    rest = await repo.finished_matches(2, first[-1].cursor, bot=mine)
    assert [match.id for match in rest] == newest_first(0, 1, 4)[2:]
    assert [m.id for m in await repo.finished_matches(10, bot="random")] == [ids[2]]
    assert [m.id for m in await repo.finished_matches(10, ladder=True)] == newest_first(0, 3)
    ladder_mine = await repo.finished_matches(10, bot=mine, ladder=True)
    assert [m.id for m in ladder_mine] == [ids[0]] and ladder_mine[0].ladder


async def test_a_match_starts_once_and_finishes_once(repo) -> None:
    match = make_match()
    await repo.add_match(match)
    assert await repo.start_match(match.id, T0 + 100)
    assert not await repo.start_match(match.id, T0 + 200)
    assert not await repo.start_match("00000000", T0)
    assert await repo.finish_match(match.id, BOT_FAILED, T0 + 900, "replays/X.jsonl")
    assert not await repo.finish_match(match.id, DRAW, T0 + 999, None)  # the first stands
    assert not await repo.finish_match("00000000", DRAW, T0, None)
    assert not await repo.start_match(match.id, T0 + 1_000)
    stored = await repo.get_match(match.id)
    assert stored == dataclasses.replace(
        match,
        status=MatchStatus.FINISHED,
        started_ms=T0 + 100,
        finished_ms=T0 + 900,
        result=BOT_FAILED,
        replay="replays/X.jsonl",
    )


async def test_the_stderr_tails_are_stored_by_the_write_that_finishes(open_repository) -> None:
    repo = await open_repository()
    match = make_match()
    await repo.add_match(match)
    assert await repo.match_stderr(match.id) == (b"", b"")  # live: none yet
    flood = b"x" * 20_000 + "lỗi ở lượt 57\n".encode()
    crash = b"Traceback (most recent call last):\n\xff not UTF-8\n"
    assert await repo.finish_match(match.id, BOT_FAILED, T0 + 900, None, (flood, crash))
    # Only the last 8 KiB, as bytes (a cut character stays cut; readers decode).
    kept = (flood[-8 * 1024 :], crash)
    assert await repo.match_stderr(match.id) == kept
    # The first ending stands, its tails too.
    assert not await repo.finish_match(match.id, DRAW, T0 + 999, None, (b"later", b"later"))
    assert await repo.match_stderr(match.id) == kept
    # Records and lists never carry them; a restarted server still reads them.
    assert await repo.get_match(match.id) == dataclasses.replace(
        match, status=MatchStatus.FINISHED, finished_ms=T0 + 900, result=BOT_FAILED
    )
    again = await open_repository()
    assert await again.match_stderr(match.id) == kept
    assert await again.match_stderr("DEADBEEF") is None
    abandoned = make_match(created_ms=T0 + 1)
    await again.add_match(abandoned)
    assert await again.abandon_live(T0 + 2_000) == 1
    assert await again.match_stderr(abandoned.id) == (b"", b"")


async def test_live_matches_come_oldest_first(repo) -> None:
    matches = [make_match(created_ms=T0 + i) for i in (3, 1, 2)]
    for match in matches:
        await repo.add_match(match)
    await repo.finish_match(matches[0].id, DRAW, T0 + 10, None)
    assert await repo.live_matches() == [matches[1], matches[2]]


async def test_a_restart_keeps_bots_and_finished_matches_and_abandons_the_live(
    open_repository,
) -> None:
    before = await open_repository()
    bot = make_bot()
    await before.add_bot(bot)
    done, live, placing = make_match(), make_match(created_ms=T0 + 1), make_match(created_ms=T0 + 2)
    for match in (done, live, placing):
        await before.add_match(match)
    await before.start_match(done.id, T0 + 10)
    await before.start_match(live.id, T0 + 11)
    await before.finish_match(done.id, BOT_FAILED, T0 + 20, "replays/ABCDEF01.jsonl")

    after = await open_repository()  # the server comes back: migrations, then the rule
    assert await after.abandon_live(T0 + 5_000) == 2
    assert await after.abandon_live(T0 + 6_000) == 0
    assert await after.get_bot(bot.id) == bot
    assert (await after.get_match(done.id)).result == BOT_FAILED
    assert await after.live_matches() == []
    abandoned = Result(winner=None, reason=EndReason.ABANDONED, turns=0)
    for match, started in ((live, T0 + 11), (placing, None)):
        stored = await after.get_match(match.id)
        assert stored == dataclasses.replace(
            match, status=MatchStatus.FINISHED, started_ms=started, finished_ms=T0 + 5_000,
            result=abandoned, replay=None,
        )


async def test_abandon_live_can_keep_to_one_runner(repo) -> None:
    mine, theirs = make_match(runner="a"), make_match(created_ms=T0 + 1, runner="b")
    await repo.add_match(mine)
    await repo.add_match(theirs)
    assert await repo.abandon_live(T0 + 100, runner="a") == 1
    assert await repo.live_matches() == [theirs]
    assert (await repo.get_match(mine.id)).result.reason is EndReason.ABANDONED


async def test_concurrent_match_writes(open_repository) -> None:
    # 40 writes at once open up to 15 connections each: a loaded CI machine once took
    # more than the product's 0.8 s to open one, and this test is about the races.
    first, second = await open_repository(True), await open_repository(True)
    matches = [make_match(created_ms=T0 + i) for i in range(20)]
    await asyncio.gather(*((first, second)[i % 2].add_match(m) for i, m in enumerate(matches)))
    assert await first.live_matches() == matches
    results = await asyncio.gather(
        *(
            (first, second)[i % 2].finish_match(m.id, DRAW, T0 + 100 + i, None)
            for i, m in enumerate(matches)
            for _ in range(2)  # each match finished twice at once: exactly one wins
        )
    )
    assert sum(results) == 20
    assert await second.live_matches() == []


# --- retention (B14) ------------------------------------------------------------------


async def test_the_replays_due_are_the_rules_on_every_store(repo) -> None:
    """The archive's query gives what `retention.replays_due` gives on the same matches:
    rooms by age, ladder matches by each bot's newest, oldest first, bounded."""
    rule = Retention(replay_days=2, ladder_replays=3)
    now = T0 + 10 * DAY_MS
    bots = ("random", "tactical", "strong", new_bot_id(RNG))
    rng = random.Random(33)
    for i in range(60):
        ladder = rng.random() < 0.6
        first, second = rng.sample(bots, 2)
        seats = [Seat(SeatKind.BUILTIN, bot, bot) if bot in bots[:3] else
                 Seat(SeatKind.UPLOAD, bot, "Bot", ALICE) for bot in (first, second)]
        match = make_match(created_ms=T0 + i * DAY_MS // 7, ladder=ladder, p1=seats[0],
                           p2=seats[1])
        await repo.add_match(match)
        if i % 11 != 10:  # a few stay live
            replay = None if i % 13 == 12 else f"replays/{match.id}.jsonl"
            await repo.finish_match(match.id, DRAW, match.created_ms + 1_000, replay)
    stored = [await repo.get_match(m.id) for m in await repo.finished_matches(100)]
    expected = replays_due(stored, rule, now, 100)
    assert 5 < len(expected) < 50  # rooms and ladder matches both due, not all
    assert await repo.replays_due(rule, now, 100) == expected
    assert await repo.replays_due(rule, now, 4) == expected[:4]


async def test_a_swept_match_keeps_its_result_and_loses_replay_and_stderr(
    open_repository,
) -> None:
    repo = await open_repository()
    match = make_match()
    await repo.add_match(match)
    await repo.finish_match(match.id, BOT_FAILED, T0 + 900, "replays/X.jsonl", (b"oops", b""))
    kept = await repo.get_match(match.id)
    assert kept.replay_deleted_ms is None and not kept.replay_deleted  # before any sweep
    assert await repo.mark_replay_deleted(match.id, T0 + 5_000)
    assert not await repo.mark_replay_deleted(match.id, T0 + 6_000)  # once
    assert not await repo.mark_replay_deleted("00000000", T0)
    swept = await (await open_repository()).get_match(match.id)  # another instance reads it
    assert swept == dataclasses.replace(kept, replay=None, replay_deleted_ms=T0 + 5_000)
    assert swept.replay_deleted and swept.result == BOT_FAILED
    assert await repo.match_stderr(match.id) == (b"", b"")
    assert await repo.replays_due(Retention(replay_days=1), T0 + 400 * DAY_MS, 10) == []
    # Live matches and matches without a replay are never marked.
    live = make_match()
    await repo.add_match(live)
    assert not await repo.mark_replay_deleted(live.id, T0)
