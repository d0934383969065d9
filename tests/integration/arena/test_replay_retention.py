"""The retention sweep across instances (spec B14): two instances, each with its own
engine, archive, lease and files store, on one SQLite database and one data directory,
with one fake clock; and `noitu arena sweep` on a real data directory."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from noitu.adapters.arena.files import DataDirFiles
from noitu.adapters.arena.sql.engine import create_engine, default_url
from noitu.adapters.arena.sql.lease import REPLAY_SWEEP, SqlLease
from noitu.adapters.arena.sql.repository import SqlArenaRepository
from noitu.adapters.arena.sql.transactions import SqlTransactions
from noitu.application.arena.retention import DAY_MS, Retention
from noitu.application.arena.sweep_replays import SweepReplays
from noitu.entrypoints.cli.arena_sweep import EXIT_BUSY, sweep_command
from support.arena_databases import DRAW, make_match
from support.arena_store import fresh_data_dir, migrated_template
from support.fakes import FakeClock

RULE = Retention(replay_days=30, ladder_replays=100)


@dataclasses.dataclass
class Instance:
    archive: SqlArenaRepository
    files: DataDirFiles
    lease: SqlLease
    sweep: SweepReplays


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return migrated_template(tmp_path_factory.mktemp("template"))


@pytest.fixture
async def two(template: Path, tmp_path: Path, clock: FakeClock) -> AsyncIterator[list[Instance]]:
    directory = fresh_data_dir(template, tmp_path / "data")
    engines, made = [], []
    for name in ("web-1", "web-2"):
        engine = create_engine(default_url(directory))
        engines.append(engine)
        archive, files = SqlArenaRepository(engine), DataDirFiles(directory)
        lease = SqlLease(SqlTransactions(engine), REPLAY_SWEEP)
        sweep = SweepReplays(archive, files, lease, clock, RULE, name, batch=3)
        made.append(Instance(archive, files, lease, sweep))
    yield made
    for engine in engines:
        await engine.dispose()


async def finish(instance: Instance, ended_ms: int) -> tuple[str, str]:
    """A finished room's match with its replay and stderr; its id and replay name."""
    match = make_match(created_ms=ended_ms - 1_000)
    await instance.archive.add_match(match)
    writer = instance.files.replay_writer(match.id)
    writer.record({"event": "setup", "matchId": match.id})
    name = await writer.finish()
    assert await instance.archive.finish_match(match.id, DRAW, ended_ms, name, (b"x", b"y"))
    return match.id, name


async def test_two_instances_sweep_one_at_a_time_and_delete_each_replay_once(
    two: list[Instance], clock: FakeClock
) -> None:
    first, second = two
    made = [await finish(first, clock.now_ms() + i) for i in range(8)]
    clock.advance(30 * DAY_MS)
    young = await finish(second, clock.now_ms())
    clock.advance(10)  # the first eight finished more than 30 days ago
    # While the first instance holds the sweep's lease, the second does nothing.
    assert await first.lease.acquire("web-1", clock.now_ms(), 60_000)
    skipped = await second.sweep()
    assert skipped.busy and skipped.deleted == 0
    for match_id, name in made:
        assert (await second.archive.get_match(match_id)).replay == name
    await first.lease.release("web-1")
    # Both at once: one sweeps (in batches of 3, renewing its lease), the other skips.
    results = await asyncio.gather(first.sweep(), second.sweep())
    assert sorted(r.busy for r in results) == [False, True]
    assert sum(r.deleted for r in results) == 8
    for match_id, name in made:
        row = await second.archive.get_match(match_id)
        assert row.replay is None and row.replay_deleted_ms == clock.now_ms()
        assert row.result == DRAW  # the result and seats stay
        assert await second.archive.match_stderr(match_id) == (b"", b"")
        with pytest.raises(FileNotFoundError):
            await second.files.read_replay(name)
    assert await first.files.read_replay(young[1])
    again = await asyncio.gather(first.sweep(), second.sweep())
    assert sum(r.deleted for r in again) == 0
    # A lease whose holder died frees up after its minute.
    assert await first.lease.acquire("web-1", clock.now_ms(), 60_000)
    assert (await second.sweep()).busy
    clock.advance(60_000)
    assert not (await second.sweep()).busy


async def test_a_sweep_that_stopped_between_file_and_row_is_finished_by_the_next(
    two: list[Instance], clock: FakeClock
) -> None:
    first, second = two
    match_id, name = await finish(first, clock.now_ms())
    clock.advance(31 * DAY_MS)
    assert await first.files.delete_replay(name) > 0  # the file went, then the crash
    result = await second.sweep()
    assert (result.deleted, result.freed_bytes) == (1, 0)
    assert (await first.archive.get_match(match_id)).replay_deleted


async def test_a_row_naming_no_file_of_the_store_is_marked_and_the_sweep_goes_on(
    two: list[Instance], clock: FakeClock
) -> None:
    """A broken record (a replay name the files store refuses) must not stop every
    hourly sweep: it is marked with nothing deleted, and the rest is swept."""
    first, _ = two
    broken = make_match(created_ms=clock.now_ms() - 1_000)
    await first.archive.add_match(broken)
    bogus = "replays/../../etc/passwd"
    assert await first.archive.finish_match(broken.id, DRAW, clock.now_ms(), bogus, (b"", b""))
    good, name = await finish(first, clock.now_ms() + 1)
    assert good != broken.id
    clock.advance(31 * DAY_MS)
    result = await first.sweep()
    assert result.deleted == 2 and result.freed_bytes > 0
    assert (await first.archive.get_match(broken.id)).replay_deleted
    with pytest.raises(FileNotFoundError):
        await first.files.read_replay(name)


def test_the_cli_sweeps_once_and_says_what_it_deleted(
    template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    directory = fresh_data_dir(template, tmp_path / "data")
    monkeypatch.setenv("NOITU_DATA_DIR", str(directory))
    monkeypatch.setenv("NOITU_ARENA_REPLAY_DAYS", "2")
    now = int(time.time() * 1000)

    async def store() -> list[str]:
        engine = create_engine(default_url(directory))
        instance = Instance(SqlArenaRepository(engine), DataDirFiles(directory), None, None)  # type: ignore[arg-type]
        try:
            old = [await finish(instance, now - 3 * DAY_MS + i) for i in range(2)]
            await finish(instance, now - DAY_MS)
            return [match_id for match_id, _ in old]
        finally:
            await engine.dispose()

    old = asyncio.run(store())
    sweep_command(argparse.Namespace())
    assert capsys.readouterr().out.startswith("deleted 2 replays and their stderr tails, ")
    sweep_command(argparse.Namespace())
    assert capsys.readouterr().out == "no replay is due: nothing deleted\n"

    async def hold() -> None:
        engine = create_engine(default_url(directory))
        try:
            lease = SqlLease(SqlTransactions(engine), REPLAY_SWEEP)
            assert await lease.acquire("serve", int(time.time() * 1000), 60_000)
        finally:
            await engine.dispose()

    asyncio.run(hold())
    with pytest.raises(SystemExit) as busy:
        sweep_command(argparse.Namespace())
    assert busy.value.code == EXIT_BUSY
    assert "another process is sweeping" in capsys.readouterr().err
    assert len(old) == 2
