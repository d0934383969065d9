"""The words the players bring (spec B11): which word may join the game, and the live
overlay that applies the operators' additions and removals over the shipped Lexicon.

Pure: the changes come in order from the additions store (an adapter); time is an int
of milliseconds carried by each change.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.phonotactics import is_vietnamese_word
from noitu.domain.noitu.rules import MIN_SYLLABLES, TIERS, typed_word_too_long

ADDED_TIER = 4  # an added word's tier unless the operator gives one: the bots keep theirs
FOREIGN_LETTERS = frozenset("fjwz")


class Unfit(str, Enum):
    """Why B1's filter refuses a word (a reported word is then not stored)."""

    TOO_LONG = "too_long"
    ONE_SYLLABLE = "one_syllable"
    NOT_LETTERS = "not_letters"  # digits, punctuation, hyphens
    FOREIGN_LETTER = "foreign_letter"  # f, j, w, z
    NOT_VIETNAMESE = "not_vietnamese"  # a syllable Vietnamese does not have


def unfit(word: str) -> Unfit | None:
    """B1's filter on a normalized word (B2): None when the word may join the game."""
    if typed_word_too_long(word):
        return Unfit.TOO_LONG
    if len(word.split(" ")) < MIN_SYLLABLES:
        return Unfit.ONE_SYLLABLE
    if not all(char.isalpha() or char == " " for char in word):
        return Unfit.NOT_LETTERS
    if any(char in FOREIGN_LETTERS for char in word):
        return Unfit.FOREIGN_LETTER
    if not is_vietnamese_word(word):
        return Unfit.NOT_VIETNAMESE
    return None


class Action(str, Enum):
    ADD = "add"
    REMOVE = "remove"


@dataclass(frozen=True)
class WordChange:
    """One operator decision, as the additions store keeps it, in order."""

    word: str  # normalized (B2)
    action: Action
    tier: int
    at_ms: int

    def __post_init__(self) -> None:
        if self.tier not in TIERS:
            raise ValueError(f"a tier is one of {TIERS}")


@dataclass(frozen=True)
class Added:
    word: str  # the canonical spelling the game plays
    tier: int
    at_ms: int


class Overlay:
    """The additions applied over one Lexicon, in the store's order (`version` is the
    number of changes applied). The shipped words are never removed by a removal of an
    added word's variant: a removal takes out only what an addition put in, or a shipped
    word when the operator names it."""

    def __init__(self, lexicon: Lexicon) -> None:
        self.lexicon = lexicon
        self.version = 0
        self._added: dict[str, Added] = {}  # canonical word -> its addition, oldest first

    def preview(self, changes: Iterable[WordChange]) -> Lexicon | None:
        """The Lexicon these changes would make, on a copy (this overlay and its Lexicon
        do not change), or None when they change no playable word: what the next bots'
        index is built on while the game goes on with the words as they are. Applying
        the same changes here then gives this Lexicon the same words and ids."""
        ahead = Overlay(self.lexicon.copy())
        changed = False
        for change in changes:
            changed = ahead.apply(change) or changed
        return ahead.lexicon if changed else None

    def apply(self, change: WordChange) -> bool:
        """Apply the next change; whether the playable words changed."""
        self.version += 1
        lexicon = self.lexicon
        if unfit(change.word) is not None:
            return False
        if change.action is Action.ADD:
            if lexicon.resolve(change.word) is not None:
                return False  # already playable (a variant joins its family)
            word_id = lexicon.add_word(change.word, change.tier)
            canonical = lexicon.words[word_id]
            self._added.pop(canonical, None)
            self._added[canonical] = Added(canonical, change.tier, change.at_ms)
            return True
        word_id = lexicon.remove_word(change.word)
        if word_id is None:
            return False
        self._added.pop(lexicon.words[word_id], None)
        return True

    def added(self, word: str) -> Added | None:
        """The addition that made a word (any spelling of it) playable, if one did."""
        word_id = self.lexicon.resolve(word)
        return None if word_id is None else self._added.get(self.lexicon.words[word_id])

    def recent(self, limit: int) -> list[Added]:
        """The last `limit` additions still in the game, newest first."""
        found = []
        for item in reversed(self._added.values()):
            if len(found) >= limit:
                break
            found.append(item)
        return found
