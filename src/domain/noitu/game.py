"""One game of nối từ: the move checks, the turn clock and the endings (spec B4).

Time is a plain integer of milliseconds handed in by the caller; the domain never reads
a clock. Randomness comes in as a `random.Random`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from noitu.domain.noitu.chain import Chain, Side
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.opponent import Difficulty, Opponent
from noitu.domain.noitu.rules import (
    MAX_CHAIN_WORDS,
    Rejection,
    TurnClock,
    check_word,
    draw_opening,
    suggestions,
)
from noitu.domain.noitu.scoring import Score


class Status(str, Enum):
    PLAYING = "playing"
    WON = "won"
    LOST = "lost"


class EndReason(str, Enum):
    TIMEOUT = "timeout"
    NO_LEGAL_MOVE = "no_legal_move"
    GAVE_UP = "gave_up"
    BOT_STUCK = "bot_stuck"
    MAX_MOVES = "max_moves"


@dataclass(frozen=True, slots=True)
class MoveOutcome:
    accepted: bool
    rejection: Rejection | None = None
    player_word: int | None = None
    bot_word: int | None = None


class Game:
    """The chain, whose turn it is, its deadline, the score and how the game ended."""

    def __init__(self, lexicon: Lexicon, clock: TurnClock, difficulty: Difficulty) -> None:
        self.lexicon = lexicon
        self.clock = clock
        self.difficulty = difficulty
        self.chain = Chain(lexicon)
        self.status = Status.PLAYING
        self.end_reason: EndReason | None = None
        self.deadline_ms = 0
        self.ended_ms = 0
        self.score = 0
        self.suggestions: list[int] = []

    @classmethod
    def start(
        cls,
        lexicon: Lexicon,
        clock: TurnClock,
        difficulty: Difficulty,
        rng: random.Random,
        now_ms: int,
    ) -> Game:
        """The bot opens; the player's clock starts at once."""
        game = cls(lexicon, clock, difficulty)
        opening = draw_opening(lexicon, rng)
        game.chain.append(opening, Side.BOT, 0)
        game.deadline_ms = now_ms + clock.turn_ms
        return game

    @classmethod
    def restore(
        cls,
        lexicon: Lexicon,
        clock: TurnClock,
        difficulty: Difficulty,
        links: Iterable[tuple[int, Side, int]],
        *,
        status: Status,
        end_reason: EndReason | None,
        deadline_ms: int,
        ended_ms: int,
        score: int,
        suggestions: Iterable[int] = (),
    ) -> Game:
        """A game saved elsewhere, rebuilt: the chain is replayed word by word (word,
        side, points), so its used words and counters are the original's."""
        game = cls(lexicon, clock, difficulty)
        for word, by, points in links:
            game.chain.append(word, by, points)
        if not len(game.chain):
            raise ValueError("a game has at least its opening word")
        game.status = status
        game.end_reason = end_reason
        game.deadline_ms = deadline_ms
        game.ended_ms = ended_ms
        game.score = score
        game.suggestions = list(suggestions)
        return game

    def copy(self) -> Game:
        """An independent game in the same state (what a store keeps and hands out)."""
        twin = Game.__new__(Game)
        twin.lexicon = self.lexicon
        twin.clock = self.clock
        twin.difficulty = self.difficulty
        twin.chain = self.chain.copy()
        twin.status = self.status
        twin.end_reason = self.end_reason
        twin.deadline_ms = self.deadline_ms
        twin.ended_ms = self.ended_ms
        twin.score = self.score
        twin.suggestions = self.suggestions.copy()
        return twin

    @property
    def is_over(self) -> bool:
        return self.status is not Status.PLAYING

    def turn_expired(self, now_ms: int) -> bool:
        """A move counts while now ≤ deadline + grace."""
        return not self.is_over and now_ms > self.deadline_ms + self.clock.grace_ms

    def settle(self, now_ms: int) -> bool:
        """End a turn that ran out: `timeout`, or `no_legal_move` in a dead end."""
        if not self.turn_expired(now_ms):
            return False
        reason = EndReason.TIMEOUT if self.chain.has_legal_word() else EndReason.NO_LEGAL_MOVE
        self._end(Status.LOST, reason, now_ms)
        return True

    def give_up(self, now_ms: int) -> None:
        """"Chịu thua": `no_legal_move` in a dead end, otherwise `gave_up`."""
        if self.is_over:
            return
        reason = EndReason.GAVE_UP if self.chain.has_legal_word() else EndReason.NO_LEGAL_MOVE
        self._end(Status.LOST, reason, now_ms)

    def points_for(self, word: int, now_ms: int) -> int:
        """The points a word answering the current syllable earns now."""
        lexicon = self.lexicon
        return Score.of(
            words_before=len(self.chain),
            syllables=lexicon.syllable_counts[word],
            time_left_ms=self.deadline_ms - now_ms,
            turn_ms=self.clock.turn_ms,
            replies_to_answered=lexicon.out_degree[self.chain.current],
        ).total

    def play(
        self, typed: str, now_ms: int, opponent: Opponent, rng: random.Random
    ) -> MoveOutcome:
        """Check a normalized word in the spec's order, then let the bot answer.

        The caller has settled an expired turn and refused a finished game already.
        """
        if self.is_over or self.turn_expired(now_ms):
            raise ValueError("play() needs a game whose turn is still open")
        rejection, word = check_word(self.chain, typed)
        if rejection is not None or word is None:
            return MoveOutcome(False, rejection, player_word=word)
        chain = self.chain
        points = self.points_for(word, now_ms)
        chain.append(word, Side.PLAYER, points)
        self.score += points
        if len(chain) >= MAX_CHAIN_WORDS:
            self._end(Status.WON, EndReason.MAX_MOVES, now_ms)
            return MoveOutcome(True, player_word=word)

        reply = opponent.choose(chain, rng)
        if reply is None:
            self._end(Status.WON, EndReason.BOT_STUCK, now_ms)
            return MoveOutcome(True, player_word=word)
        # The bot answers at once, so its word is valued with the whole turn left.
        self.deadline_ms = now_ms + self.clock.turn_ms
        chain.append(reply, Side.BOT, self.points_for(reply, now_ms))
        return MoveOutcome(True, player_word=word, bot_word=reply)

    def _end(self, status: Status, reason: EndReason, now_ms: int) -> None:
        self.status = status
        self.end_reason = reason
        self.ended_ms = now_ms
        self.deadline_ms = 0
        if status is Status.LOST:
            self.suggestions = suggestions(self.chain, self.chain.current)
