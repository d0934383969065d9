"""The arena's SQL repository itself: its migrations (an empty database, idempotence,
the schema equal to `models.py`, rows from before 0002, two instances migrating at once,
a failed migration, going down and up again), SQLite's settings, the URL forms the
settings accept, and an unreachable database. On SQLite and on PostgreSQL (Debian's,
one throwaway server per session). What every store must do is the contract in
tests/contract/test_arena_storage.py.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from noitu.adapters.arena.sql import migrations
from noitu.adapters.arena.sql.engine import create_engine, default_url, normalize_url
from noitu.adapters.arena.sql.ladder import SqlLadder
from noitu.adapters.arena.sql.models import VERSION_TABLE, metadata
from noitu.adapters.arena.sql.repository import SqlArenaRepository
from noitu.application.arena.records import MatchRecord, new_bot_id
from noitu.application.arena.retention import DAY_MS, Retention
from noitu.application.arena.storage import StorageUnavailable
from noitu.domain.arena.board import Side
from noitu.domain.arena.ladder.results import LadderResult
from noitu.domain.arena.ladder.standings import history_from
from support.arena_databases import ALICE, DRAW, RNG, T0, make_bot, make_match

#: The newest revision (0010: the client address that ranked a ladder member, digested).
HEAD = "0010"


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def url(new_url: Callable[[bool], str]) -> str:
    return new_url(True)


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


async def insert_finished_match(engine: AsyncEngine, match: MatchRecord, **more: str) -> None:
    """`match` as an older revision stored it: finished (a draw at the turn limit), with
    only the columns that revision had, plus `more` (column: value)."""
    columns = "".join(f", {name}" for name in more)
    values = "".join(f", :{name}" for name in more)
    async with engine.begin() as connection:
        await connection.execute(
            text(
                "INSERT INTO arena_matches (id, room, seed, turn_limit, created_ms, p1_kind,"
                " p1_ref, p1_name, p1_owner, p2_kind, p2_ref, p2_name, status, reason, turns,"
                f" finished_ms, runner{columns}) VALUES (:id, :room, 5, 200, :t, 'upload',"
                " :ref, :name, :owner, 'builtin', 'tactical', 'tactical', 'finished',"
                f" 'TURN_LIMIT', 200, :t, ''{values})"
            ),
            {"id": match.id, "room": match.room, "t": T0, "ref": match.p1.ref,
             "name": match.p1.name, "owner": match.p1.owner, **more},
        )


async def test_matches_finished_before_0002_keep_everything_and_have_no_stderr(
    new_url, engines
) -> None:
    engine = create_engine(new_url(False))
    engines.append(engine)
    await migrations.upgrade(engine, "0001")
    old = make_match()
    await insert_finished_match(engine, old)
    await migrations.upgrade(engine)
    repo = SqlArenaRepository(engine)
    stored = await repo.get_match(old.id)
    assert stored is not None and stored.result == DRAW and stored.p1 == old.p1
    assert await repo.match_stderr(old.id) == (b"", b"")


async def test_a_match_stored_before_0009_keeps_its_replay_until_a_sweep_finds_it_due(
    new_url, engines
) -> None:
    engine = create_engine(new_url(False))
    engines.append(engine)
    await migrations.upgrade(engine, "0008")
    old = make_match()
    await insert_finished_match(engine, old, replay=f"replays/{old.id}.jsonl")
    await migrations.upgrade(engine)
    repo = SqlArenaRepository(engine)
    stored = await repo.get_match(old.id)
    assert stored.replay == f"replays/{old.id}.jsonl" and not stored.replay_deleted
    rule = Retention(replay_days=30)
    assert await repo.replays_due(rule, T0 + 30 * DAY_MS, 10) == []
    assert await repo.replays_due(rule, T0 + 30 * DAY_MS + 1, 10) == [stored]
    assert await repo.mark_replay_deleted(old.id, T0 + 31 * DAY_MS)
    assert (await repo.get_match(old.id)).replay_deleted


async def test_ladder_results_stored_before_0008_get_their_points_as_a_rebuild_folds_them(
    new_url, engines
) -> None:
    engine = create_engine(new_url(False))
    engines.append(engine)
    await migrations.upgrade(engine, "0007")
    stored = [
        LadderResult(f"0000000{n}", "pair", f"b{n % 3}", f"b{(n + 1) % 3}", side, n * 1_000)
        for n, side in enumerate((Side.P1, None, Side.P2, Side.P1, Side.P2), start=1)
    ]
    async with engine.begin() as connection:
        for one in stored:
            await connection.execute(
                text(
                    "INSERT INTO arena_ladder_results (match_id, pairing_id, p1, p2, winner,"
                    " ended_ms) VALUES (:m, 'pair', :p1, :p2, :w, :t)"
                ),
                {"m": one.match_id, "p1": one.p1, "p2": one.p2,
                 "w": None if one.winner is None else one.winner.value, "t": one.ended_ms},
            )
        # The standings as a server left them: folded through the fourth result only
        # (it stopped between storing the fifth and folding it in).
        await connection.execute(
            text("INSERT INTO arena_ladder_state (id, through_ms, through_match)"
                 " VALUES (1, 4000, '00000004')")
        )
        for bot in ("b1", "never"):  # ranked: one that played, one that did not
            await connection.execute(
                text("INSERT INTO arena_ladder_members (bot, owner, created_ms,"
                     " failures_in_row, suspended, placement_step)"
                     " VALUES (:bot, 'o', 1, 0, false, NULL)"),
                {"bot": bot},
            )
    await migrations.upgrade(engine)
    ladder = SqlLadder(engine)
    whole = history_from(stored)
    assert await ladder.standings.load() == whole.standings
    for bot in ("b0", "b1", "b2"):
        assert await ladder.history.points(bot, None, 10) == [
            point for point in reversed(whole.points) if point.bot == bot
        ]
    async with engine.connect() as connection:
        stored = await connection.execute(
            text("SELECT bot, ordinal, games FROM arena_ladder_members")
        )
        keys = {row.bot: (row.ordinal, row.games) for row in stored}
    played = whole.standings.of("b1")
    assert keys == {"b1": (played.rating.ordinal, played.games), "never": (0.0, 0)}


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


async def test_on_postgresql_the_files_blobs_are_compressed_with_lz4(
    database: str, url: str, engines, tmp_path: Path
) -> None:
    """0007: a blob stored after the migration is compressed with lz4 (pglz, the
    default, cost the database 20 ms a replay when replays were stored as text) and
    reads back whole. A replay is a zstd frame since B14: PostgreSQL keeps it as it is."""
    if database != "postgresql":
        pytest.skip("SQLite stores blobs as they are")
    from noitu.adapters.arena.sql.files import DatabaseFiles
    from noitu.application.arena.ports import Language
    from noitu.application.arena.replay import end_event
    from noitu.domain.arena.match import EndReason, Result
    from support.fakes import FakeClock

    engine = create_engine(url)
    engines.append(engine)
    async with engine.connect() as connection:
        has_lz4 = await connection.scalar(text(
            "SELECT 'lz4' = ANY(enumvals) FROM pg_settings"
            " WHERE name = 'default_toast_compression'"
        ))
    if not has_lz4:
        pytest.skip("this PostgreSQL was built without lz4")
    store = DatabaseFiles(engine, tmp_path / "data", FakeClock())
    source = b"".join(b"print(%d)\n" % n for n in range(2000))  # past 2 KB: compressed
    source_name = await store.put_source("0123456789abcdef", Language.PYTHON, source)
    writer = store.replay_writer("0A1B2C3D")
    for turn in range(200):
        writer.record({"event": "applied", "turn": turn, "player": "P1",
                       "action": {"type": "PASS"}, "fight": None})
    writer.record(end_event(Result(None, EndReason.TURN_LIMIT, 200)))
    name = await writer.finish()
    async with engine.connect() as connection:
        method = await connection.scalar(
            text("SELECT pg_column_compression(data) FROM arena_files WHERE name = :name"),
            {"name": source_name},
        )
    assert method == "lz4"
    assert await store.read_source(source_name) == source
    lines = (await store.read_replay(name)).splitlines()
    assert len(lines) == 201 and b'"turn":199' in lines[199]


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
