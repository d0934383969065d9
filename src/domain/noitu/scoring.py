"""Score: the points of one accepted word (spec "Scoring" and B5). Integer arithmetic only."""

from __future__ import annotations

from dataclasses import dataclass

BASE_POINTS = 10
CHAIN_POINTS_PER_WORD = 2
CHAIN_WORDS_COUNTED = 15
LENGTH_POINTS_PER_SYLLABLE = 5
SPEED_POINTS = 10
RARITY_POINTS = 15
RARITY_STEP = 3
MAX_WORD_POINTS = 100


def rarity_points(replies: int) -> int:
    """max(15 − 3 × ⌊log₂ replies⌋, 0): fewer words to choose from, more points."""
    if replies < 1:
        return RARITY_POINTS
    return max(RARITY_POINTS - RARITY_STEP * (replies.bit_length() - 1), 0)


def speed_points(time_left_ms: int, turn_ms: int) -> int:
    """⌊10 × max(time left, 0) / turn⌋; nothing inside the grace window."""
    return SPEED_POINTS * max(time_left_ms, 0) // turn_ms


@dataclass(frozen=True, slots=True)
class Score:
    """The five parts of a word's points."""

    base: int
    chain: int
    length: int
    speed: int
    rarity: int

    @classmethod
    def of(
        cls,
        *,
        words_before: int,
        syllables: int,
        time_left_ms: int,
        turn_ms: int,
        replies_to_answered: int,
    ) -> Score:
        return cls(
            base=BASE_POINTS,
            chain=CHAIN_POINTS_PER_WORD * min(words_before, CHAIN_WORDS_COUNTED),
            length=LENGTH_POINTS_PER_SYLLABLE * (syllables - 2),
            speed=speed_points(time_left_ms, turn_ms),
            rarity=rarity_points(replies_to_answered),
        )

    @property
    def total(self) -> int:
        return min(self.base + self.chain + self.length + self.speed + self.rarity, MAX_WORD_POINTS)
