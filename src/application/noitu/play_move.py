"""PlayMove: check the player's word, play the bot's reply, answer the new state (B4)."""

from __future__ import annotations

import random

import msgspec

from noitu.application.noitu.commands import PlayMoveCommand
from noitu.application.noitu.errors import BadRequest, GameOver, TooFast
from noitu.application.noitu.messages import REJECTION_MESSAGES, WORD_TOO_LONG
from noitu.application.noitu.session import Session
from noitu.application.noitu.unit_of_work import Sessions
from noitu.application.noitu.view import SessionView, SessionViews
from noitu.domain.noitu.opponent import Difficulty, Opponent
from noitu.domain.noitu.rules import Rejection, SessionLimits, typed_word_too_long
from noitu.domain.noitu.spelling import normalize


class MoveResultView(msgspec.Struct, frozen=True):
    accepted: bool
    reason: str
    message: str
    player_word: str
    bot_word: str


class PlayMoveResult(msgspec.Struct, frozen=True):
    result: MoveResultView
    state: SessionView


class PlayMove:
    def __init__(
        self,
        sessions: Sessions,
        views: SessionViews,
        opponents: dict[Difficulty, Opponent],
        limits: SessionLimits,
        rng: random.Random,
    ) -> None:
        self._sessions = sessions
        self._views = views
        self._opponents = opponents
        self._limits = limits
        self._rng = rng

    async def __call__(self, command: PlayMoveCommand) -> PlayMoveResult:
        async with self._sessions.open(command.session) as work:
            session, now = work.session, work.now_ms
            game = session.game
            if game.settle(now):
                await work.commit()
                return self._answer(session, now, Rejection.TIMEOUT, None, None)
            if game.is_over:
                raise GameOver()
            if now - session.last_move_ms < self._limits.move_interval_ms:
                raise TooFast(
                    retry_after_ms=session.last_move_ms + self._limits.move_interval_ms - now
                )
            session.last_move_ms = now
            if typed_word_too_long(command.word):
                await work.commit()
                raise BadRequest(WORD_TOO_LONG)

            outcome = game.play(
                normalize(command.word), now, self._opponents[game.difficulty], self._rng
            )
            await work.commit()
            return self._answer(
                session, now, outcome.rejection, outcome.player_word, outcome.bot_word
            )

    def _answer(
        self,
        session: Session,
        now: int,
        rejection: Rejection | None,
        player: int | None,
        bot: int | None,
    ) -> PlayMoveResult:
        state = self._views.of(session, now)
        words = session.game.lexicon.words
        message = ""
        if rejection is not None:
            message = REJECTION_MESSAGES[rejection.value].format(current=state.current)
        return PlayMoveResult(
            result=MoveResultView(
                accepted=rejection is None,
                reason=rejection.value if rejection else "",
                message=message,
                player_word=words[player] if player is not None else "",
                bot_word=words[bot] if bot is not None else "",
            ),
            state=state,
        )
