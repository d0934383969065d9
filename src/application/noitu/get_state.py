"""GetState: the session view; also settles a turn that ran out (spec "api/state")."""

from __future__ import annotations

from noitu.application.noitu.commands import SessionCommand
from noitu.application.noitu.unit_of_work import Sessions
from noitu.application.noitu.view import SessionView, SessionViews


class GetState:
    def __init__(self, sessions: Sessions, views: SessionViews) -> None:
        self._sessions = sessions
        self._views = views

    async def __call__(self, command: SessionCommand) -> SessionView:
        async with self._sessions.open(command.session) as work:
            work.session.game.settle(work.now_ms)
            await work.commit()
            return self._views.of(work.session, work.now_ms)
