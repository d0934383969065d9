"""PlayMove: check the player's word, play the bot's reply, answer the new state (B4)."""

from __future__ import annotations

import random

import msgspec

from noitu.application.noitu.commands import PlayMoveCommand
from noitu.application.noitu.errors import BadRequest, GameOver, TooFast
from noitu.application.noitu.messages import REJECTION_MESSAGES, WORD_TOO_LONG
from noitu.application.noitu.session import Session
from noitu.application.noitu.unit_of_work import Sessions, SessionWork
from noitu.application.noitu.view import SessionView, SessionViews
from noitu.domain.noitu.daily import DailyPuzzle
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


#: What a move did: the session's read, the word's rejection (None: accepted), the
#: player's word and the bot's reply (word ids).
Played = tuple[SessionWork, Rejection | None, int | None, int | None]


class PlayMove:
    def __init__(
        self,
        sessions: Sessions,
        views: SessionViews,
        opponents: dict[Difficulty, Opponent],
        limits: SessionLimits,
        rng: random.Random,
        puzzle: DailyPuzzle | None = None,
    ) -> None:
        self._sessions = sessions
        self._views = views
        self._opponents = opponents
        self._limits = limits
        self._rng = rng
        self._puzzle = puzzle  # the daily games' bot (B13)

    async def __call__(self, command: PlayMoveCommand) -> PlayMoveResult:
        played = await self._sessions.change(command.session, lambda work: self._play(work, command))
        if isinstance(played, BadRequest):
            raise played  # after the write: the attempt counts for the 300 ms limit
        # The view after the write: it shows the score report the commit marked.
        work, rejection, player, bot = played
        return self._answer(work.session, work.now_ms, rejection, player, bot)

    def _play(self, work: SessionWork, command: PlayMoveCommand) -> Played | BadRequest:
        session, now = work.session, work.now_ms
        game = session.game
        if game.settle(now):
            work.commit()
            return work, Rejection.TIMEOUT, None, None
        if game.is_over:
            raise GameOver()
        if now - session.last_move_ms < self._limits.move_interval_ms:
            raise TooFast(
                retry_after_ms=session.last_move_ms + self._limits.move_interval_ms - now
            )
        session.last_move_ms = now
        work.commit()
        if typed_word_too_long(command.word):
            return BadRequest(WORD_TOO_LONG)
        typed = normalize(command.word)
        opponent = self._opponents[game.difficulty]
        if session.day and self._puzzle is not None:
            opponent = self._puzzle.opponent(opponent, session.day)
        outcome = game.play(typed, now, opponent, self._rng)
        if outcome.rejection is Rejection.NOT_IN_DICTIONARY:
            session.refused = typed
        return work, outcome.rejection, outcome.player_word, outcome.bot_word

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
