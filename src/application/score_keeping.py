"""What happens when a game ends: its score is reported once, in the background (B8)."""

from __future__ import annotations

from .ports import Background, ScoreReporter, SessionRepository
from .session import ReportState, Session


class ScoreKeeper:
    def __init__(
        self, sessions: SessionRepository, reporter: ScoreReporter, background: Background
    ) -> None:
        self._sessions = sessions
        self._reporter = reporter
        self._background = background

    def game_ended(self, session: Session) -> None:
        """Call after any change that may have ended the game; reports at most once.

        The report state is set on the session before the caller saves it, so a game's
        ending and its "pending" report are written together.
        """
        if session.is_playing or session.report is not ReportState.NONE:
            return
        if session.game.score <= 0:
            session.report = ReportState.SKIPPED
            return
        session.report = ReportState.PENDING
        self._background.spawn(self._report(session.id, session))

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
