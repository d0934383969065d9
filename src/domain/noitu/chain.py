"""The Chain: the words of one game in order, and what is still unused.

Per-game counters make "how many unused words start with syllable s" O(1), which the
bots and the dead-end checks ask on every move. For the hard bot the chain also keeps,
per first syllable, the edges that now lead to an exhausted syllable (every word starting
there is used: a move there wins at once), and how many drawing moves of each syllable
are used (see `Lexicon.draw_moves`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum

from noitu.domain.noitu.lexicon import Lexicon


class Side(str, Enum):
    BOT = "bot"
    PLAYER = "player"


@dataclass(frozen=True, slots=True)
class Link:
    """One word of the chain: who played it and the points it earned."""

    word: int
    by: Side
    points: int


class Chain:
    def __init__(self, lexicon: Lexicon) -> None:
        self.lexicon = lexicon
        self.links: list[Link] = []
        self.used: set[int] = set()
        self.used_from: dict[int, int] = {}  # first syllable -> used words starting there
        self.used_edges: dict[int, int] = {}  # edge -> used words on it
        # first syllable -> edges from it into a syllable whose words are all used
        self.edges_to_exhausted: dict[int, list[int]] = {}
        self.used_draw_moves: dict[int, int] = {}  # syllable -> its drawing moves used

    def __len__(self) -> int:
        return len(self.links)

    @property
    def current(self) -> int:
        """The syllable id the next word must start with."""
        return self.lexicon.last[self.links[-1].word]

    @property
    def current_syllable(self) -> str:
        """The syllable to answer, as the last word writes it."""
        return self.lexicon.last_syllable(self.links[-1].word)

    def append(self, word: int, by: Side, points: int) -> None:
        lexicon = self.lexicon
        self.links.append(Link(word, by, points))
        self.used.add(word)
        first = lexicon.first[word]
        used = self.used_from[first] = self.used_from.get(first, 0) + 1
        edge = lexicon.edge_of[word]
        self.used_edges[edge] = self.used_edges.get(edge, 0) + 1
        if used == lexicon.out_degree[first]:
            # No word starts with `first` any more: every edge into it now wins at once.
            edge_first = lexicon.edge_first
            for into in lexicon.edges_into[first]:
                self.edges_to_exhausted.setdefault(edge_first[into], []).append(into)
        outcome = lexicon.outcome
        if not outcome[first] and not outcome[lexicon.last[word]]:
            self.used_draw_moves[first] = self.used_draw_moves.get(first, 0) + 1

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
