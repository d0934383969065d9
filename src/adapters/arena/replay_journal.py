"""`ReplayJournal` in one process: the events in memory, forgotten
`REPLAY_JOURNAL_TTL_MS` after a match's last append (read off the clock, so a fake
clock can run a journal out)."""

from __future__ import annotations

from collections.abc import Sequence

from noitu.application.arena.rooms.cluster_ports import REPLAY_JOURNAL_TTL_MS
from noitu.application.ports import Clock

__all__ = ["InMemoryReplayJournal"]


class InMemoryReplayJournal:
    def __init__(self, clock: Clock, ttl_ms: int = REPLAY_JOURNAL_TTL_MS) -> None:
        self._clock = clock
        self._ttl_ms = ttl_ms
        #: match id -> (its events, when they are forgotten)
        self._journals: dict[str, tuple[list[bytes], int]] = {}

    def _live(self, match_id: str) -> list[bytes] | None:
        kept = self._journals.get(match_id)
        if kept is None:
            return None
        events, until_ms = kept
        if self._clock.now_ms() >= until_ms:
            del self._journals[match_id]
            return None
        return events

    async def append(self, match_id: str, events: Sequence[bytes]) -> None:
        kept = self._live(match_id) or []
        kept.extend(bytes(event) for event in events)
        self._journals[match_id] = (kept, self._clock.now_ms() + self._ttl_ms)

    async def events(self, match_id: str) -> list[bytes]:
        return list(self._live(match_id) or ())

    async def drop(self, match_id: str) -> None:
        self._journals.pop(match_id, None)
