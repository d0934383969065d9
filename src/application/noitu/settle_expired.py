"""SettleExpired: the minutely sweep. Settles turns that ran out with the page closed
(their scores are still reported), and drops idle and finished sessions."""

from __future__ import annotations

import msgspec

from noitu.application.noitu.limits import SessionLimits
from noitu.application.noitu.ports import Clock, SessionRepository
from noitu.application.noitu.score_keeping import ScoreKeeper


class SweepResult(msgspec.Struct, frozen=True):
    settled: int
    dropped_idle: int
    dropped_finished: int


class SettleExpired:
    def __init__(
        self,
        sessions: SessionRepository,
        limits: SessionLimits,
        score_keeper: ScoreKeeper,
        clock: Clock,
    ) -> None:
        self._sessions = sessions
        self._limits = limits
        self._score_keeper = score_keeper
        self._clock = clock

    async def __call__(self) -> SweepResult:
        settled = dropped_idle = dropped_finished = 0
        for session_id in await self._sessions.ids():
            async with self._sessions.lock(session_id):
                session = await self._sessions.get(session_id)
                if session is None:
                    continue
                now = self._clock.now_ms()
                game = session.game
                if game.settle(now):
                    settled += 1
                    await self._score_keeper.save(session)
                elif session.is_playing and now - session.last_active_ms >= self._limits.idle_ms:
                    game.give_up(now)
                    await self._score_keeper.remove(session)
                    dropped_idle += 1
                elif not session.is_playing and now - game.ended_ms >= self._limits.finished_ms:
                    await self._score_keeper.remove(session)
                    dropped_finished += 1
        return SweepResult(settled, dropped_idle, dropped_finished)
