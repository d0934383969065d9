"""The DailyGames port in memory: one server process's daily games and streaks (B13).

Finished games are kept as `FinishedSession` records, like the memory session store's;
the days before yesterday are dropped when a new day's first game begins.
"""

from __future__ import annotations

from noitu.adapters.noitu.memory_repository import FinishedSession
from noitu.application.noitu.ports import DailyEntry
from noitu.application.noitu.session import Session
from noitu.domain.noitu.daily import Streak


class InMemoryDailyGames:
    def __init__(self) -> None:
        # day -> user -> (session id, the finished game or None)
        self._days: dict[int, dict[int, tuple[str, FinishedSession | None]]] = {}
        self._streaks: dict[int, Streak] = {}

    async def entry(self, user_id: int, day: int) -> DailyEntry | None:
        found = self._days.get(day, {}).get(user_id)
        if found is None:
            return None
        session_id, finished = found
        return DailyEntry(session_id, finished.copy() if finished is not None else None)

    async def begin(self, user_id: int, day: int, session_id: str) -> None:
        if day not in self._days:
            for old in [d for d in self._days if d < day - 1]:
                del self._days[old]
        games = self._days.setdefault(day, {})
        found = games.get(user_id)
        if found is None or found[1] is None:
            games[user_id] = (session_id, None)

    async def finish(self, session: Session) -> int:
        user, day = session.user_id, session.day
        self._days.setdefault(day, {})[user] = (session.id, FinishedSession.of(session))
        streak = self._streaks.get(user, Streak()).after_finishing(day)
        self._streaks[user] = streak
        return streak.on(day)

    async def streak(self, user_id: int, day: int) -> int:
        return self._streaks.get(user_id, Streak()).on(day)
