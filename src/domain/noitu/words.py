"""Words as the game sees them: an entry of a dictionary, a meaning, a playable Word."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


@dataclass(frozen=True, slots=True)
class Meaning:
    pos: str
    gloss: str


class DictionaryEntry(NamedTuple):
    """One word line of a dictionary: the word, its tier (1 common … 4 rare), meanings."""

    word: str
    tier: int = 1
    meanings: tuple[Meaning, ...] = ()
    line: int = 0


@dataclass(frozen=True, slots=True)
class Word:
    """A playable word: its id in the Lexicon (what the rules and the bots index by) and
    how the game writes it. This is the value a Chain holds."""

    id: int
    text: str
    syllables: int
    tier: int
