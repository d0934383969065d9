"""The retention part of the tests' in-memory `MatchArchive` (spec B14): the rule of
`application/arena/retention.py` applied to the matches held, and the mark of a swept
replay. `MemoryStores` (support/arena_rooms.py) takes it in; the storage contract holds
both to the SQL archive's answers."""

from __future__ import annotations

from dataclasses import replace

from noitu.application.arena.records import MatchRecord
from noitu.application.arena.retention import Retention, has_replay, replays_due


class MemoryRetention:
    matches: dict[str, MatchRecord]
    stderr: dict[str, tuple[bytes, bytes]]

    async def replays_due(
        self, retention: Retention, now_ms: int, limit: int
    ) -> list[MatchRecord]:
        return replays_due(self.matches.values(), retention, now_ms, limit)

    async def mark_replay_deleted(self, match_id: str, at_ms: int) -> bool:
        found = self.matches.get(match_id)
        if found is None or not has_replay(found):
            return False
        self.matches[match_id] = replace(found, replay=None, replay_deleted_ms=at_ms)
        self.stderr.pop(match_id, None)
        return True
