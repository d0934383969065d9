"""The ladder's ports (spec B8), as every store must keep them: results in their order
and told once, stored with the standings and points they move by compare-and-set,
each bot's points read newest first a page at a time and as of a past result, the
ranked bots' cap checked in the same write, a bot in one live pairing at a time, one
lease holder — on the in-memory stores the unit tests use and the SQL stores on SQLite
and PostgreSQL.

`open_stores` opens the stores as a server would at start-up; each call is another
instance (in memory, the one process's stores again), so the races below are between
instances, as they would be between servers sharing the database.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from noitu.adapters.arena.sql import migrations
from noitu.adapters.arena.sql.engine import create_engine
from noitu.adapters.arena.sql.ladder import SqlLadder
from noitu.adapters.arena.sql.repository import SqlArenaRepository
from noitu.application.arena.ladder.history import fold_in
from noitu.application.arena.ladder.ports import Written
from noitu.domain.arena.board import Side
from noitu.domain.arena.ladder.members import Member, address_digest, founding_members
from noitu.domain.arena.ladder.pairing import Pairing, PairingEnd
from noitu.domain.arena.ladder.results import LadderResult
from noitu.domain.arena.ladder.standings import Standings, history_from
from noitu.domain.arena.ladder.table import ladder_table, table_row
from support.arena_databases import make_bot
from support.ladder import (
    MemoryBots,
    MemoryLease,
    MemoryListing,
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
    history: Any
    listing: Any
    bots: Any  # the arena's catalogue (`add_bot`), whose names the table shows


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
async def open_stores(
    database: str, request: pytest.FixtureRequest, engines: list[AsyncEngine]
) -> Callable[[], Awaitable[LadderStores]]:
    if database == "memory":
        results, members, bots = MemoryResults(), MemoryMembers(), MemoryBots()
        standings = MemoryStandings(results)
        shared = LadderStores(
            results, standings, members, MemoryPairings(), MemoryLease(), standings,
            MemoryListing(members, standings, bots), bots,
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
            ladder.results, ladder.standings, ladder.members, ladder.pairings, ladder.lease,
            ladder.history, ladder.listing, SqlArenaRepository(engine),
        )

    return open_


@pytest.fixture
async def stores(open_stores: Callable[[], Awaitable[LadderStores]]) -> LadderStores:
    return await open_stores()


def result(match_id: str, at: int, p1: str = "x", p2: str = "y") -> LadderResult:
    return LadderResult(match_id, "pair", p1, p2, Side.P1, at)


async def store(stores: LadderStores, one: LadderResult) -> Written:
    """Add `one` after everything stored (a live ladder's usual write)."""
    current = await stores.standings.load([one.p1, one.p2])
    folded = current.fold([one])
    return await stores.standings.replace(folded, expected=current.through, adding=one)


async def test_results_come_back_in_end_time_then_match_id_order(stores):
    for one in (result("0000000A", 10), result("0000000B", 10), result("0000000C", 20)):
        assert await store(stores, one) is Written.WRITTEN
    assert [r.match_id for r in await stores.results.after(None)] == [
        "0000000A", "0000000B", "0000000C",
    ]
    after = await stores.results.after(result("0000000A", 10).key)
    assert [r.match_id for r in after] == ["0000000B", "0000000C"]


async def test_rated_says_which_matches_are_stored(stores):
    assert await stores.results.rated(["0000000A"]) == set()
    await store(stores, result("0000000A", 10))
    await store(stores, result("0000000B", 11))
    assert await stores.results.rated(["0000000A", "0000000C", "0000000B"]) == {
        "0000000A", "0000000B",
    }
    assert await stores.results.rated([]) == set()


async def test_a_result_is_stored_once(stores):
    assert await store(stores, result("0000000A", 10)) is Written.WRITTEN
    kept = await stores.standings.load()
    again = kept.fold([result("0000000A", 99, "y", "x")])
    assert await stores.standings.replace(
        again, expected=kept.through, adding=result("0000000A", 99, "y", "x")
    ) is Written.KNOWN
    assert await stores.results.after(None) == [result("0000000A", 10)]
    assert await stores.standings.load() == kept


async def test_standings_are_replaced_only_from_what_the_writer_read(stores):
    first = Standings().fold([result("0000000A", 10)])
    assert await stores.standings.replace(first, expected=None) is Written.WRITTEN
    second = first.standings.fold([result("0000000B", 20)])
    assert await stores.standings.replace(second, expected=None) is Written.MOVED  # stale
    assert await stores.standings.load() == first.standings
    written = await stores.standings.replace(second, expected=first.standings.through)
    assert written is Written.WRITTEN
    assert await stores.standings.load() == second.standings


async def test_standings_load_of_some_bots_and_through(stores):
    folded = history_from([result("0000000A", 10, "a", "b"), result("0000000B", 20, "b", "c")])
    await stores.standings.replace(folded, expected=None)
    some = await stores.standings.load(["a", "nobody"])
    assert dict(some.by_bot) == {"a": folded.standings.of("a")}
    assert some.through == result("0000000B", 20).key
    none = await stores.standings.load(())
    assert dict(none.by_bot) == {} and none.through == some.through


async def test_points_newest_first_a_page_at_a_time(stores):
    history = [result(f"000000{n:02X}", n * 10, "a", f"o{n % 3}") for n in range(1, 8)]
    folded = history_from(history)
    await stores.standings.replace(folded, expected=None)
    mine = [point for point in folded.points if point.bot == "a"]
    assert await stores.history.points("a", None, 100) == mine[::-1]
    first = await stores.history.points("a", None, 3)
    assert first == mine[:-4:-1]
    older = await stores.history.points("a", first[-1].key, 3)
    assert older == mine[-4:-7:-1]
    assert await stores.history.points("a", mine[0].key, 3) == []
    assert await stores.history.points("o1", None, 100) == [
        point for point in reversed(folded.points) if point.bot == "o1"
    ]
    assert await stores.history.points("nobody", None, 10) == []


async def test_standings_as_they_were_before_a_result(stores):
    history = [
        result("0000000A", 10, "a", "b"), result("0000000B", 20, "b", "c"),
        result("0000000C", 30, "a", "c"),
    ]
    await stores.standings.replace(history_from(history), expected=None)
    before = await stores.standings.load_before(result("0000000C", 30).key, ["a", "c", "d"])
    assert before == history_from(history[:2]).standings.__class__(
        MappingProxyType({
            "a": history_from(history[:1]).standings.of("a"),
            "c": history_from(history[:2]).standings.of("c"),
        }),
        result("0000000B", 20).key,
    )
    earliest = await stores.standings.load_before(result("00000001", 5).key, ["a"])
    assert dict(earliest.by_bot) == {} and earliest.through is None


async def test_a_late_result_replaces_the_points_after_where_its_fold_starts(stores):
    history = [result("0000000A", 10, "a", "b"), result("0000000C", 30, "a", "c")]
    await stores.standings.replace(history_from(history), expected=None)
    late = result("0000000B", 20, "c", "b")
    base = await stores.standings.load_before(late.key, ["a", "b", "c"])
    folded = base.fold([late, history[1]])
    assert folded.since == history[0].key
    written = await stores.standings.replace(folded, expected=history[1].key, adding=late)
    assert written is Written.WRITTEN
    whole = history_from([*history, late])
    assert await stores.standings.load() == whole.standings
    for bot in ("a", "b", "c"):
        assert await stores.history.points(bot, None, 10) == [
            point for point in reversed(whole.points) if point.bot == bot
        ]


async def test_a_rebuild_writes_every_point_and_standing_again(stores):
    await stores.standings.replace(
        history_from([result("0000000A", 10, "a", "gone")]), expected=None
    )
    rebuilt = history_from([result("0000000B", 20, "a", "b")])
    written = await stores.standings.replace(rebuilt, expected=result("0000000A", 10).key)
    assert written is Written.WRITTEN
    assert await stores.standings.load() == rebuilt.standings  # "gone" is gone
    assert await stores.history.points("gone", None, 10) == []
    assert len(await stores.history.points("a", None, 10)) == 1


BUILTINS = ("random", "tactical", "strong")


async def test_the_table_is_paged_and_ordered_as_the_domain_orders_it(stores):
    rng = random.Random(11)
    owners = [f"{n:064x}" for n in range(1, 6)]
    uploads = []
    for n in range(14):
        # a few bots made in the same ms, so the order of ranking settles their tie
        record = make_bot(owner=owners[n % 5], created_ms=1_000 + n // 3, id=f"{n:016x}")
        if n != 13:  # the last one is deleted: ranked, with no record, off the table
            await stores.bots.add_bot(record)
        await stores.members.rank(
            Member(record.id, record.owner, record.created_ms, suspended=n == 4),
            max_per_owner=3,
        )
        uploads.append(record.id)
    # Results that leave exact ties: bots beating a fresh opponent each end equal.
    history, n = [], 0
    for bot in [*uploads[:6], "strong", "tactical"]:
        n += 1
        history.append(result(f"{n:08X}", n, bot, f"fresh{n}"))
    for _ in range(12):
        n += 1
        history.append(result(f"{n:08X}", n, *rng.sample([*uploads, *BUILTINS], 2)))
    await stores.standings.replace(history_from(history), expected=None)
    members = [*founding_members(BUILTINS)]
    members += [m for m in await stores.members.members() if m.bot != uploads[13]]
    expected = ladder_table(members, await stores.standings.load())
    whole = await stores.listing.page(BUILTINS, 0, 100)
    assert [(e.rank, e.member.bot) for e in whole] == [(r.rank, r.bot) for r in expected]
    assert [table_row(e.rank, e.member, e.standing) for e in whole] == list(expected)
    assert {e.member.bot: e.name for e in whole if not e.member.builtin} == {
        bot: "Bot Việt Nam số 1" for bot in uploads[:13]
    }
    assert [e.member.bot for e in await stores.listing.page(BUILTINS, 3, 4)] == [
        r.bot for r in expected[3:7]
    ]
    assert await stores.listing.page(BUILTINS, len(expected), 10) == []
    for row in expected:
        placed = await stores.listing.place(row.bot, BUILTINS)
        assert table_row(placed.rank, placed.member, placed.standing) == row
    assert await stores.listing.place(uploads[13], BUILTINS) is None
    assert await stores.listing.existing([uploads[0], uploads[13], "nobody"]) == {uploads[0]}


async def test_the_tables_order_follows_every_write_of_the_standings(stores):
    """The store may keep the order's keys apart from the standings: they follow the
    live fold, a late result, a bot ranked again, a rebuild."""
    bots = []
    for n in range(4):
        record = make_bot(owner=f"{n + 1:064x}", created_ms=1_000 + n, id=f"{n:016x}")
        await stores.bots.add_bot(record)
        bots.append(record.id)
    for bot in bots[:3]:
        await stores.members.rank(Member(bot, f"{int(bot, 16) + 1:064x}", 1_000), max_per_owner=3)

    async def shown() -> list[str]:
        return [entry.member.bot for entry in await stores.listing.page(BUILTINS, 0, 50)]

    async def expected() -> list[str]:
        members = [*founding_members(BUILTINS), *await stores.members.members()]
        return [row.bot for row in ladder_table(members, await stores.standings.load())]

    history = [result(f"0000000{n}", n * 10, bots[n % 4], BUILTINS[n % 3]) for n in range(1, 7)]
    for one in history[:-2]:
        assert await fold_in(stores.results, stores.standings, one)
    assert await shown() == await expected()
    late = result("00000009", 15, bots[2], "strong")  # between the first two
    assert await fold_in(stores.results, stores.standings, late)
    assert await shown() == await expected()
    await stores.members.rank(Member(bots[3], f"{4:064x}", 1_003), max_per_owner=3)
    assert await stores.members.unrank(bots[0])
    assert await stores.members.rank(Member(bots[0], f"{1:064x}", 1_000), max_per_owner=3)
    for one in history[-2:]:
        assert await fold_in(stores.results, stores.standings, one)
    assert await shown() == await expected()
    current = await stores.standings.load(())
    rebuilt = history_from([*history[2:], late])  # as if the first two were gone
    assert await stores.standings.replace(rebuilt, expected=current.through) is Written.WRITTEN
    assert await shown() == await expected()
    for bot in await expected():
        placed = await stores.listing.place(bot, BUILTINS)
        assert placed.member.bot == bot and (await shown())[placed.rank - 1] == bot


async def test_an_empty_ladder_lists_the_builtins_strongest_first(stores):
    table = await stores.listing.page(BUILTINS, 0, 10)
    assert [(e.rank, e.member.bot) for e in table] == [(1, "strong"), (2, "tactical"), (3, "random")]
    assert all(e.member.builtin and e.standing.games == 0 for e in table)


async def test_members_the_cap_per_owner_is_checked_in_the_same_write(stores):
    for bot in ("m1", "m2"):
        assert await stores.members.rank(Member(bot, OWNER, 1), max_per_owner=2)
    assert not await stores.members.rank(Member("m3", OWNER, 1), max_per_owner=2)
    assert await stores.members.rank(Member("m1", OWNER, 1), max_per_owner=2)  # ranked already
    assert await stores.members.rank(Member("o1", OTHER, 1), max_per_owner=2)
    assert [m.bot for m in await stores.members.members()] == ["m1", "m2", "o1"]
    await stores.members.update("m1", lambda m: replace(m, suspended=True))
    assert not await stores.members.rank(Member("m3", OWNER, 1), max_per_owner=2)  # still counts


async def test_a_member_keeps_the_address_it_was_ranked_from(stores):
    """B13's fair play reads it back: as ranked, after a change, and in the listing."""
    digest = address_digest("203.0.113.7")
    await stores.members.rank(Member("m1", OWNER, 1, ranked_from=digest), max_per_owner=3)
    await stores.members.rank(Member("m2", OTHER, 1), max_per_owner=3)
    assert (await stores.members.get("m1")).ranked_from == digest
    await stores.members.update("m1", lambda m: m.after_match(failed=True))
    assert [(m.bot, m.ranked_from) for m in await stores.members.members()] == [
        ("m1", digest), ("m2", None),
    ]


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
    folded = history_from(
        result(f"0000000{n}", n * 10, p1=f"b{n % 2}", p2="c") for n in range(1, 6)
    )
    assert folded.standings == standings
    assert await stores.standings.replace(folded, expected=None) is Written.WRITTEN
    loaded = await stores.standings.load()
    assert loaded == standings and loaded.through == result("00000005", 50).key
    points = await stores.history.points("c", None, 10)
    assert [point.standing for point in points] == [
        point.standing for point in reversed(folded.points) if point.bot == "c"
    ]
    empty = Standings().fold([])
    assert await stores.standings.replace(empty, expected=standings.through) is Written.WRITTEN
    assert await stores.standings.load() == Standings()


# --- races between instances ---------------------------------------------------------


async def test_two_instances_writing_standings_at_once_one_wins(open_stores):
    instances = [await open_stores() for _ in range(4)]
    base = Standings().fold([result("0000000A", 10)])
    assert await instances[0].standings.replace(base, expected=None) is Written.WRITTEN
    attempts = [
        base.standings.fold([result(f"0000001{n}", 20 + n, p1=f"w{n}")])
        for n in range(len(instances))
    ]
    won = await asyncio.gather(*(
        one.standings.replace(folded, expected=base.standings.through, adding=folded_result)
        for one, folded, folded_result in zip(
            instances, attempts,
            [result(f"0000001{n}", 20 + n, p1=f"w{n}") for n in range(len(instances))],
            strict=True,
        )
    ))
    assert sorted(won, key=str) == sorted([Written.WRITTEN] + [Written.MOVED] * 3, key=str)
    winner = won.index(Written.WRITTEN)
    assert await instances[0].standings.load() == attempts[winner].standings
    assert len(await instances[0].results.after(None)) == 1  # the losers stored nothing


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


async def test_a_result_told_by_several_instances_at_once_is_stored_once(open_stores):
    instances = [await open_stores() for _ in range(4)]
    told = await asyncio.gather(*(
        fold_in(one.results, one.standings, result("0000000A", 10)) for one in instances
    ))
    assert sum(folded is not None for folded in told) == 1
    assert len(await instances[0].results.after(None)) == 1
    assert (await instances[0].standings.load()).of("x").games == 1


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
