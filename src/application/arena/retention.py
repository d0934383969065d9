"""Which replays the retention sweep deletes (spec B14 "Retention"): the rule by name.

- A match that is not a ladder match (a room's, a person playing in it or not) keeps its
  replay `replay_days` days after it finished: it is due once it finished strictly more
  than that long ago.
- A ladder match keeps its replay while it is among the newest `ladder_replays` ladder
  replays of either of its two bots: it is due once neither of them counts it. A bot's
  newest are counted among the ladder matches that still have a replay (newest first by
  finishing time, then id, as the histories order them); this is the same as counting
  among all that ever had one, since a replay is only deleted once each bot has that
  many newer ones, which are then kept longer than it.
- Live matches, matches that never had a replay (abandoned on a restart) and those
  already swept are never due.

B14 also keeps the replays of a bot's version checks; version checks do not exist yet
(docs/decisions.md), so no replay is kept for that reason today.

`replays_due` applies the rule to a whole archive held in memory: the tests' archive
uses it, and the SQL archive's query is held to it by the storage contract.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from noitu.application.arena.records import MatchRecord, MatchStatus

DAY_MS = 24 * 3600 * 1000
#: B14's defaults (NOITU_ARENA_REPLAY_DAYS, NOITU_ARENA_LADDER_REPLAYS).
DEFAULT_REPLAY_DAYS = 30
DEFAULT_LADDER_REPLAYS = 100


@dataclass(frozen=True, slots=True)
class Retention:
    """The operator's retention settings."""

    replay_days: int = DEFAULT_REPLAY_DAYS
    ladder_replays: int = DEFAULT_LADDER_REPLAYS

    def __post_init__(self) -> None:
        if self.replay_days < 1 or self.ladder_replays < 1:
            raise ValueError("replays are kept at least a day, and at least one per bot")

    def rooms_before_ms(self, now_ms: int) -> int:
        """A room's replay finished before this (strictly) is due."""
        return now_ms - self.replay_days * DAY_MS


def has_replay(match: MatchRecord) -> bool:
    """A finished match whose replay is kept (the sweep's candidates)."""
    return match.status is MatchStatus.FINISHED and match.replay is not None


def _order(match: MatchRecord) -> tuple[int, str]:
    assert match.finished_ms is not None
    return (match.finished_ms, match.id)


def ladder_kept(matches: Iterable[MatchRecord], ladder_replays: int) -> set[str]:
    """The ids of the ladder matches some bot still counts among its newest replays."""
    by_bot: dict[str, list[MatchRecord]] = {}
    for match in matches:
        if match.ladder and has_replay(match):
            for seat in match.seats:
                by_bot.setdefault(seat.ref, []).append(match)
    kept: set[str] = set()
    for played in by_bot.values():
        played.sort(key=_order, reverse=True)
        kept.update(match.id for match in played[:ladder_replays])
    return kept


def replays_due(
    matches: Iterable[MatchRecord], retention: Retention, now_ms: int, limit: int
) -> list[MatchRecord]:
    """The matches whose replay the rule deletes now, oldest first (finishing time, then
    id), at most `limit`."""
    every = list(matches)
    kept = ladder_kept(every, retention.ladder_replays)
    before = retention.rooms_before_ms(now_ms)
    due = [
        match
        for match in every
        if has_replay(match)
        and (match.id not in kept if match.ladder else _order(match)[0] < before)
    ]
    return sorted(due, key=_order)[: max(limit, 0)]
