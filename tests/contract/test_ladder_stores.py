"""The ladder's ports (spec B8), as every store must keep them: results in their order
and told once, standings written by compare-and-set, the ranked bots' cap checked in the
same write, a bot in one live pairing at a time, one lease holder — on the in-memory
stores the unit tests use and the SQL stores on SQLite and PostgreSQL.

`open_stores` opens the stores as a server would at start-up; each call is another
instance (in memory, the one process's stores again), so the races below are between
instances, as they would be between servers sharing the database.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from noitu.adapters.arena.sql import migrations
from noitu.adapters.arena.sql.engine import create_engine
from noitu.adapters.arena.sql.ladder import SqlLadder
from noitu.domain.arena.board import Side
from noitu.domain.arena.ladder.members import Member
from noitu.domain.arena.ladder.pairing import Pairing, PairingEnd
from noitu.domain.arena.ladder.results import LadderResult
from noitu.domain.arena.ladder.standings import Standings
from support.ladder import (
    MemoryLease,
    MemoryMembers,
    MemoryPairings,
    MemoryResults,
    MemoryStandings,
)

OWNER, OTHER = "a" * 64, "b" * 64


@dataclass
class LadderStores:
    results: Any
    standings: Any
    members: Any
    pairings: Any
    lease: Any


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
async def open_stores(
    database: str, request: pytest.FixtureRequest, engines: list[AsyncEngine]
) -> Callable[[], Awaitable[LadderStores]]:
    if database == "memory":
        shared = LadderStores(
            MemoryResults(), MemoryStandings(), MemoryMembers(), MemoryPairings(),
            MemoryLease(),
        )

        async def the_same() -> LadderStores:
            return shared

        return the_same
    url = request.getfixturevalue("new_url")(True)

    async def open_() -> LadderStores:
        engine = create_engine(url)
        engines.append(engine)
        await migrations.upgrade(engine)
        ladder = SqlLadder(engine)
        return LadderStores(
            ladder.results, ladder.standings, ladder.members, ladder.pairings, ladder.lease
        )

    return open_


@pytest.fixture
async def stores(open_stores: Callable[[], Awaitable[LadderStores]]) -> LadderStores:
    return await open_stores()


def result(match_id: str, at: int, p1: str = "x", p2: str = "y") -> LadderResult:
    return LadderResult(match_id, "pair", p1, p2, Side.P1, at)


async def test_results_come_back_in_end_time_then_match_id_order(stores):
    for one in (result("0000000C", 20), result("0000000B", 10), result("0000000A", 10)):
        assert await stores.results.append(one)
    assert [r.match_id for r in await stores.results.after(None)] == [
        "0000000A", "0000000B", "0000000C",
    ]
    after = await stores.results.after(result("0000000A", 10).key)
    assert [r.match_id for r in after] == ["0000000B", "0000000C"]


async def test_rated_says_which_matches_are_stored(stores):
    assert await stores.results.rated(["0000000A"]) == set()
    assert await stores.results.append(result("0000000A", 10))
    assert await stores.results.append(result("0000000B", 11))
    assert await stores.results.rated(["0000000A", "0000000C", "0000000B"]) == {
        "0000000A", "0000000B",
    }
    assert await stores.results.rated([]) == set()


async def test_a_result_is_stored_once(stores):
    assert await stores.results.append(result("0000000A", 10))
    assert not await stores.results.append(result("0000000A", 99, "y", "x"))
    (kept,) = await stores.results.after(None)
    assert kept == result("0000000A", 10)


async def test_standings_are_replaced_only_from_what_the_writer_read(stores):
    first = Standings().after(result("0000000A", 10))
    assert await stores.standings.replace(first, expected=None)
    second = first.after(result("0000000B", 20))
    assert not await stores.standings.replace(second, expected=None)  # stale writer
    assert await stores.standings.load() == first
    assert await stores.standings.replace(second, expected=first.through)
    assert await stores.standings.load() == second


async def test_members_the_cap_per_owner_is_checked_in_the_same_write(stores):
    for bot in ("m1", "m2"):
        assert await stores.members.rank(Member(bot, OWNER, 1), max_per_owner=2)
    assert not await stores.members.rank(Member("m3", OWNER, 1), max_per_owner=2)
    assert await stores.members.rank(Member("m1", OWNER, 1), max_per_owner=2)  # ranked already
    assert await stores.members.rank(Member("o1", OTHER, 1), max_per_owner=2)
    assert [m.bot for m in await stores.members.members()] == ["m1", "m2", "o1"]
    await stores.members.update("m1", lambda m: replace(m, suspended=True))
    assert not await stores.members.rank(Member("m3", OWNER, 1), max_per_owner=2)  # still counts


async def test_members_update_and_unrank(stores):
    await stores.members.rank(Member("m1", OWNER, 1), max_per_owner=3)
    changed = await stores.members.update("m1", lambda m: m.after_match(failed=True))
    assert changed.failures_in_row == 1 and (await stores.members.get("m1")) == changed
    assert await stores.members.update("nobody", lambda m: m) is None
    assert await stores.members.unrank("m1") and not await stores.members.unrank("m1")
    assert await stores.members.get("m1") is None


def pairing(pairing_id: str, first: str, second: str) -> Pairing:
    return Pairing(pairing_id, 1, first, second, placement=False, started_ms=0)


async def test_pairings_a_bot_is_in_one_live_pairing_at_a_time(stores):
    assert await stores.pairings.open(pairing("p1", "a", "b"))
    assert not await stores.pairings.open(pairing("p2", "b", "c"))
    assert await stores.pairings.open(pairing("p3", "c", "d"))
    assert {p.id for p in await stores.pairings.live()} == {"p1", "p3"}


async def test_pairings_update_is_all_or_nothing(stores):
    await stores.pairings.open(pairing("p1", "a", "b"))
    end = PairingEnd("0000000A", True, "a")
    changed = await stores.pairings.update("p1", lambda p: p.with_end(end))
    assert changed.ends == (end,)

    def refuse(_: Pairing) -> Pairing:
        raise LookupError("not these bots")

    with pytest.raises(LookupError):
        await stores.pairings.update("p1", refuse)
    assert (await stores.pairings.live())[0] == changed
    assert await stores.pairings.update("nope", lambda p: p) is None


async def test_pairings_close_starts_the_replay_in_the_same_write(stores):
    await stores.pairings.open(pairing("p1", "a", "b"))
    again = replace(pairing("p2", "a", "b"), seed=2)
    await stores.pairings.close("p1", again)
    assert await stores.pairings.live() == [again]
    assert not await stores.pairings.open(pairing("p3", "a", "c"))  # still busy
    await stores.pairings.close("p2")
    assert await stores.pairings.previous_opponents() == {"a": "b", "b": "a"}
    await stores.pairings.open(pairing("p4", "c", "a"))
    await stores.pairings.close("p4")
    assert (await stores.pairings.previous_opponents())["a"] == "c"


async def test_the_lease_has_one_holder_until_released_or_expired(stores):
    assert await stores.lease.acquire("one", 1_000, 500)
    assert await stores.lease.acquire("one", 1_100, 500)  # renewed by its holder
    assert not await stores.lease.acquire("two", 1_500, 500)
    await stores.lease.release("two")  # not the holder's: no effect
    assert not await stores.lease.acquire("two", 1_599, 500)
    assert await stores.lease.acquire("two", 1_600, 500)  # expired
    await stores.lease.release("two")
    assert await stores.lease.acquire("one", 1_601, 500)


async def test_a_released_lease_is_free_at_once(stores):
    assert await stores.lease.acquire("one", 1_000, 30_000)
    await stores.lease.release("one")
    assert await stores.lease.acquire("two", 1_001, 30_000)


async def test_a_pairing_keeps_its_seed_placement_and_start(stores):
    kept = Pairing("p1", 2**63 - 1, "a", "b", placement=True, started_ms=1_800_000_000_000)
    await stores.pairings.open(kept)
    assert await stores.pairings.live() == [kept]
    draw = PairingEnd("0000000B", True, None)
    changed = await stores.pairings.update("p1", lambda p: p.with_end(draw))
    assert (await stores.pairings.live()) == [changed] and changed.ends == (draw,)


async def test_standings_keep_floats_exactly_and_the_key(stores):
    standings = Standings()
    for n in range(1, 6):
        standings = standings.after(result(f"0000000{n}", n * 10, p1=f"b{n % 2}", p2="c"))
    assert await stores.standings.replace(standings, expected=None)
    loaded = await stores.standings.load()
    assert loaded == standings and loaded.through == result("00000005", 50).key
    assert await stores.standings.replace(Standings(), expected=standings.through)
    assert await stores.standings.load() == Standings()


# --- races between instances ---------------------------------------------------------


async def test_two_instances_writing_standings_at_once_one_wins(open_stores):
    instances = [await open_stores() for _ in range(4)]
    base = Standings().after(result("0000000A", 10))
    assert await instances[0].standings.replace(base, expected=None)
    attempts = [
        base.after(result(f"0000001{n}", 20 + n, p1=f"w{n}")) for n in range(len(instances))
    ]
    won = await asyncio.gather(*(
        one.standings.replace(standings, expected=base.through)
        for one, standings in zip(instances, attempts, strict=True)
    ))
    assert sum(won) == 1
    assert await instances[0].standings.load() == attempts[won.index(True)]


async def test_an_owner_ranking_from_several_instances_at_once_stays_under_the_cap(open_stores):
    instances = [await open_stores() for _ in range(6)]
    ranked = await asyncio.gather(*(
        one.members.rank(Member(f"m{n}", OWNER, 1), max_per_owner=3)
        for n, one in enumerate(instances)
    ))
    assert sum(ranked) == 3
    assert len(await instances[0].members.members()) == 3


async def test_pairings_opened_at_once_take_each_bot_once(open_stores):
    instances = [await open_stores() for _ in range(4)]
    opened = await asyncio.gather(*(
        one.pairings.open(pairing(f"p{n}", "shared", f"x{n}"))
        for n, one in enumerate(instances)
    ))
    assert sum(opened) == 1
    (live,) = await instances[0].pairings.live()
    assert live.id == f"p{opened.index(True)}"


async def test_the_lease_asked_for_at_once_has_one_holder(open_stores):
    instances = [await open_stores() for _ in range(4)]
    taken = await asyncio.gather(*(
        one.lease.acquire(f"h{n}", 1_000, 30_000) for n, one in enumerate(instances)
    ))
    assert sum(taken) == 1


async def test_results_appended_at_once_are_stored_once(open_stores):
    instances = [await open_stores() for _ in range(4)]
    stored = await asyncio.gather(*(
        one.results.append(result("0000000A", 10 + n)) for n, one in enumerate(instances)
    ))
    assert sum(stored) == 1
    assert len(await instances[0].results.after(None)) == 1


async def test_a_pairing_keeps_the_instance_playing_it(stores):
    mine = replace(pairing("p1", "a", "b"), instance="host-1:8080")
    await stores.pairings.open(mine)
    assert await stores.pairings.live() == [mine]
    end = PairingEnd("0000000C", True, "a")
    changed = await stores.pairings.update("p1", lambda p: p.with_end(end))
    assert changed.instance == "host-1:8080" and await stores.pairings.live() == [changed]
    again = replace(pairing("p2", "a", "b"), instance="host-2:8080")
    await stores.pairings.close("p1", again)
    assert [p.instance for p in await stores.pairings.live()] == ["host-2:8080"]


async def test_ending_an_instances_live_pairings_leaves_the_others_and_frees_its_bots(stores):
    await stores.pairings.open(replace(pairing("p1", "a", "b"), instance="one"))
    await stores.pairings.open(replace(pairing("p2", "c", "d"), instance="two"))
    await stores.pairings.open(replace(pairing("p3", "e", "f"), instance="one"))
    await stores.pairings.open(pairing("p4", "g", "h"))  # no instance known
    assert await stores.pairings.end_live("one") == 2
    assert {p.id for p in await stores.pairings.live()} == {"p2", "p4"}
    # its bots are free at once, the others' still busy
    assert await stores.pairings.open(replace(pairing("p5", "b", "e"), instance="one"))
    assert not await stores.pairings.open(pairing("p6", "a", "c"))
    # a pairing dropped unfinished names nobody's previous opponent
    assert await stores.pairings.previous_opponents() == {}
    assert await stores.pairings.end_live("one") == 1
    assert await stores.pairings.end_live("nobody") == 0


async def test_ending_every_live_pairing(stores):
    await stores.pairings.open(replace(pairing("p1", "a", "b"), instance="one"))
    await stores.pairings.open(pairing("p2", "c", "d"))
    assert await stores.pairings.end_live(None) == 2
    assert await stores.pairings.live() == []
    assert await stores.pairings.open(pairing("p3", "a", "d"))
    assert await stores.pairings.end_live(None) == 1
    assert await stores.pairings.end_live(None) == 0
