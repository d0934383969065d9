"""SettleExpired: the minutely sweep. Settles turns that ran out with the page closed
(their scores are still reported), and drops idle and finished sessions."""

from __future__ import annotations

import asyncio
import enum

import msgspec

from noitu.application.noitu.errors import NoSession
from noitu.application.noitu.unit_of_work import Sessions, SessionWork
from noitu.domain.noitu.rules import SessionLimits

# Sessions the sweep goes through before it lets waiting requests in. A store in
# memory answers without yielding, so a sweep over tens of thousands of sessions (those
# of the last three minutes, under a load of short games) would otherwise hold every
# request for the whole of it: half a second and more, as measured under that load.
SWEEP_BATCH = 64


class SweepResult(msgspec.Struct, frozen=True):
    settled: int
    dropped_idle: int
    dropped_finished: int


class SettleExpired:
    def __init__(self, sessions: Sessions, limits: SessionLimits) -> None:
        self._sessions = sessions
        self._limits = limits

    async def __call__(self) -> SweepResult:
        settled = dropped_idle = dropped_finished = 0
        for done, session_id in enumerate(await self._sessions.ids(), 1):
            if done % SWEEP_BATCH == 0:
                await asyncio.sleep(0)
            try:
                done_with = await self._sessions.change(session_id, self._sweep, touch=False)
            except NoSession:
                continue  # gone since the listing
            settled += done_with is Swept.SETTLED
            dropped_idle += done_with is Swept.IDLE
            dropped_finished += done_with is Swept.FINISHED
        return SweepResult(settled, dropped_idle, dropped_finished)

    def _sweep(self, work: SessionWork) -> Swept | None:
        session, now = work.session, work.now_ms
        game = session.game
        if game.settle(now):
            work.commit()
            return Swept.SETTLED
        if session.is_playing and now - session.last_active_ms >= self._limits.idle_ms:
            game.give_up(now)
            work.remove()
            return Swept.IDLE
        if not session.is_playing and now - game.ended_ms >= self._limits.finished_ms:
            work.remove()
            return Swept.FINISHED
        return None


class Swept(enum.Enum):
    """What the sweep did with one session."""

    SETTLED = "settled"
    IDLE = "idle"
    FINISHED = "finished"
