"""PlayMove: check the player's word, play the bot's reply, answer the new state (B4)."""

from __future__ import annotations

import random

import msgspec

from noitu.domain.noitu.game import Rejection, typed_word_too_long
from noitu.domain.noitu.bots.opponents import Difficulty, Opponent
from noitu.domain.noitu.spelling import normalize
from noitu.application.noitu.errors import BadRequest, GameOver, NoSession, TooFast
from noitu.application.noitu.limits import SessionLimits
from noitu.application.noitu.messages import REJECTION_MESSAGES, WORD_TOO_LONG
from noitu.application.noitu.ports import Clock, SessionRepository
from noitu.application.noitu.score_keeping import ScoreKeeper
from noitu.application.noitu.view import SessionView, view_of


class PlayMoveCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    session: str
    word: str


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
        sessions: SessionRepository,
        opponents: dict[Difficulty, Opponent],
        limits: SessionLimits,
        score_keeper: ScoreKeeper,
        clock: Clock,
        rng: random.Random,
    ) -> None:
        self._sessions = sessions
        self._opponents = opponents
        self._limits = limits
        self._score_keeper = score_keeper
        self._clock = clock
        self._rng = rng

    async def __call__(self, command: PlayMoveCommand) -> PlayMoveResult:
        async with self._sessions.lock(command.session):
            session = await self._sessions.get(command.session)
            if session is None:
                raise NoSession()
            now = self._clock.now_ms()
            game = session.game
            session.last_active_ms = now
            if game.settle(now):
                await self._score_keeper.save(session)
                return self._answer(session, now, Rejection.TIMEOUT, None, None)
            if game.is_over:
                raise GameOver()
            if now - session.last_move_ms < self._limits.move_interval_ms:
                raise TooFast()
            session.last_move_ms = now
            if typed_word_too_long(command.word):
                await self._sessions.save(session)
                raise BadRequest(WORD_TOO_LONG)

            outcome = game.play(
                normalize(command.word), now, self._opponents[game.difficulty], self._rng
            )
            await self._score_keeper.save(session)
            return self._answer(
                session, now, outcome.rejection, outcome.player_word, outcome.bot_word
            )

    @staticmethod
    def _answer(
        session, now: int, rejection: Rejection | None, player: int | None, bot: int | None
    ) -> PlayMoveResult:
        state = view_of(session, now)
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
