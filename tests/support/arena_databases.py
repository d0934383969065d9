"""The arena's databases for tests: PostgreSQL (Debian's, one throwaway server per
session, one database migrated once and emptied before each test, fresh empty ones on
demand) and SQLite (a copy of a migrated file per test), and records to store in them.

The fixtures are registered by the conftests of the suites that use them; `new_url`
needs a `database` fixture ("sqlite" or "postgresql") from the test module.
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
from sqlalchemy.ext.asyncio import AsyncEngine

from noitu.adapters.arena.sql import migrations
from noitu.application.arena.ports import Language
from noitu.application.arena.records import (
    BotRecord,
    BuildStatus,
    MatchRecord,
    Seat,
    new_bot_id,
    new_owner_key,
    owner_hash,
)
from noitu.application.arena.replay import SeatKind
from noitu.bench.postgres_server import MISSING_REASON, PG_BIN, PostgresServer
from noitu.domain.arena.board import Side
from noitu.domain.arena.failure import FailureCode
from noitu.domain.arena.match import EndReason, Failure, Result

SHARED = "arena_shared"
#: Every table of the arena's database, emptied before each test that shares one.
TABLES = (
    "arena_matches", "arena_upload_events", "arena_bots", "arena_owners",
    "arena_ladder_members", "arena_ladder_results", "arena_ladder_standings",
    "arena_ladder_state", "arena_ladder_busy", "arena_ladder_pairings",
    "arena_ladder_previous", "arena_ladder_lease", "arena_files",
)
T0 = 1_800_000_000_000
_names = itertools.count()


def require_postgres(purpose: str) -> None:
    """Skip without Debian's PostgreSQL, except on CI, where it fails: CI must test
    `purpose`."""
    if PG_BIN is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must test {purpose}: {MISSING_REASON}")
        pytest.skip(MISSING_REASON)


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    require_postgres("the PostgreSQL adapter")
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
                f"TRUNCATE {', '.join(TABLES)}",
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
