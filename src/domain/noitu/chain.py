"""The Chain: the words of one game in order, and what is still unused.

Per-game counters make "how many unused words start with syllable s" O(1), which the
dead-end checks, the rarity points and the bots ask on every move.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum

from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.words import Word


class Side(str, Enum):
    BOT = "bot"
    PLAYER = "player"


@dataclass(frozen=True, slots=True)
class Link:
    """One word of the chain: the word, who played it and the points it earned."""

    word: Word
    by: Side
    points: int


class Chain:
    def __init__(self, lexicon: Lexicon) -> None:
        self.lexicon = lexicon
        self.links: list[Link] = []
        self.used: set[int] = set()
        self.used_from: dict[int, int] = {}  # first syllable -> used words starting there

    def __len__(self) -> int:
        return len(self.links)

    def copy(self) -> Chain:
        """An independent chain with the same words (links are immutable)."""
        twin = Chain.__new__(Chain)
        twin.lexicon = self.lexicon
        twin.links = self.links.copy()
        twin.used = self.used.copy()
        twin.used_from = self.used_from.copy()
        return twin

    @property
    def last_word(self) -> int:
        return self.links[-1].word.id

    @property
    def current(self) -> int:
        """The syllable id the next word must start with."""
        return self.lexicon.last[self.links[-1].word.id]

    @property
    def current_syllable(self) -> str:
        """The syllable to answer, as the last word writes it."""
        return self.lexicon.last_syllable(self.links[-1].word.id)

    def append(self, word: int, by: Side, points: int) -> None:
        self.links.append(Link(self.lexicon.word(word), by, points))
        self.used.add(word)
        first = self.lexicon.first[word]
        self.used_from[first] = self.used_from.get(first, 0) + 1

    def unused_replies(self, syllable: int) -> int:
        """How many unused dictionary words start with a syllable."""
        return self.lexicon.out_degree[syllable] - self.used_from.get(syllable, 0)

    def replies_after(self, word: int) -> int:
        """Unused replies the other side would have if `word` were played now."""
        lexicon = self.lexicon
        last = lexicon.last[word]
        return self.unused_replies(last) - (1 if lexicon.first[word] == last else 0)

    def legal_words(self, syllable: int | None = None) -> Iterator[int]:
        """Unused words starting with a syllable (the current one by default)."""
        used = self.used
        start = self.current if syllable is None else syllable
        return (w for w in self.lexicon.starting_with[start] if w not in used)

    def has_legal_word(self) -> bool:
        return self.unused_replies(self.current) > 0
