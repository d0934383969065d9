"""GetState: the session view; also settles a turn that ran out (spec "api/state")."""

from __future__ import annotations

from noitu.application.noitu.errors import NoSession
from noitu.application.noitu.give_up import SessionCommand
from noitu.application.noitu.ports import Clock, SessionRepository
from noitu.application.noitu.score_keeping import ScoreKeeper
from noitu.application.noitu.view import SessionView, view_of


class GetState:
    def __init__(
        self, sessions: SessionRepository, score_keeper: ScoreKeeper, clock: Clock
    ) -> None:
        self._sessions = sessions
        self._score_keeper = score_keeper
        self._clock = clock

    async def __call__(self, command: SessionCommand) -> SessionView:
        async with self._sessions.lock(command.session):
            session = await self._sessions.get(command.session)
            if session is None:
                raise NoSession()
            now = self._clock.now_ms()
            session.last_active_ms = now
            if session.game.settle(now):
                await self._score_keeper.save(session)
            return view_of(session, now)
