"""GiveUp: "Chịu thua" ends the game; `no_legal_move` in a dead end, else `gave_up`."""

from __future__ import annotations

import msgspec

from noitu.application.noitu.errors import NoSession
from noitu.application.noitu.ports import Clock, SessionRepository
from noitu.application.noitu.score_keeping import ScoreKeeper
from noitu.application.noitu.view import SessionView, view_of


class SessionCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    session: str


class GiveUp:
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
            # A turn that already ran out ends as it ran out, not as a give-up.
            if not session.game.settle(now):
                session.game.give_up(now)
            await self._score_keeper.save(session)
            return view_of(session, now)
