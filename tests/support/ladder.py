"""Hand-written in-memory fakes of the ladder's ports (spec B8), for unit tests: each
keeps plain values and applies atomic changes in one step, as a store's transaction
would. `Ladder` puts every use case over them."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable, Collection, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from types import MappingProxyType

from noitu.adapters.arena.builtin import BUILTIN_SOURCES
from noitu.application.arena.ladder.play_ladder import PlayLadder, PlayLadderCommand
from noitu.application.arena.ladder.ports import (
    BuiltinRoster,
    LadderMatchJobs,
    LadderSlots,
    TableEntry,
    Written,
)
from noitu.application.arena.ladder.rank_bot import RankBot, RankBotCommand
from noitu.application.arena.ladder.rebuild_ladder import RebuildLadder
from noitu.application.arena.ladder.record_ladder_result import (
    RecordedLadderMatch,
    RecordLadderResult,
    RecordLadderResultCommand,
)
from noitu.application.arena.ladder.resume_bot import ResumeBot
from noitu.application.arena.ladder.schedule_pairing import SchedulePairing
from noitu.application.arena.ladder.show_ladder import ShowLadder
from noitu.application.arena.ladder.unrank_bot import UnrankBot
from noitu.application.arena.live_match import Timer
from noitu.application.arena.ports import Language
from noitu.application.arena.records import BotRecord, BuildStatus, owner_hash
from noitu.application.arena.rooms.ladder_slots import BoardSlots
from noitu.domain.arena.board import Side
from noitu.domain.arena.failure import FailureCode
from noitu.domain.arena.ladder.members import Member, founding_members
from noitu.domain.arena.ladder.pairing import Pairing
from noitu.domain.arena.ladder.results import LadderResult, ResultKey
from noitu.domain.arena.ladder.standings import Folded, Standing, StandingPoint, Standings
from noitu.domain.arena.ladder.table import ladder_table
from noitu.domain.arena.match import EndReason, Failure, Result
from support.arena_rooms import Arena
from support.fakes import FakeClock


class MemoryResults:
    def __init__(self) -> None:
        self.by_match: dict[str, LadderResult] = {}

    async def after(self, key: ResultKey | None) -> list[LadderResult]:
        ordered = sorted(self.by_match.values(), key=lambda result: result.key)
        return [result for result in ordered if key is None or result.key > key]

    async def rated(self, match_ids: Collection[str]) -> set[str]:
        return {match_id for match_id in match_ids if match_id in self.by_match}


class MemoryStandings:
    """The standings and every bot's points; a result is added to `results` by the
    write that folds it in, as the SQL store does."""

    def __init__(self, results: MemoryResults | None = None) -> None:
        self.results = results or MemoryResults()
        self.stored = Standings()
        #: Every point, in the history's order.
        self.kept: list[StandingPoint] = []
        self.writes = 0

    async def load(self, bots: Collection[str] | None = None) -> Standings:
        if bots is None:
            return self.stored
        chosen = {bot: self.stored.by_bot[bot] for bot in bots if bot in self.stored.by_bot}
        return Standings(MappingProxyType(chosen), self.stored.through)

    async def load_before(self, key: ResultKey, bots: Collection[str]) -> Standings:
        earlier = [point for point in self.kept if point.key < key]
        by_bot = {point.bot: point.standing for point in earlier if point.bot in bots}
        return Standings(MappingProxyType(by_bot), earlier[-1].key if earlier else None)

    async def replace(
        self, folded: Folded, *, expected: ResultKey | None, adding: LadderResult | None = None
    ) -> Written:
        if adding is not None and adding.match_id in self.results.by_match:
            return Written.KNOWN
        if self.stored.through != expected:
            return Written.MOVED
        if adding is not None:
            self.results.by_match[adding.match_id] = adding
        since = folded.since
        kept = [] if since is None else [point for point in self.kept if point.key <= since]
        self.kept = kept + list(folded.points)
        by_bot = {} if since is None else dict(self.stored.by_bot)
        for point in folded.points:
            by_bot[point.bot] = folded.standings.of(point.bot)
        self.stored = Standings(MappingProxyType(by_bot), folded.standings.through)
        self.writes += 1
        return Written.WRITTEN

    async def points(
        self, bot: str, before: ResultKey | None, limit: int
    ) -> list[StandingPoint]:
        mine = [
            point for point in reversed(self.kept)
            if point.bot == bot and (before is None or point.key < before)
        ]
        return mine[:limit]


class MemoryMembers:
    def __init__(self) -> None:
        self.by_bot: dict[str, Member] = {}

    async def members(self) -> list[Member]:
        return list(self.by_bot.values())

    async def get(self, bot: str) -> Member | None:
        return self.by_bot.get(bot)

    async def rank(self, member: Member, *, max_per_owner: int) -> bool:
        if member.bot in self.by_bot:
            return True
        ranked = sum(known.owner == member.owner for known in self.by_bot.values())
        if ranked >= max_per_owner:
            return False
        self.by_bot[member.bot] = member
        return True

    async def unrank(self, bot: str) -> bool:
        return self.by_bot.pop(bot, None) is not None

    async def update(self, bot: str, change: Callable[[Member], Member]) -> Member | None:
        known = self.by_bot.get(bot)
        if known is None:
            return None
        self.by_bot[bot] = changed = change(known)
        return changed


class MemoryPairings:
    def __init__(self) -> None:
        self.live_by_id: dict[str, Pairing] = {}
        self.closed: list[Pairing] = []
        #: Pairings ended unfinished (`end_live`): no previous opponents from them.
        self.dropped: list[Pairing] = []

    async def live(self) -> list[Pairing]:
        return list(self.live_by_id.values())

    async def open(self, pairing: Pairing) -> bool:
        busy = {bot for known in self.live_by_id.values() for bot in known.bots}
        if busy & set(pairing.bots) or pairing.id in self.live_by_id:
            return False
        self.live_by_id[pairing.id] = pairing
        return True

    async def update(self, pairing_id: str, change: Callable[[Pairing], Pairing]) -> Pairing | None:
        known = self.live_by_id.get(pairing_id)
        if known is None:
            return None
        self.live_by_id[pairing_id] = changed = change(known)
        return changed

    async def close(self, pairing_id: str, replay: Pairing | None = None) -> None:
        self.closed.append(self.live_by_id.pop(pairing_id))
        if replay is not None:
            self.live_by_id[replay.id] = replay

    async def previous_opponents(self) -> Mapping[str, str]:
        previous: dict[str, str] = {}
        for pairing in self.closed:  # in closing order: the last one wins
            previous[pairing.first] = pairing.second
            previous[pairing.second] = pairing.first
        return previous

    async def end_live(self, instance: str | None) -> int:
        ended = [
            pairing for pairing in self.live_by_id.values()
            if instance is None or pairing.instance == instance
        ]
        for pairing in ended:
            del self.live_by_id[pairing.id]
            self.dropped.append(pairing)
        return len(ended)


class MemoryLease:
    def __init__(self) -> None:
        self.holder: str | None = None
        self.until_ms = 0

    async def acquire(self, holder: str, now_ms: int, ttl_ms: int) -> bool:
        if self.holder not in (None, holder) and now_ms < self.until_ms:
            return False
        self.holder, self.until_ms = holder, now_ms + ttl_ms
        return True

    async def release(self, holder: str) -> None:
        if self.holder == holder:
            self.holder = None


class MemoryBots:
    """The two catalogue methods the ladder uses, over uploaded bots' records."""

    def __init__(self) -> None:
        self.by_id: dict[str, BotRecord] = {}

    def add(self, bot_id: str, owner_key: str, *, built: bool = True, created_ms: int = 1,
            public: bool = False) -> BotRecord:
        record = BotRecord(
            id=bot_id, owner=owner_hash(owner_key), name=f"bot {bot_id[:4]}",
            language=Language.PYTHON, public=public, created_ms=created_ms, source_bytes=10,
            build=BuildStatus.OK if built else BuildStatus.FAILED, build_messages="",
            source_file=f"{bot_id}.py", artefact_dir=f"{bot_id}-built" if built else None,
        )
        self.by_id[bot_id] = record
        return record

    async def add_bot(self, bot: BotRecord) -> bool:
        self.by_id[bot.id] = bot
        return True

    async def get_bot(self, bot_id: str) -> BotRecord | None:
        return self.by_id.get(bot_id)

    async def set_public(self, bot_id: str, owner: str, public: bool) -> bool:
        known = self.by_id.get(bot_id)
        if known is None or known.owner != owner:
            return False
        self.by_id[bot_id] = replace(known, public=public)
        return True


class MemoryListing:
    """The table's reads over the members, standings and bots in memory, ordered by
    the domain's `ladder_table` itself."""

    def __init__(
        self, members: MemoryMembers, standings: MemoryStandings, bots: MemoryBots
    ) -> None:
        self._members = members
        self._standings = standings
        self._bots = bots

    async def _table(self, builtins: Sequence[str]) -> list[TableEntry]:
        ranked = [m for m in await self._members.members() if m.bot in self._bots.by_id]
        members = {m.bot: m for m in (*founding_members(builtins), *ranked)}
        standings = await self._standings.load()
        entries = []
        for row in ladder_table(members.values(), standings):
            member = members[row.bot]
            record = self._bots.by_id.get(row.bot)
            entries.append(TableEntry(
                row.rank, member, standings.of(row.bot),
                None if member.builtin else record.name,  # type: ignore[union-attr]
                None if member.builtin else record.language,  # type: ignore[union-attr]
            ))
        return entries

    async def page(self, builtins: Sequence[str], after: int, limit: int) -> list[TableEntry]:
        return [entry for entry in await self._table(builtins) if entry.rank > after][:limit]

    async def place(self, bot: str, builtins: Sequence[str]) -> TableEntry | None:
        return next((e for e in await self._table(builtins) if e.member.bot == bot), None)

    async def existing(self, bots: Collection[str]) -> set[str]:
        return {bot for bot in bots if bot in self._bots.by_id}


class BuiltinNames:
    """The arena's built-in bots, named where they live."""

    def names(self) -> tuple[str, ...]:
        return tuple(BUILTIN_SOURCES)

    def language(self, name: str) -> Language:
        return Language.CPP if BUILTIN_SOURCES[name].endswith(".cpp") else Language.PYTHON


# --- every use case over the fakes -----------------------------------------------------

KEY = "1" * 32


def other(side: Side) -> Side:
    return Side.P2 if side is Side.P1 else Side.P1


def failed(side: Side, code: FailureCode = FailureCode.TIMEOUT) -> Result:
    """`side`'s bot failed: the other side wins with BOT_FAILED."""
    return Result(other(side), EndReason.BOT_FAILED, 5, Failure(side, code, "detail"))


def bot_id(n: int) -> str:
    return f"{n:016d}"


class Ladder:
    """Every port in memory and every use case over them."""

    def __init__(self, seed: int = 1, *, builtins_alone: bool = True) -> None:
        """`builtins_alone`: the scheduler pairs the built-ins with no upload ranked
        (most tests' ladders are the built-ins only; the server's never plays them so)."""
        self.clock = FakeClock()
        self.rng = random.Random(seed)
        self.bots, self.members = MemoryBots(), MemoryMembers()
        self.results = MemoryResults()
        self.standings = MemoryStandings(self.results)
        self.listing = MemoryListing(self.members, self.standings, self.bots)
        self.pairings, self.lease, self.roster = MemoryPairings(), MemoryLease(), BuiltinNames()
        self.rank = RankBot(self.bots, self.members, self.standings)
        self.unrank = UnrankBot(self.bots, self.members)
        self.resume = ResumeBot(self.bots, self.members)
        self.record = RecordLadderResult(
            self.results, self.standings, self.members, self.pairings, self.roster,
            self.clock, self.rng,
        )
        self.schedule = SchedulePairing(
            self.lease, self.members, self.standings, self.pairings, self.roster,
            self.clock, self.rng, builtins_alone=builtins_alone,
        )
        self.rebuild = RebuildLadder(
            self.lease, self.results, self.standings, self.members, self.roster, self.clock
        )
        self.show = ShowLadder(self.members, self.standings, self.roster)
        self._matches = 0
        self._pairings_opened = 0

    async def ranked(self, n: int, key: str = KEY, created_ms: int = 1) -> str:
        self.bots.add(bot_id(n), key, created_ms=created_ms)
        await self.rank(RankBotCommand(bot_id(n), key))
        return bot_id(n)

    async def open(self, first: str, second: str, placement: bool = False) -> Pairing:
        self._pairings_opened += 1
        pairing = Pairing(f"pair{self._pairings_opened:012d}", 3, first, second, placement, 0)
        assert await self.pairings.open(pairing)
        return pairing

    async def play(self, pairing: Pairing, index: int, result: Result) -> RecordedLadderMatch:
        """Record match `index` (0 or 1) of `pairing`, sides as the pairing seats them."""
        self._matches += 1
        self.clock.advance(1_000)
        p1, p2 = pairing.seats(index)
        return await self.record(RecordLadderResultCommand(
            pairing.id, f"{self._matches:08X}", p1, p2, result, self.clock.now_ms(),
        ))

    async def pairing(
        self, first: str, second: str, won_by_first: tuple[bool, bool]
    ) -> list[RecordedLadderMatch]:
        """A whole pairing in which `first` wins or loses each match."""
        pairing = await self.open(first, second)
        outcomes = []
        for index, first_wins in enumerate(won_by_first):
            first_side = Side.P1 if index == 0 else Side.P2
            winner = first_side if first_wins else other(first_side)
            outcomes.append(await self.play(pairing, index, Result(winner, EndReason.NO_PIECES, 30)))
        return outcomes

    def standing(self, bot: str) -> Standing:
        return self.standings.stored.of(bot)


class Roster:
    """A roster of the given built-in names (fewer than the arena's, to pin the
    scheduler's choice down)."""

    def __init__(self, *names: str) -> None:
        self._names = names

    def names(self) -> tuple[str, ...]:
        return self._names


class LadderRun:
    """The ladder's stores in memory, its scheduler and recorder on the arena's clock,
    and the driver handing its matches to the arena's board and match queue (as the
    server does: `BoardSlots`); `running()` drives it in a task, the arena's host
    beating as a worker's."""

    def __init__(
        self,
        arena: Arena,
        timer: Timer | None = None,
        *,
        roster: BuiltinRoster | None = None,
        turn_limit: int = 8,
        seed: int = 1,
        builtins_alone: bool = True,
        instance: str = "instance-1",
        play: LadderMatchJobs | None = None,
        slots: LadderSlots | None = None,
    ) -> None:
        """`timer`: the driver's (the arena's by default); `play` and `slots`: where the
        matches are handed and which slots they fill (the arena's board by default)."""
        self.arena = arena
        self.stores = Ladder(seed)
        self.instance = instance
        self.roster = roster or BuiltinNames()
        #: What the driver was told failed.
        self.errors: list[Exception] = []
        rng = random.Random(seed)
        stores = self.stores
        clock, timer = arena.clock, timer or arena.timer
        self.schedule = SchedulePairing(
            stores.lease, stores.members, stores.standings, stores.pairings, self.roster,
            clock, rng, builtins_alone=builtins_alone,
        )
        self.record = RecordLadderResult(
            stores.results, stores.standings, stores.members, stores.pairings, self.roster,
            clock, rng,
        )
        self.slots = slots or BoardSlots(arena.rooms, arena.stores, timer)
        board_slots = self.slots
        self.driver = PlayLadder(
            self.schedule, self.record,
            play or board_slots.play,  # type: ignore[attr-defined]
            self.slots, arena.stores, stores.members, stores.pairings, self.roster, clock,
            arena.host.background, timer, rng, self.errors.append, turn_limit=turn_limit,
        )

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        await self.arena.beat()
        task = asyncio.create_task(self.driver(PlayLadderCommand(self.instance)))
        try:
            yield
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    @property
    def closed(self) -> list[Pairing]:
        return self.stores.pairings.closed

    def standing(self, bot: str) -> Standing:
        return self.stores.standings.stored.of(bot)
