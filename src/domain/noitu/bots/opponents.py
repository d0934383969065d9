"""The bot: openings, the three Opponent policies, and suggestions (spec B6, B7).

Every policy is a pure function of (position, random source): it reads the chain, never
changes it, and returns a legal unused word id, or None when there is none.

All three work on the Lexicon's integer indexes and the Chain's per-game counters, so a
reply costs about the number of *edges* out of the current syllable (an edge is the set
of words sharing a first and a last syllable), never the size of the dictionary.
"""

from __future__ import annotations

import random
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from noitu.domain.noitu.chain import Chain
from noitu.domain.noitu.lexicon import COMMON_TIER, Lexicon

HARD_DEPTH = 4
HARD_NODE_LIMIT = 20_000
SUGGESTION_LIMIT = 3
# Search values, for the side to move. A game won or lost inside the search is worth
# ±(WIN + plies left), so that a quicker win (or a slower loss) is preferred. A position
# the search stops at is worth its static value, well inside ±STATIC.
WIN = 1_000_000
STATIC = 10_000
DRAWLESS = STATIC // 2  # a syllable of outcome 0 with no drawing move left
EASY_TRIES = 8


class Difficulty(str, Enum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


class Opponent(Protocol):
    def choose(self, chain: Chain, rng: random.Random) -> int | None:
        """A legal unused word answering the chain's current syllable, or None."""
        ...


def draw_opening(lexicon: Lexicon, rng: random.Random) -> int:
    """A random word whose last syllable starts at least 20 words, common ones preferred.

    With no such word, the best-connected word: the most words start with its last
    syllable, ties going to the first in code-point order.
    """
    pool = lexicon.common_opening_candidates or lexicon.opening_candidates
    if pool:
        return pool[rng.randrange(len(pool))]
    degree = lexicon.out_degree
    last = lexicon.last
    return max(range(len(lexicon)), key=lambda w: (degree[last[w]], -w))


def _pick_unused(words: tuple[int, ...], used: set[int], rng: random.Random) -> int | None:
    """A uniformly random word of `words` that is not in `used`, or None.

    A few draws with rejection first (the chain uses few words of any syllable, so one
    draw nearly always does), then an exact draw among the unused ones.
    """
    if not words:
        return None
    count = len(words)
    for _ in range(EASY_TRIES):
        word = words[rng.randrange(count)]
        if word not in used:
            return word
    unused = [w for w in words if w not in used]
    return unused[rng.randrange(len(unused))] if unused else None


class EasyOpponent:
    """A random legal word, drawn from common words (tier ≤ 2) when any are legal."""

    def choose(self, chain: Chain, rng: random.Random) -> int | None:
        syllable = chain.current
        if chain.unused_replies(syllable) <= 0:
            return None
        lexicon = chain.lexicon
        used = chain.used
        found = _pick_unused(lexicon.common_starting_with(syllable), used, rng)
        if found is None:
            found = _pick_unused(lexicon.starting_with[syllable], used, rng)
        return found


def _edge_word(chain: Chain, edge: int, index: int, common_only: bool = False) -> int:
    """The index-th unused word on an edge (in code-point order)."""
    lexicon = chain.lexicon
    edge_of = lexicon.edge_of
    tiers = lexicon.tiers
    used = chain.used
    for word in lexicon.starting_with[lexicon.edge_first[edge]]:
        if edge_of[word] == edge and word not in used:
            if common_only and tiers[word] > COMMON_TIER:
                continue
            if not index:
                return word
            index -= 1
    raise ValueError("no such unused word on the edge")


def _word_on_edge(chain: Chain, edge: int, rng: random.Random) -> int:
    """A random unused word on an edge, a common one when the edge has any."""
    lexicon = chain.lexicon
    edge_of = lexicon.edge_of
    used = chain.used
    words = [
        w for w in lexicon.starting_with[lexicon.edge_first[edge]]
        if edge_of[w] == edge and w not in used
    ]
    tiers = lexicon.tiers
    common = [w for w in words if tiers[w] <= COMMON_TIER]
    pool = common or words
    return pool[rng.randrange(len(pool))]


class MediumOpponent:
    """One-move lookahead: a word leaving no reply if there is one; otherwise a random
    word among the quarter of legal words that leave the player the fewest replies.

    Words on one edge leave the same number of replies, so the ranking is over edges
    weighted by their unused words; the quarter is ⌈n/4⌉ words of the n legal ones, and
    words tying at its boundary are taken in edge order.
    """

    def choose(self, chain: Chain, rng: random.Random) -> int | None:
        lexicon = chain.lexicon
        syllable = chain.current
        used_from = chain.used_from
        used_edges = chain.used_edges
        out_degree = lexicon.out_degree
        edge_last = lexicon.edge_last
        edge_size = lexicon.edge_size
        ranked: list[tuple[int, int, int]] = []  # (replies left, edge, unused words)
        total = 0
        for edge in lexicon.edges_from[syllable]:
            free = edge_size[edge] - used_edges.get(edge, 0)
            if free > 0:
                last = edge_last[edge]
                ranked.append(
                    (out_degree[last] - used_from.get(last, 0) - (last == syllable), edge, free)
                )
                total += free
        if not ranked:
            return None
        ranked.sort()
        if ranked[0][0] == 0:
            total = sum(free for replies, _, free in ranked if replies == 0)
            pick = rng.randrange(total)
        else:
            pick = rng.randrange((total + 3) // 4)
        for _, edge, free in ranked:
            if pick < free:
                return _edge_word(chain, edge, pick)
            pick -= free
        raise AssertionError("unreachable: the pick is below the total")


@dataclass(slots=True)
class SearchStats:
    """What the last hard search cost; observable by the benchmark and the tests."""

    positions: int = 0
    exhausted: bool = False


_STATIC_VALUES: weakref.WeakKeyDictionary[Lexicon, list[int]] = weakref.WeakKeyDictionary()


def static_values(lexicon: Lexicon) -> list[int]:
    """The value of every syllable for the side to move, from the Lexicon's retrograde
    outcome: a forced win in fewer plies is worth more, a forced loss in fewer plies
    less, and a position neither side can force is worth 0. Cached per Lexicon."""
    found = _STATIC_VALUES.get(lexicon)
    if found is None:
        found = [
            STATIC - o if o > 0 else (-STATIC - o if o < 0 else 0) for o in lexicon.outcome
        ]
        _STATIC_VALUES[lexicon] = found
    return found


class HardOpponent:
    """Negamax with alpha-beta over the real game state, 4 plies, ≤ 20,000 positions.

    The search runs over edges (words sharing a first and a last syllable are
    interchangeable for the rest of the game) and respects the used words: every
    position it visits knows exactly which words are left, and a side that has a word
    leaving the other side no reply always plays it. Where the search stops, a position
    is valued by the Lexicon's retrograde outcome of its syllable (who can force the
    end, and how soon, were words never used up); a syllable neither side can force is
    worth 0, unless the game has used all its drawing moves (it is then lost by the
    analysis) or the side to move can send the other side into such a syllable. Those
    values also order the moves, best first, so that alpha-beta cuts most of the tree,
    and at the last ply a move is not even tried once its static value cannot beat what
    the side already has.

    The root moves are shuffled by the random source before that ordering, so a tie is
    broken at random but the choice is a function of (chain, rng).
    """

    def __init__(self, depth: int = HARD_DEPTH, node_limit: int = HARD_NODE_LIMIT) -> None:
        if depth < 1:
            raise ValueError("the search needs at least one ply")
        self.depth = depth
        self.node_limit = node_limit
        self.last_search = SearchStats()

    def choose(self, chain: Chain, rng: random.Random) -> int | None:
        lexicon = chain.lexicon
        stats = SearchStats(positions=1)
        self.last_search = stats
        root = chain.current
        out_degree = lexicon.out_degree
        edge_last = lexicon.edge_last
        edge_size = lexicon.edge_size
        used_from = chain.used_from
        used_edges = chain.used_edges

        moves: list[int] = []
        winning: list[int] = []
        for edge in lexicon.edges_ranked[root]:
            if edge_size[edge] > used_edges.get(edge, 0):
                last = edge_last[edge]
                if out_degree[last] - used_from.get(last, 0) - (last == root) == 0:
                    winning.append(edge)
                moves.append(edge)
        if not moves:
            return None
        if winning:
            return self._winning_word(chain, winning, rng)
        if len(moves) == 1 or self.depth == 1:
            return _word_on_edge(chain, moves[0], rng)

        search = _Search(chain, self.node_limit, stats)
        edge = search.best_root_move(root, moves, self.depth, rng)
        return _word_on_edge(chain, edge, rng)

    @staticmethod
    def _winning_word(chain: Chain, edges: list[int], rng: random.Random) -> int:
        """A random word among those leaving no reply, a common one when there is any."""
        lexicon = chain.lexicon
        edge_of = lexicon.edge_of
        tiers = lexicon.tiers
        winning = set(edges)
        words = [w for w in chain.legal_words() if edge_of[w] in winning]
        common = [w for w in words if tiers[w] <= COMMON_TIER]
        pool = common or words
        return pool[rng.randrange(len(pool))]


class _Search:
    """One hard search: private copies of the chain's counters that moves are made on
    and taken back, and the negamax itself.

    Besides the words left, the search follows two things the chain tracks for whole
    games: syllables with no word left (a move there wins at once; what the search's
    own moves add goes into an overlay undone with them) and the drawing moves used of
    each syllable of outcome 0 (with none left, a syllable is "drawless": a move there
    leaves the other side lost by the Lexicon's analysis).
    """

    def __init__(self, chain: Chain, node_limit: int, stats: SearchStats) -> None:
        lexicon = chain.lexicon
        self.stats = stats
        self.limit = node_limit
        self.out_degree = lexicon.out_degree
        self.edge_last = lexicon.edge_last
        self.edge_first = lexicon.edge_first
        self.edge_size = lexicon.edge_size
        self.edges_from = lexicon.edges_from
        self.edges_into = lexicon.edges_into
        self.ranked = lexicon.edges_ranked
        self.outcome = lexicon.outcome
        self.draw_moves = lexicon.draw_moves
        self.draw_edges_from = lexicon.draw_edges_from
        self.static = static_values(lexicon)
        self.used_from = dict(chain.used_from)
        self.used_edges = dict(chain.used_edges)
        self.used_draw = dict(chain.used_draw_moves)
        self.to_exhausted = chain.edges_to_exhausted
        self.more_to_exhausted: dict[int, list[int]] = {}

    # --- moves --------------------------------------------------------------------

    def play(self, syllable: int, edge: int, last: int) -> int:
        """Make a move; returns what `take_back` needs (bit 1: the syllable ran out of
        words, bit 4: the move was a drawing move)."""
        used_edges = self.used_edges
        used_edges[edge] = used_edges.get(edge, 0) + 1
        used_from = self.used_from
        spent = used_from[syllable] = used_from.get(syllable, 0) + 1
        changes = 0
        if spent == self.out_degree[syllable]:
            changes |= 1
            self._overlay(self.more_to_exhausted, syllable)
        outcome = self.outcome
        if not outcome[syllable] and not outcome[last]:
            changes |= 4
            used_draw = self.used_draw
            used_draw[syllable] = used_draw.get(syllable, 0) + 1
        return changes

    def take_back(self, syllable: int, edge: int, changes: int) -> None:
        self.used_edges[edge] -= 1
        self.used_from[syllable] -= 1
        if changes:
            if changes & 1:
                self._drop_overlay(self.more_to_exhausted, syllable)
            if changes & 4:
                self.used_draw[syllable] -= 1

    def _overlay(self, overlay: dict[int, list[int]], syllable: int) -> None:
        edge_first = self.edge_first
        for edge in self.edges_into[syllable]:
            overlay.setdefault(edge_first[edge], []).append(edge)

    def _drop_overlay(self, overlay: dict[int, list[int]], syllable: int) -> None:
        edge_first = self.edge_first
        for edge in self.edges_into[syllable]:
            overlay[edge_first[edge]].pop()

    def _available(self, edges: list[int] | None) -> bool:
        if edges:
            edge_size = self.edge_size
            used_edges = self.used_edges
            for edge in edges:
                if edge_size[edge] > used_edges.get(edge, 0):
                    return True
        return False

    # --- evaluation -----------------------------------------------------------------

    def can_win(self, syllable: int, remaining: int) -> bool:
        """Whether the side to move has a word leaving the other side no reply."""
        if self.outcome[syllable] == 2:
            # A word into a syllable no word starts with (such a word ends the game, so
            # it is never used while a game or this search goes on), or a last looping
            # word.
            return True
        if self._available(self.to_exhausted.get(syllable)):
            return True
        if self._available(self.more_to_exhausted.get(syllable)):
            return True
        if remaining == 1:
            # The last word from here may end here too, leaving nothing to answer.
            edge_last = self.edge_last
            for edge in self.edges_from[syllable]:
                if edge_last[edge] == syllable and self._available([edge]):
                    return True
        return False

    def drawless_moves(self, syllable: int) -> list[int]:
        """Available edges into a drawless syllable (good moves for the side to move)."""
        found: list[int] = []
        edges = self.draw_edges_from[syllable]
        if edges:
            edge_size = self.edge_size
            edge_last = self.edge_last
            used_edges = self.used_edges
            used_draw = self.used_draw
            draw_moves = self.draw_moves
            for edge in edges:
                last = edge_last[edge]
                if used_draw.get(last, 0) >= draw_moves[last] and edge_size[edge] > used_edges.get(edge, 0):
                    found.append(edge)
        return found

    def leaf(self, syllable: int) -> int:
        """The static value of a position that has moves and no winning word."""
        if self.outcome[syllable]:
            return self.static[syllable]
        if self.draw_moves[syllable] <= self.used_draw.get(syllable, 0):
            return -DRAWLESS  # every move left loses by the analysis
        if self.drawless_moves(syllable):
            return DRAWLESS  # a move leaves the other side that way
        return 0

    # --- search ---------------------------------------------------------------------

    def negamax(self, syllable: int, depth: int, alpha: int, beta: int) -> int:
        """The value of the position for the side to move at `syllable`, `depth` plies
        left (the last ply only looks for a winning word), fail-soft alpha-beta."""
        stats = self.stats
        if stats.positions >= self.limit:
            # Out of budget: the position is not searched (nor counted), only valued.
            stats.exhausted = True
            return self.static[syllable]
        stats.positions += 1
        remaining = self.out_degree[syllable] - self.used_from.get(syllable, 0)
        if remaining <= 0:
            return -WIN - depth
        if self.can_win(syllable, remaining):
            return WIN + depth
        if depth <= 1:
            return self.leaf(syllable)

        edge_size = self.edge_size
        edge_last = self.edge_last
        used_edges = self.used_edges
        outcome = self.outcome
        static = self.static
        negamax = self.negamax
        play = self.play
        take_back = self.take_back
        # After a move that does not win at once, the best that can follow is the other
        # side having only moves that let this side win at once.
        best_possible = WIN + depth - 2
        best = -2 * WIN
        # Moves into a drawless syllable first: at the last ply they are the only
        # drawing moves that can beat 0, so the rest can be cut by their static value.
        tried = self.drawless_moves(syllable)
        for edge in tried:
            last = edge_last[edge]
            changes = play(syllable, edge, last)
            value = -negamax(last, depth - 1, -beta, -max(alpha, best))
            take_back(syllable, edge, changes)
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta or value >= best_possible:
                        return best
        for edge in self.ranked[syllable]:
            if edge_size[edge] <= used_edges.get(edge, 0) or (tried and edge in tried):
                continue
            last = edge_last[edge]
            if outcome[last] == 2:
                # This and every later edge lead where the other side wins at once.
                best = max(best, -WIN - depth + 1)
                break
            if depth == 2:
                # The reply is the last ply: a move is worth at most minus the static
                # value of where it leads (0 for a syllable of outcome 0 that is not
                # drawless, those came first), and the edges come sorted by that bound.
                bound = -static[last]
                if bound <= alpha:
                    best = max(best, bound)
                    break
            changes = play(syllable, edge, last)
            value = -negamax(last, depth - 1, -beta, -max(alpha, best))
            take_back(syllable, edge, changes)
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta or value >= best_possible:
                        break
        return best

    def best_root_move(self, root: int, moves: list[int], depth: int, rng: random.Random) -> int:
        """The root move with the best value; ties go to the first in a shuffled order
        (moves into a drawless syllable first, then by static value)."""
        static = self.static
        edge_last = self.edge_last
        outcome = self.outcome
        drawless = set(self.drawless_moves(root))
        order = moves[:]
        rng.shuffle(order)
        order.sort(key=lambda edge: (edge not in drawless, static[edge_last[edge]]))
        best_possible = WIN + depth - 2
        chosen = order[0]
        best = -2 * WIN
        for edge in order:
            last = edge_last[edge]
            if outcome[last] == 2 and best > -2 * WIN:
                break  # this and every later move let the player win at once
            changes = self.play(root, edge, last)
            if best == -2 * WIN:
                value = -self.negamax(last, depth - 1, -2 * WIN, 2 * WIN)
            else:
                # Only a better move matters: a null window first, the exact value after.
                value = -self.negamax(last, depth - 1, -best - 1, -best)
                if value > best:
                    value = -self.negamax(last, depth - 1, -2 * WIN, -best)
            self.take_back(root, edge, changes)
            if value > best:
                best, chosen = value, edge
                if best >= best_possible:
                    break
            if self.stats.positions >= self.limit:
                self.stats.exhausted = True
                break
        return chosen


OPPONENTS: dict[Difficulty, Callable[[], Opponent]] = {
    Difficulty.EASY: EasyOpponent,
    Difficulty.MEDIUM: MediumOpponent,
    Difficulty.HARD: HardOpponent,
}


def suggestions(chain: Chain, syllable: int, limit: int = SUGGESTION_LIMIT) -> list[int]:
    """Up to 3 unused words answering a syllable: common words first, then those that
    would have left the bot the fewest replies, then code-point order (spec B7)."""
    tiers = chain.lexicon.tiers
    replies_after = chain.replies_after
    ranked = sorted(chain.legal_words(syllable), key=lambda w: (tiers[w], replies_after(w), w))
    return ranked[:limit]
