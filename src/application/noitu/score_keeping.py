"""What happens when a game ends: its score is reported once, in the background (B8)."""

from __future__ import annotations

from noitu.application.noitu.ports import Background, ScoreReporter, SessionRepository
from noitu.application.noitu.session import ReportState, Session


class ScoreKeeper:
    def __init__(
        self, sessions: SessionRepository, reporter: ScoreReporter, background: Background
    ) -> None:
        self._sessions = sessions
        self._reporter = reporter
        self._background = background

    async def save(self, session: Session) -> None:
        """Save a session; if this write records the game's end, report its score.

        The "pending" report state is written together with the ending, and the report
        starts only once that write succeeded: a failed write reports nothing, and the
        instance that wrote the ending is the only one that reports.
        """
        report = self._mark_ended(session)
        await self._sessions.save(session)
        if report:
            self._background.spawn(self._report(session.id, session))

    async def remove(self, session: Session) -> None:
        """Drop a session; a game it ends is still reported."""
        report = self._mark_ended(session)
        await self._sessions.remove(session.id)
        if report:
            self._background.spawn(self._report(session.id, session))

    @staticmethod
    def _mark_ended(session: Session) -> bool:
        """Set the report state of a game that just ended; True when it needs a report."""
        if session.is_playing or session.report is not ReportState.NONE:
            return False
        if session.game.score <= 0:
            session.report = ReportState.SKIPPED
            return False
        session.report = ReportState.PENDING
        return True

    async def _report(self, session_id: str, ended: Session) -> None:
        outcome = await self._reporter.report(
            ended.user_id, ended.game.score, ended.ticket.message
        )
        async with self._sessions.lock(session_id):
            stored = await self._sessions.get(session_id)
            if stored is None:
                return  # evicted or replaced meanwhile; Telegram has the score anyway
            stored.report = outcome
            await self._sessions.save(stored)
