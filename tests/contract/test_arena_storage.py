"""The arena's metadata ports, `BotCatalogue` and `MatchArchive`: what the SQL repository
must do on SQLite (a file in a temporary data directory) and on PostgreSQL (Debian's,
one throwaway server per session; one database migrated once and emptied before each
test, and fresh empty ones for the migration tests).

Also here: the migrations (an empty database, idempotence, the schema equal to
`models.py`, two instances migrating at once), the SQLite engine's settings, the URL
forms the settings accept, and the records' own rules (owner keys, display names).
The files store has its own module, tests/unit/arena/test_arena_files.py.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import itertools
import os
import random
import shutil
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from noitu.adapters.arena.sql import migrations
from noitu.adapters.arena.sql.engine import create_engine, default_url, normalize_url
from noitu.adapters.arena.sql.models import VERSION_TABLE, metadata
from noitu.adapters.arena.sql.repository import SqlArenaRepository
from noitu.application.arena.ports import Language
from noitu.application.arena.records import (
    BotRecord,
    BuildStatus,
    MatchRecord,
    MatchStatus,
    Seat,
    bot_display_name,
    new_bot_id,
    new_owner_key,
    owner_hash,
)
from noitu.application.arena.replay import SeatKind
from noitu.application.arena.storage import AlreadyStored, StorageUnavailable
from noitu.bench.postgres_server import MISSING_REASON, PG_BIN, PostgresServer
from noitu.domain.arena.board import Side
from noitu.domain.arena.failure import FailureCode
from noitu.domain.arena.match import EndReason, Failure, Result

DATABASES = ["sqlite", "postgresql"]
#: The newest revision (0002: the matches' stderr tails).
HEAD = "0002"
SHARED = "arena_shared"
T0 = 1_800_000_000_000
_names = itertools.count()


# --- fixtures -------------------------------------------------------------------------


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    if PG_BIN is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must test the PostgreSQL adapter: {MISSING_REASON}")
        pytest.skip(MISSING_REASON)
    server = PostgresServer()
    server.start()
    try:
        _migrate_in_a_thread(server.create_database(SHARED))
        yield server
    finally:
        server.kill()


def _migrate_in_a_thread(url: str) -> None:
    """Session fixtures migrate in a thread of their own: a test's loop may be running."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, migrations.upgrade_url(url)).result()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file at head, copied for each test (migrating one takes ~0.1 s)."""
    path = tmp_path_factory.mktemp("sqlite-template") / "arena.sqlite3"
    _migrate_in_a_thread(f"sqlite:///{path}")
    return path


@pytest.fixture(params=DATABASES)
def database(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def new_url(
    database: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Callable[[bool], str]:
    """URLs of databases of the parametrised kind: a new empty one, or (`migrated`) one
    with no rows — on PostgreSQL the shared database at head, emptied (a CREATE DATABASE
    costs half a second); on SQLite a copy of a migrated file."""
    server: PostgresServer | None = None
    template: Path | None = None
    if database == "postgresql":
        server = request.getfixturevalue("postgres")
    else:
        template = request.getfixturevalue("sqlite_template")

    def make(migrated: bool = False) -> str:
        n = next(_names)
        if server is None:
            assert template is not None
            path = tmp_path / f"data{n}" / "arena.sqlite3"
            path.parent.mkdir()
            if migrated:
                shutil.copy(template, path)
            return f"sqlite:///{path}"
        name = f"arena_{n}"
        if migrated:
            server.psql(
                "TRUNCATE arena_matches, arena_upload_events, arena_bots, arena_owners",
                database=SHARED,
            )
            return server.url(SHARED)
        return server.create_database(name)

    return make


@pytest.fixture
async def engines() -> AsyncIterator[list[AsyncEngine]]:
    """Engines made by a test, disposed of after it."""
    made: list[AsyncEngine] = []
    yield made
    for engine in made:
        await engine.dispose()


@pytest.fixture
def url(new_url: Callable[[bool], str]) -> str:
    return new_url(True)


@pytest.fixture
async def open_repository(
    url: str, engines: list[AsyncEngine]
) -> Callable[[], object]:
    """Opens the test's database as a server would at start-up: a new engine, the
    migrations, the repository. Each call is another process/instance."""

    async def open_() -> SqlArenaRepository:
        engine = create_engine(url)
        engines.append(engine)
        await migrations.upgrade(engine)
        return SqlArenaRepository(engine)

    return open_


@pytest.fixture
async def repo(open_repository) -> SqlArenaRepository:
    return await open_repository()


# --- records to store -----------------------------------------------------------------

RNG = random.Random(12)
ALICE = owner_hash(new_owner_key(RNG))
BOB = owner_hash(new_owner_key(RNG))


def make_bot(owner: str = ALICE, created_ms: int = T0, **changes: object) -> BotRecord:
    bot_id = changes.pop("id", None) or new_bot_id(RNG)
    bot = BotRecord(
        id=bot_id,  # type: ignore[arg-type]
        owner=owner,
        name="Bot Việt Nam số 1",
        language=Language.CPP,
        public=False,
        created_ms=created_ms,
        source_bytes=1234,
        build=BuildStatus.OK,
        build_messages="",
        source_file=f"bots/{bot_id}/source.cpp",
        artefact_dir=f"bots/{bot_id}/artefact",
    )
    return dataclasses.replace(bot, **changes)  # type: ignore[arg-type]


_match_ids = itertools.count(0xA0000000)


def make_match(created_ms: int = T0, p1_owner: str = ALICE, **changes: object) -> MatchRecord:
    match = MatchRecord(
        id=f"{next(_match_ids):08X}",
        room="K7MPQ2",
        seed=2**63 - 1,
        turn_limit=200,
        created_ms=created_ms,
        p1=Seat(SeatKind.UPLOAD, new_bot_id(RNG), "Bot của An", p1_owner),
        p2=Seat(SeatKind.BUILTIN, "tactical", "tactical"),
    )
    return dataclasses.replace(match, **changes)  # type: ignore[arg-type]


BOT_FAILED = Result(
    winner=Side.P1,
    reason=EndReason.BOT_FAILED,
    turns=57,
    failure=Failure(Side.P2, FailureCode.TIMEOUT, "Bot không trả lời trong 2 giây."),
)
DRAW = Result(winner=None, reason=EndReason.TURN_LIMIT, turns=200)


# --- owners and uploads ---------------------------------------------------------------


async def test_an_owner_is_created_once(repo) -> None:
    assert await repo.get_owner(ALICE) is None
    first = await repo.ensure_owner(ALICE, T0)
    again = await repo.ensure_owner(ALICE, T0 + 5_000)
    assert first == again
    assert first.key_hash == ALICE and first.created_ms == T0
    assert await repo.get_owner(ALICE) == first


async def test_uploads_are_admitted_up_to_the_limit_per_window(repo) -> None:
    window, limit = 60_000, 3
    admitted = [
        await repo.record_upload(ALICE, T0 + i * 1_000, window_ms=window, limit=limit)
        for i in range(5)
    ]
    assert admitted == [True, True, True, False, False]
    assert await repo.get_owner(ALICE) is not None  # created by the first upload
    assert await repo.uploads_since(ALICE, T0 - window) == 3
    assert await repo.uploads_since(ALICE, T0) == 2  # strictly after
    # Another owner has a window of its own.
    assert await repo.record_upload(BOB, T0 + 4_000, window_ms=window, limit=limit)
    # The first upload leaves the window at T0 + 60 s: one place again, and only one.
    assert not await repo.record_upload(ALICE, T0 + 59_999, window_ms=window, limit=limit)
    assert await repo.record_upload(ALICE, T0 + 60_000, window_ms=window, limit=limit)
    assert not await repo.record_upload(ALICE, T0 + 60_500, window_ms=window, limit=limit)
    # Events that left the window are forgotten, not just skipped.
    assert await repo.uploads_since(ALICE, 0) == 3
    assert await repo.uploads_since(BOB, 0) == 1


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
    assert await first.uploads_since(ALICE, 0) == 5


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
    owner = await repo.get_owner(ALICE)  # created by the first bot
    assert owner is not None and owner.created_ms == T0


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


async def test_finished_matches_page_latest_first(repo) -> None:
    carol = owner_hash(new_owner_key(RNG))
    finished = []
    for i in range(8):
        seats = {}
        if i % 3 == 1:
            seats = {"p2": Seat(SeatKind.PERSON, "Chi", "Chi", carol)}
        match = make_match(created_ms=T0 + i, p1_owner=(ALICE, BOB)[i % 2], **seats)
        await repo.add_match(match)
        # Two pairs finish in the same millisecond: ties go by id.
        await repo.finish_match(match.id, DRAW, T0 + 1_000 + i // 2, None)
        finished.append(await repo.get_match(match.id))
    await repo.add_match(make_match(created_ms=T0 + 99))  # live: never listed
    latest = sorted(finished, key=lambda m: (m.finished_ms, m.id), reverse=True)
    assert await repo.finished_matches(limit=50) == latest
    pages, before = [], None
    while page := await repo.finished_matches(limit=3, before=before):
        pages.append(page)
        before = page[-1].cursor
    assert [m for p in pages for m in p] == latest and len(pages) == 3
    of_carol = await repo.finished_matches(limit=50, owner=carol)
    assert of_carol == [m for m in latest if m.p2.owner == carol] and len(of_carol) == 3
    of_bob = await repo.finished_matches(limit=2, owner=BOB)
    assert of_bob == [m for m in latest if BOB in (m.p1.owner, m.p2.owner)][:2]
    rest = await repo.finished_matches(limit=50, before=of_bob[-1].cursor, owner=BOB)
    assert of_bob + rest == [m for m in latest if BOB in (m.p1.owner, m.p2.owner)]


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
    # Abandoned in the same millisecond: ties go by id, latest id first.
    assert [m.id for m in await after.finished_matches(limit=10)] == [placing.id, live.id, done.id]


async def test_abandon_live_can_keep_to_one_runner(repo) -> None:
    mine, theirs = make_match(runner="a"), make_match(created_ms=T0 + 1, runner="b")
    await repo.add_match(mine)
    await repo.add_match(theirs)
    assert await repo.abandon_live(T0 + 100, runner="a") == 1
    assert await repo.live_matches() == [theirs]
    assert (await repo.get_match(mine.id)).result.reason is EndReason.ABANDONED


async def test_concurrent_match_writes(open_repository) -> None:
    first, second = await open_repository(), await open_repository()
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
    assert len(await second.finished_matches(limit=100)) == 20


async def test_an_unreachable_database_is_storage_unavailable(engines) -> None:
    from noitu.bench.postgres_server import free_port

    engine = create_engine(f"postgresql://nobody@127.0.0.1:{free_port()}/none")
    engines.append(engine)
    with pytest.raises(StorageUnavailable):
        await SqlArenaRepository(engine).get_bot(new_bot_id(RNG))


# --- migrations -----------------------------------------------------------------------


def _tables(connection) -> set[str]:
    return set(inspect(connection).get_table_names())


def _schema_diff(connection) -> list[object]:
    context = MigrationContext.configure(
        connection, opts={"version_table": VERSION_TABLE, "compare_type": True}
    )
    return compare_metadata(context, metadata)


async def test_migrations_build_an_empty_database_and_are_idempotent(
    new_url, engines
) -> None:
    engine = create_engine(new_url(False))
    engines.append(engine)
    assert await migrations.current_revision(engine) is None
    async with engine.connect() as connection:
        assert await connection.run_sync(_tables) == set()
    await migrations.upgrade(engine)
    assert await migrations.current_revision(engine) == migrations.head_revision() == HEAD
    async with engine.connect() as connection:
        assert await connection.run_sync(_tables) == {*metadata.tables, VERSION_TABLE}
    repo = SqlArenaRepository(engine)
    bot = make_bot()
    await repo.add_bot(bot)
    await migrations.upgrade(engine)  # again: nothing changes, nothing is lost
    await migrations.upgrade_url(str(engine.url.render_as_string(hide_password=False)))
    assert await migrations.current_revision(engine) == HEAD
    assert await repo.get_bot(bot.id) == bot


async def test_matches_finished_before_0002_keep_everything_and_have_no_stderr(
    new_url, engines
) -> None:
    engine = create_engine(new_url(False))
    engines.append(engine)
    await migrations.upgrade(engine, "0001")
    old = make_match()
    async with engine.begin() as connection:
        await connection.execute(
            text(
                "INSERT INTO arena_matches (id, room, seed, turn_limit, created_ms, p1_kind,"
                " p1_ref, p1_name, p1_owner, p2_kind, p2_ref, p2_name, status, reason, turns,"
                " finished_ms, runner) VALUES (:id, :room, 5, 200, :t, 'upload', :ref, :name,"
                " :owner, 'builtin', 'tactical', 'tactical', 'finished', 'TURN_LIMIT', 200,"
                " :t, '')"
            ),
            {"id": old.id, "room": old.room, "t": T0, "ref": old.p1.ref, "name": old.p1.name,
             "owner": old.p1.owner},
        )
    await migrations.upgrade(engine)
    repo = SqlArenaRepository(engine)
    stored = await repo.get_match(old.id)
    assert stored is not None and stored.result == DRAW and stored.p1 == old.p1
    assert await repo.match_stderr(old.id) == (b"", b"")


async def test_the_migrated_schema_is_the_models(url, engines) -> None:
    engine = create_engine(url)
    engines.append(engine)
    await migrations.upgrade(engine)
    async with engine.connect() as connection:
        assert await connection.run_sync(_schema_diff) == []


async def test_two_instances_migrating_at_once(new_url, engines) -> None:
    target = new_url(False)
    both = [create_engine(target) for _ in range(3)]
    engines.extend(both)
    await asyncio.gather(*(migrations.upgrade(engine) for engine in both))
    assert {await migrations.current_revision(e) for e in both} == {HEAD}


BROKEN_REVISION = """
import sqlalchemy as sa
from alembic import op

revision = "0999"
down_revision = "%s"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table("arena_half_done", sa.Column("id", sa.Integer, primary_key=True))
    op.add_column("arena_bots", sa.Column("half", sa.Integer, nullable=True))
    raise RuntimeError("the migration breaks half-way")


def downgrade():
    pass
"""


async def test_a_failed_migration_leaves_nothing_behind(
    new_url, engines, tmp_path, monkeypatch
) -> None:
    engine = create_engine(new_url(False))
    engines.append(engine)
    await migrations.upgrade(engine)
    versions = tmp_path / "versions"
    versions.mkdir()
    for revision in migrations.VERSIONS.glob("0*.py"):
        shutil.copy(revision, versions)
    (versions / "0999_broken.py").write_text(BROKEN_REVISION % HEAD)
    monkeypatch.setattr(migrations, "VERSIONS", versions)
    with pytest.raises(RuntimeError, match="half-way"):
        await migrations.upgrade(engine)
    assert await migrations.current_revision(engine) == HEAD
    async with engine.connect() as connection:
        assert await connection.run_sync(_tables) == {*metadata.tables, VERSION_TABLE}
        assert await connection.run_sync(_schema_diff) == []


async def test_downgrade_and_upgrade_again(new_url, engines) -> None:
    engine = create_engine(new_url(False))
    engines.append(engine)
    await migrations.upgrade(engine)

    def down(connection) -> None:
        from alembic import command

        config = migrations.alembic_config()
        config.attributes["connection"] = connection
        command.downgrade(config, "base")

    async with engine.begin() as connection:
        await connection.run_sync(down)
    async with engine.connect() as connection:
        assert await connection.run_sync(_tables) == {VERSION_TABLE}
    await migrations.upgrade(engine)
    assert await migrations.current_revision(engine) == HEAD


# --- SQLite specifics, URLs and records -----------------------------------------------


async def test_sqlite_runs_in_wal_mode_with_foreign_keys(tmp_path, engines) -> None:
    engine = create_engine(default_url(tmp_path / "data"))
    engines.append(engine)
    await migrations.upgrade(engine)
    assert (tmp_path / "data" / "arena.sqlite3").is_file()
    async with engine.connect() as connection:
        assert (await connection.exec_driver_sql("PRAGMA journal_mode")).scalar() == "wal"
        assert (await connection.exec_driver_sql("PRAGMA foreign_keys")).scalar() == 1
    with pytest.raises(IntegrityError):  # a bot whose owner does not exist: refused
        async with engine.begin() as connection:
            await connection.execute(
                text(
                    "INSERT INTO arena_bots (id, owner, name, language, public, created_ms,"
                    " source_bytes, build_status, build_messages, source_file)"
                    " VALUES ('0123456789abcdef', :owner, 'x', 'python', 0, 1, 1, 'ok', '', 'f')"
                ),
                {"owner": ALICE},
            )


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("sqlite:////var/lib/noitu/a.db", "sqlite+aiosqlite:////var/lib/noitu/a.db"),
        ("sqlite+aiosqlite:///rel/a.db", "sqlite+aiosqlite:///rel/a.db"),
        ("postgresql://u:p%40ss@db:5433/noitu", "postgresql+asyncpg://u:p%40ss@db:5433/noitu"),
        ("postgres://u@db/noitu", "postgresql+asyncpg://u@db/noitu"),
        ("postgresql+asyncpg://u@db/noitu", "postgresql+asyncpg://u@db/noitu"),
    ],
)
def test_database_urls_are_normalized(given: str, expected: str) -> None:
    assert normalize_url(given) == expected


@pytest.mark.parametrize(
    "given",
    ["", "mysql://u@h/db", "sqlite://", "sqlite:///:memory:", "postgresql:///noitu", "not a url"],
)
def test_unsupported_database_urls_are_refused(given: str) -> None:
    with pytest.raises(ValueError):
        normalize_url(given)


def test_the_default_database_is_a_file_in_the_data_directory(tmp_path) -> None:
    assert default_url(tmp_path) == f"sqlite+aiosqlite:///{tmp_path}/arena.sqlite3"


def test_owner_keys_are_stored_only_as_their_hash() -> None:
    key = new_owner_key(random.Random(1))
    assert len(key) == 32 and int(key, 16) >= 0
    digest = owner_hash(key)
    assert len(digest) == 64 and key not in digest
    assert digest == owner_hash(key)
    for bad in ("", key.upper(), key[:-1], key + "0", "g" * 32, f" {key}"[:32]):
        with pytest.raises(ValueError):
            owner_hash(bad)


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("Đấu sĩ Ưng", "Đấu sĩ Ưng"),
        ("bot_v2.final", "bot_v2.final"),
        ("Tie\u0302\u0301ng Vie\u0323\u0302t", "Tiếng Việt"),  # decomposed → NFC
        ("../../etc/passwd", ".. .. etc passwd"),
        ("a\x00b\nc\u202ed<script>", "a b c d script"),
        ("   ", "bot"),
        ("\u0301\u0301", "bot"),
        ("ấ" * 50, "ấ" * 40),
        ("x" * 39 + " y", "x" * 39),
    ],
)
def test_display_names_are_cleaned(raw: str, name: str) -> None:
    assert bot_display_name(raw) == name


def test_records_refuse_what_would_corrupt_the_store() -> None:
    with pytest.raises(ValueError):
        make_bot(id="../../etc/passwd")
    with pytest.raises(ValueError):
        make_bot(name="x" * 41)
    with pytest.raises(ValueError):
        make_match(id="a0000000")  # lower case
    with pytest.raises(ValueError):
        make_match(seed=2**63)
    with pytest.raises(ValueError):
        make_match(status=MatchStatus.FINISHED)  # no result
    with pytest.raises(ValueError):
        Seat(SeatKind.BUILTIN, "random", "random", ALICE)
    with pytest.raises(ValueError):
        Seat(SeatKind.UPLOAD, "not-a-bot-id", "x", ALICE)
    assert len({new_bot_id(RNG) for _ in range(1000)}) == 1000
