"""A bot's figures over its stored matches (spec B8 "History of every bot"): wins,
draws and losses by side, its failures by B3 code, and how fast it replies (p50 and p99
of the `ms` of its `received` replay events, B4).

Results and failures come from every finished match the archive holds (abandoned ones
count in no column). Reply times are read from the replays of its newest
`REPLY_SAMPLE_MATCHES` matches only: a replay is a file to read and parse, and a bot's
current speed is what its author asks about.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import msgspec

from noitu.application.arena.bot_info import viewer_of
from noitu.application.arena.match_history import BuiltinNames, history_bot
from noitu.application.arena.records import MatchCursor, plays
from noitu.application.arena.storage import ArenaFiles, BotCatalogue, MatchArchive
from noitu.domain.arena.board import Side
from noitu.domain.arena.match import EndReason

#: How many of the newest replays the reply times are read from.
REPLY_SAMPLE_MATCHES = 50
#: Matches read from the archive at once while counting.
_BATCH = 500


@dataclass(frozen=True, slots=True)
class SideRecord:
    wins: int = 0
    draws: int = 0
    losses: int = 0


@dataclass(frozen=True, slots=True)
class ReplyTimes:
    p50: float
    p99: float


@dataclass(frozen=True, slots=True)
class BotFiguresQuery:
    bot_id: str
    owner_key: str | None = None


@dataclass(frozen=True, slots=True)
class BotFigures:
    p1: SideRecord
    p2: SideRecord
    failures: dict[str, int]  # B3 code → how many matches this bot failed with it
    reply_ms: ReplyTimes | None  # None when no replay holds one of its replies


class _Event(msgspec.Struct):
    """The fields of a replay line the reply times need (other fields are skipped)."""

    event: str
    player: str | None = None
    ms: int | None = None


_decode_event = msgspec.json.Decoder(_Event).decode


def percentile(ordered: list[int], p: float) -> float:
    """The nearest-rank percentile of a sorted, non-empty list."""
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return float(ordered[rank - 1])


class BotFiguresOf:
    def __init__(
        self,
        catalogue: BotCatalogue,
        archive: MatchArchive,
        files: ArenaFiles,
        builtins: BuiltinNames,
    ) -> None:
        self._catalogue = catalogue
        self._archive = archive
        self._files = files
        self._builtins = builtins

    async def __call__(self, query: BotFiguresQuery) -> BotFigures:
        viewer = viewer_of(query.owner_key)
        bot = await history_bot(self._catalogue, self._builtins, query.bot_id, viewer)
        counts: dict[Side, Counter[str]] = {Side.P1: Counter(), Side.P2: Counter()}
        failures: Counter[str] = Counter()
        sampled: list[tuple[str, Side]] = []
        before: MatchCursor | None = None
        while True:
            batch = await self._archive.finished_matches(_BATCH, before, bot=bot.id)
            for match in batch:
                side = Side.P1 if plays(match.p1, bot.id) else Side.P2
                result = match.result
                assert result is not None
                if match.replay is not None and len(sampled) < REPLY_SAMPLE_MATCHES:
                    sampled.append((match.replay, side))
                if result.failure is not None and result.failure.side is side:
                    failures[result.failure.code.value] += 1
                if result.reason is EndReason.ABANDONED:
                    continue
                if result.winner is None:
                    counts[side]["draws"] += 1
                else:
                    counts[side]["wins" if result.winner is side else "losses"] += 1
            if len(batch) < _BATCH:
                break
            before = batch[-1].cursor
        return BotFigures(
            SideRecord(**counts[Side.P1]),
            SideRecord(**counts[Side.P2]),
            dict(sorted(failures.items())),
            await self._reply_times(sampled),
        )

    async def _reply_times(self, replays: list[tuple[str, Side]]) -> ReplyTimes | None:
        times: list[int] = []
        for name, side in replays:
            try:
                data = await self._files.read_replay(name)
            except FileNotFoundError:
                continue  # a replay lost with its data directory: the rest still tell
            for line in data.splitlines():
                try:
                    event = _decode_event(line)
                except msgspec.DecodeError:
                    continue  # a line readers do not know is skipped (B4)
                if event.event == "received" and event.player == side.value and event.ms is not None:
                    times.append(event.ms)
        if not times:
            return None
        times.sort()
        return ReplyTimes(percentile(times, 50), percentile(times, 99))
