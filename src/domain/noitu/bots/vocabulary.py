"""What each level knows (spec B6, "Vocabularies"): the classes of words it may play, in
the order it tries them.

A level applies its rule to the legal words of the first class that has any, and moves to
the next class only when none of the class is legal; with no legal word in any class it
is stuck, and the player wins (`bot_stuck`). A class is a set of tiers and a least number
of "common replies": the common words (tier ≤ 2) that start the word's last syllable — a
number fixed by the dictionary, whatever the chain has used. So a class is a set of
words, never a look at the position; what a level does with the position is its rule.

- An **open** word leaves a person plenty to answer: its last syllable starts at least
  20 common words (`OPEN_MIN_COMMON_REPLIES`, the opening's number).
- An **answerable** word leaves a person at least one common word to answer with.

Easy and medium know the common words, open ones first, and fall back on a few rare
words a person can answer; hard knows every word and searches (it has no vocabulary).
"""

from __future__ import annotations

from dataclasses import dataclass

from noitu.domain.noitu.rules import COMMON_TIER, OPEN_MIN_COMMON_REPLIES, TIERS

COMMON_TIERS = frozenset(t for t in TIERS if t <= COMMON_TIER)
RARE_TIERS = frozenset(t for t in TIERS if t > COMMON_TIER)
ANSWERABLE_MIN_COMMON_REPLIES = 1


@dataclass(frozen=True, slots=True)
class WordClass:
    """The words of some tiers whose last syllable starts at least `min_common_replies`
    common words."""

    tiers: frozenset[int]
    min_common_replies: int = 0


OPEN_COMMON = WordClass(COMMON_TIERS, OPEN_MIN_COMMON_REPLIES)
COMMON = WordClass(COMMON_TIERS)
OPEN_RARE = WordClass(RARE_TIERS, OPEN_MIN_COMMON_REPLIES)
ANSWERABLE_RARE = WordClass(RARE_TIERS, ANSWERABLE_MIN_COMMON_REPLIES)

Vocabulary = tuple[WordClass, ...]

# Easy: open common words, then any common word, then an open rare word.
EASY_VOCABULARY: Vocabulary = (OPEN_COMMON, COMMON, OPEN_RARE)
# Medium: open common words, then any common word, then an answerable rare word.
MEDIUM_VOCABULARY: Vocabulary = (OPEN_COMMON, COMMON, ANSWERABLE_RARE)
