"""Hand-written in-memory fakes of the ladder's ports (spec B8), for unit tests: each
keeps plain values and applies atomic changes in one step, as a store's transaction
would."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from noitu.adapters.arena.builtin import BUILTIN_SOURCES
from noitu.application.arena.ports import Language
from noitu.application.arena.storage import BotRecord, BuildStatus, owner_hash
from noitu.domain.arena.ladder.members import Member
from noitu.domain.arena.ladder.pairing import Pairing
from noitu.domain.arena.ladder.results import LadderResult, ResultKey
from noitu.domain.arena.ladder.standings import Standings


class MemoryResults:
    def __init__(self) -> None:
        self.by_match: dict[str, LadderResult] = {}

    async def append(self, result: LadderResult) -> bool:
        if result.match_id in self.by_match:
            return False
        self.by_match[result.match_id] = result
        return True

    async def after(self, key: ResultKey | None) -> list[LadderResult]:
        ordered = sorted(self.by_match.values(), key=lambda result: result.key)
        return [result for result in ordered if key is None or result.key > key]


class MemoryStandings:
    def __init__(self) -> None:
        self.stored = Standings()
        self.writes = 0

    async def load(self) -> Standings:
        return self.stored

    async def replace(self, standings: Standings, *, expected: ResultKey | None) -> bool:
        if self.stored.through != expected:
            return False
        self.stored = standings
        self.writes += 1
        return True


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

    async def get_bot(self, bot_id: str) -> BotRecord | None:
        return self.by_id.get(bot_id)

    async def set_public(self, bot_id: str, owner: str, public: bool) -> bool:
        known = self.by_id.get(bot_id)
        if known is None or known.owner != owner:
            return False
        self.by_id[bot_id] = replace(known, public=public)
        return True


class BuiltinNames:
    """The arena's built-in bots, named where they live."""

    def names(self) -> tuple[str, ...]:
        return tuple(BUILTIN_SOURCES)
