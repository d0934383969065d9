"""`noitu arena ladder rebuild` as an operator runs it: a real process on a real SQLite
database, after a ladder played live through the use cases over the SQL stores. The
rebuild gives the live table again, twice over, and answers busy while the scheduler's
lease is held elsewhere."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from noitu.adapters.arena.builtin import BuiltinBots
from noitu.adapters.arena.sql import migrations
from noitu.adapters.arena.sql.engine import SQLITE_FILE, create_engine
from noitu.adapters.arena.sql.ladder import SqlLadder
from noitu.application.arena.ladder.record_ladder_result import (
    RecordLadderResult,
    RecordLadderResultCommand,
)
from noitu.application.arena.ladder.show_ladder import ShowLadder
from noitu.domain.arena.board import Side
from noitu.domain.arena.ladder.members import Member
from noitu.domain.arena.ladder.pairing import Pairing
from noitu.domain.arena.match import EndReason, Result
from support.fakes import FakeClock

ROOT = Path(__file__).resolve().parents[3]
NOITU = [sys.executable, "-m", "noitu.entrypoints.cli"]
OWNER = "c" * 64


def rebuild(data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NOITU_DATA_DIR": str(data_dir)}
    env.pop("NOITU_ARENA_DATABASE", None)
    return subprocess.run(
        [*NOITU, "arena", "ladder", "rebuild", "--json"],
        capture_output=True, text=True, timeout=120, env=env, cwd=ROOT,
    )


async def play_a_ladder(data_dir: Path) -> list[dict[str, object]]:
    """Forty pairings among the built-ins and three uploaded bots, recorded live; the
    live table as the CLI's rows (bot, μ, σ, games)."""
    engine = create_engine(f"sqlite:///{data_dir / SQLITE_FILE}")
    try:
        await migrations.upgrade(engine)
        ladder, clock, rng = SqlLadder(engine), FakeClock(), random.Random(5)
        for n in range(3):
            await ladder.members.rank(Member(f"{n:016x}", OWNER, n + 1), max_per_owner=3)
        bots = [*BuiltinBots.names(), *(member.bot for member in await ladder.members.members())]
        record = RecordLadderResult(
            ladder.results, ladder.standings, ladder.members, ladder.pairings, BuiltinBots,
            clock, rng,
        )
        match = 0
        for n in range(40):
            first, second = rng.sample(bots, 2)
            pairing = Pairing(f"{n:016x}", n, first, second, placement=False, started_ms=0)
            assert await ladder.pairings.open(pairing)
            for index in (0, 1):
                match += 1
                clock.advance(1_000)
                winner = rng.choice([Side.P1, Side.P2, None])
                result = Result(winner, EndReason.TURN_LIMIT if winner is None
                                else EndReason.NO_PIECES, 40)
                p1, p2 = pairing.seats(index)
                await record(RecordLadderResultCommand(
                    pairing.id, f"{match:08X}", p1, p2, result, clock.now_ms(),
                ))
        table = await ShowLadder(ladder.members, ladder.standings, BuiltinBots)()
        return [
            {"botId": row.bot, "mu": row.mu, "sigma": row.sigma, "games": row.games}
            for row in table
        ]
    finally:
        await engine.dispose()


def same_table(one: list[dict], other: list[dict]) -> None:
    assert [row["botId"] for row in one] == [row["botId"] for row in other]
    for mine, theirs in zip(one, other, strict=True):
        assert mine["games"] == theirs["games"]
        assert mine["mu"] == pytest.approx(theirs["mu"], abs=1e-9)
        assert mine["sigma"] == pytest.approx(theirs["sigma"], abs=1e-9)


async def test_a_rebuild_gives_the_live_table_and_again_the_same(tmp_path):
    live = await play_a_ladder(tmp_path)
    first, second = rebuild(tmp_path), rebuild(tmp_path)
    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    once, twice = json.loads(first.stdout), json.loads(second.stdout)
    assert once["results"] == twice["results"] == 80
    same_table(once["rows"], live)
    same_table(twice["rows"], once["rows"])
    assert [row["rank"] for row in once["rows"]] == list(range(1, len(live) + 1))


async def test_a_rebuild_while_the_scheduler_holds_the_lease_is_busy(tmp_path):
    engine = create_engine(f"sqlite:///{tmp_path / SQLITE_FILE}")
    try:
        await migrations.upgrade(engine)
        lease = SqlLadder(engine).lease
        assert await lease.acquire("scheduler", int(time.time() * 1000), 600_000)
        done = rebuild(tmp_path)
        assert done.returncode == 75, done.stderr
        assert "bảng xếp hạng đang được" in done.stderr and done.stdout == ""
        await lease.release("scheduler")
        assert rebuild(tmp_path).returncode == 0
    finally:
        await engine.dispose()
