"""A restarted instance ends its own live ladder pairings at start-up (spec B8, B9), so
their bots are scheduled again at once instead of sitting out the lost-pairing rule's
half hour; another instance's pairings on a shared database are left to it. The real
app on SQLite (the database's only server: every live pairing is this one's) and on
PostgreSQL (shared: only the pairings named after this instance)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from noitu.adapters.arena.sql import migrations
from noitu.adapters.arena.sql.engine import create_engine
from noitu.adapters.arena.sql.ladder import SqlLadder
from noitu.adapters.arena.sql.repository import SqlArenaRepository
from noitu.application.arena.ladder.play_ladder import LOST_PAIRING_MS
from noitu.domain.arena.ladder.members import Member
from noitu.domain.arena.ladder.pairing import Pairing
from support.arena_databases import make_bot
from support.arena_server import build, serving
from support.arena_store import NoSandbox

ME, OTHER = "host-a:8080", "host-b:8080"


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> str:
    return request.param


async def a_previous_run(url: str) -> tuple[Pairing, Pairing]:
    """What a killed server left: an uploaded bot ranked, and two live pairings, one
    played by this instance's driver, one by another instance's, both just started."""
    engine = create_engine(url)
    try:
        await migrations.upgrade(engine)
        repository, ladder = SqlArenaRepository(engine), SqlLadder(engine)
        bot = make_bot(created_ms=1)
        await repository.add_bot(bot)
        assert await ladder.members.rank(Member(bot.id, bot.owner, 1), max_per_owner=3)
        now = int(time.time() * 1000)
        mine = Pairing("00000000000000a1", 1, "random", "tactical", False, now, instance=ME)
        theirs = Pairing("00000000000000b2", 2, "strong", bot.id, False, now, instance=OTHER)
        assert await ladder.pairings.open(mine) and await ladder.pairings.open(theirs)
        return mine, theirs
    finally:
        await engine.dispose()


async def test_a_restarted_instance_schedules_its_pairings_bots_again_at_once(
    database: str, new_url: Callable[[bool], str], tmp_path: Path
) -> None:
    url = new_url(True)
    mine, theirs = await a_previous_run(url)
    env = {"NOITU_ARENA_DATABASE": url, "NOITU_INSTANCE": ME, "NOITU_ARENA_LADDER": "1"}
    async with serving(build(tmp_path / "data", NoSandbox(), env=env)) as served:
        pairings, results = served.container.ladder_pairings(), served.container.ladder_results()
        started = time.monotonic()

        async def random_plays_again() -> bool:
            live = await pairings.live()
            again = any("random" in p.bots and p.id != mine.id for p in live)
            return again or any("random" in (r.p1, r.p2) for r in await results.after(None))

        while not await random_plays_again():
            # at once: not after the lost-pairing rule's half hour
            assert time.monotonic() - started < 30 < LOST_PAIRING_MS / 1000, await pairings.live()
            await asyncio.sleep(0.05)
        live = {pairing.id: pairing for pairing in await pairings.live()}
    assert mine.id not in live
    if database == "postgresql":
        # a shared database: the other instance's pairing is still its own
        assert live.get(theirs.id) == theirs
    else:
        assert theirs.id not in live
