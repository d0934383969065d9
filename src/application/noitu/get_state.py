"""GetState: the session view; also settles a turn that ran out (spec "api/state")."""

from __future__ import annotations

from noitu.application.noitu.commands import SessionCommand
from noitu.application.noitu.unit_of_work import Sessions, SessionWork
from noitu.application.noitu.view import SessionView, SessionViews


class GetState:
    def __init__(self, sessions: Sessions, views: SessionViews) -> None:
        self._sessions = sessions
        self._views = views

    async def __call__(self, command: SessionCommand) -> SessionView:
        work = await self._sessions.change(command.session, _settle)
        return self._views.of(work.session, work.now_ms)


def _settle(work: SessionWork) -> SessionWork:
    work.session.game.settle(work.now_ms)
    work.commit()
    return work
