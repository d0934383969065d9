"""GiveUp: "Chịu thua" ends the game; `no_legal_move` in a dead end, else `gave_up`."""

from __future__ import annotations

from noitu.application.noitu.commands import SessionCommand
from noitu.application.noitu.unit_of_work import Sessions, SessionWork
from noitu.application.noitu.view import SessionView, SessionViews


class GiveUp:
    def __init__(self, sessions: Sessions, views: SessionViews) -> None:
        self._sessions = sessions
        self._views = views

    async def __call__(self, command: SessionCommand) -> SessionView:
        work = await self._sessions.change(command.session, _give_up)
        return self._views.of(work.session, work.now_ms)


def _give_up(work: SessionWork) -> SessionWork:
    game = work.session.game
    # A turn that already ran out ends as it ran out, not as a give-up.
    if not game.settle(work.now_ms):
        game.give_up(work.now_ms)
    work.commit()
    return work
