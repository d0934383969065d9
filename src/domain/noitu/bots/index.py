"""What the bots know about a Lexicon beyond the rules: its edges and the retrograde
analysis of its syllable graph, built once so that a reply stays cheap.

An edge is the set of words sharing a first and a last syllable: such words are
interchangeable for the rest of a game, so the bots search over edges, not words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from noitu.domain.noitu.bots.vocabulary import COMMON, WordClass
from noitu.domain.noitu.lexicon import Lexicon

# Search values, for the side to move. A game won or lost inside the search is worth
# ±(WIN + plies left), so that a quicker win (or a slower loss) is preferred. A position
# the search stops at is worth its static value, well inside ±STATIC.
WIN = 1_000_000
STATIC = 10_000


class BotIndex:
    """Indexes of one Lexicon that only the bots read (built once, ~40 ms on the shipped
    dictionary; the adapters' built-Lexicon cache keeps them too).

    - `edge_of[w]`, `edge_first[e]`, `edge_last[e]`, `edge_size[e]`: the edge of a
      word; an edge's first and last syllable and its number of words.
    - `edges_from[s]` / `edges_into[s]`: the edges leaving / entering syllable s.
    - `outcome[s]`: the value of syllable s for the side to move, by retrograde
      analysis of the syllable graph: d > 0 when that side wins and d < 0 when it
      loses, the game ending on the |d|-th position from here (this one counts as the
      first: a syllable no word starts with is -1, one with a word into such a syllable
      is +2); 0 when neither side can force an end. The analysis lets every word be
      played again, except words that start and end on the same syllable (such as "gì
      gì"): such words only hand the same syllable back, so they decide by their
      number, odd or even, when every other move loses. Words do run out, so this is
      exact for -1 and +2 and a guide beyond.
    - `draw_moves[s]`: for a syllable of outcome 0, how many words lead from it to a
      syllable of outcome 0 (its only moves that do not lose by the analysis); once a
      game has used them all, the side to move there is lost by it too.
    - `draw_edges_from[s]`: the edges from s into a syllable of outcome 0.
    - `edges_ranked[s]`: the edges from s, best first for the side moving by the
      outcome of their last syllable: quick wins, slower wins, draws, slow losses,
      quick losses; ties in edge order.
    - `static[s]`: the search's value of syllable s from its outcome: a forced win in
      fewer plies is worth more, a forced loss in fewer plies less, 0 when neither side
      can force the end.
    """

    # What a built index is made of: the attributes a snapshot keeps and `from_fields`
    # takes back (besides the Lexicon it indexes), named one by one.
    SNAPSHOT_FIELDS = (
        "edge_of",
        "edge_first",
        "edge_last",
        "edge_size",
        "edges_from",
        "edges_into",
        "outcome",
        "draw_moves",
        "draw_edges_from",
        "edges_ranked",
        "static",
    )

    def __init__(self, lexicon: Lexicon) -> None:
        self.lexicon = lexicon
        self._build()

    def refresh(self) -> None:
        """Rebuild every index in place after the Lexicon's live overlay changed (spec
        B11): the policies holding this index see the new words at once."""
        self._build()

    def adopt(self, built: BotIndex) -> None:
        """Take in one step the indexes of one built on another Lexicon with the same
        words (`Overlay.preview`'s copy, once this Lexicon has had the same changes): the
        server builds the next index off its event loop, then switches (spec B11)."""
        mine, theirs = self.lexicon, built.lexicon
        if (
            len(theirs.words) != len(mine.words)
            or len(theirs.syllable_names) != len(mine.syllable_names)
            or theirs.retired != mine.retired
        ):
            raise ValueError("the BotIndex was built on other words than its Lexicon's")
        for name in self.SNAPSHOT_FIELDS:
            setattr(self, name, getattr(built, name))
        self._class_words = {}

    def _build(self) -> None:
        lexicon = self.lexicon
        count = len(lexicon.syllable_names)
        edge_ids: dict[tuple[int, int], int] = {}
        edge_of: list[int] = []
        edge_first: list[int] = []
        edge_last: list[int] = []
        edge_size: list[int] = []
        edges_from: list[list[int]] = [[] for _ in range(count)]
        # A word the live overlay removed keeps an edge (chains under way hold it) but
        # is not counted in it; an edge with no playable word is no move.
        retired = set(lexicon.retired.values())
        for word_id, (first, last) in enumerate(zip(lexicon.first, lexicon.last)):
            edge = edge_ids.get((first, last))
            if edge is None:
                edge = edge_ids[(first, last)] = len(edge_last)
                edge_first.append(first)
                edge_last.append(last)
                edge_size.append(0)
                edges_from[first].append(edge)
            edge_of.append(edge)
            if word_id not in retired:
                edge_size[edge] += 1
        if retired:
            edges_from = [[e for e in edges if edge_size[e]] for edges in edges_from]
        self.edge_of = edge_of
        self.edge_first = edge_first
        self.edge_last = edge_last
        self.edge_size = edge_size
        self.edges_from: list[tuple[int, ...]] = [tuple(e) for e in edges_from]
        into: list[list[int]] = [[] for _ in range(count)]
        loops = [0] * count  # words that start and end on the same syllable
        for edge, (first, last) in enumerate(zip(edge_first, edge_last)):
            if not edge_size[edge]:
                continue
            into[last].append(edge)
            if first == last:
                loops[first] = edge_size[edge]
        self.edges_into: list[list[int]] = into
        self.outcome: list[int] = self._retrograde(loops)
        self._draws()
        self._rank()
        self._class_words: dict[WordClass, list[tuple[int, ...] | None]] = {}

    @classmethod
    def from_fields(cls, lexicon: Lexicon, fields: Mapping[str, Any]) -> BotIndex:
        """A built index back from its SNAPSHOT_FIELDS, for the Lexicon it was built on."""
        if set(fields) != set(cls.SNAPSHOT_FIELDS):
            raise ValueError("a BotIndex snapshot needs exactly its SNAPSHOT_FIELDS")
        if len(fields["outcome"]) != len(lexicon.syllable_names):
            raise ValueError("the BotIndex snapshot is of another Lexicon")
        index = cls.__new__(cls)
        index.lexicon = lexicon
        for name in cls.SNAPSHOT_FIELDS:
            setattr(index, name, fields[name])
        index._class_words = {}
        return index

    def fields(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.SNAPSHOT_FIELDS}

    def _retrograde(self, loops: list[int]) -> list[int]:
        """Breadth first, so that every distance is the shortest win (or the longest
        loss) once the position is decided. A syllable whose other moves all lose is won
        by whoever does not play the last of its looping words: the side to move when
        an odd number of them is left."""
        count = len(loops)
        edge_first, into = self.edge_first, self.edges_into
        outcome = [0] * count
        undecided_moves = [len(edges) - (loops[s] > 0) for s, edges in enumerate(self.edges_from)]
        queue = [s for s in range(count) if not undecided_moves[s]]
        for s in queue:
            outcome[s] = loops[s] + 1 if loops[s] % 2 else -loops[s] - 1
        head = 0
        while head < len(queue):
            target = queue[head]
            head += 1
            value = outcome[target]
            for edge in into[target]:
                source = edge_first[edge]
                if outcome[source]:
                    continue
                if value < 0:
                    outcome[source] = 1 - value
                    queue.append(source)
                else:
                    undecided_moves[source] -= 1
                    if not undecided_moves[source]:
                        spins = loops[source]
                        outcome[source] = spins + value + 1 if spins % 2 else -spins - value - 1
                        queue.append(source)
        return outcome

    def _draws(self) -> None:
        count = len(self.outcome)
        outcome, edge_first, edge_size = self.outcome, self.edge_first, self.edge_size
        draw_moves = [0] * count
        draw_edges: list[list[int]] = [[] for _ in range(count)]
        for target, value in enumerate(outcome):
            if not value:
                for edge in self.edges_into[target]:
                    source = edge_first[edge]
                    draw_edges[source].append(edge)
                    if not outcome[source]:
                        draw_moves[source] += edge_size[edge]
        self.draw_moves: list[int] = draw_moves
        self.draw_edges_from: list[list[int]] = draw_edges

    def _rank(self) -> None:
        outcome = self.outcome
        worst = -2 * len(outcome)  # below any distance
        badness = [
            worst - value if value < 0 else (-worst - value if value > 0 else 0)
            for value in outcome
        ]
        edge_badness = list(map(badness.__getitem__, self.edge_last))
        self.edges_ranked: list[tuple[int, ...]] = [
            tuple(sorted(edges, key=edge_badness.__getitem__)) for edges in self.edges_from
        ]
        self.static: list[int] = [
            STATIC - o if o > 0 else (-STATIC - o if o < 0 else 0) for o in outcome
        ]

    def words_in(self, word_class: WordClass, syllable: int) -> tuple[int, ...]:
        """The words of a class starting with a syllable, in code-point order (an index
        filled on first use, per class and syllable)."""
        per_syllable = self._class_words.get(word_class)
        if per_syllable is None:
            per_syllable = self._class_words[word_class] = [None] * len(self.outcome)
        found = per_syllable[syllable]
        if found is None:
            lexicon = self.lexicon
            tiers = lexicon.tiers
            last = lexicon.last
            replies = lexicon.common_out_degree
            wanted = word_class.tiers
            least = word_class.min_common_replies
            found = per_syllable[syllable] = tuple(
                w for w in lexicon.starting_with[syllable]
                if tiers[w] in wanted and replies[last[w]] >= least
            )
        return found

    def common_starting_with(self, syllable: int) -> tuple[int, ...]:
        """The common words (tier ≤ 2) starting with a syllable."""
        return self.words_in(COMMON, syllable)

    def is_draw_move(self, word: int) -> bool:
        """A word from a syllable of outcome 0 into another one."""
        lexicon = self.lexicon
        outcome = self.outcome
        return not outcome[lexicon.first[word]] and not outcome[lexicon.last[word]]
