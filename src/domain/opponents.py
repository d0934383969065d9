"""The bot: openings, the three Opponent policies, and suggestions (spec B6, B7).

Every policy is a pure function of (position, random source): it reads the chain, never
changes it, and returns a legal unused word id, or None when there is none.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from .chain import Chain
from .lexicon import COMMON_TIER, Lexicon

HARD_DEPTH = 4
HARD_NODE_LIMIT = 20_000
SUGGESTION_LIMIT = 3
WIN = 1_000_000
MOBILITY_CAP = 1_000


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


class EasyOpponent:
    """A random legal word, drawn from common words (tier ≤ 2) when any are legal."""

    def choose(self, chain: Chain, rng: random.Random) -> int | None:
        legal = list(chain.legal_words())
        if not legal:
            return None
        tiers = chain.lexicon.tiers
        common = [w for w in legal if tiers[w] <= COMMON_TIER]
        pool = common or legal
        return pool[rng.randrange(len(pool))]


class MediumOpponent:
    """One-move lookahead: a word leaving no reply if there is one; otherwise a random
    word among the quarter of legal words that leave the player the fewest replies."""

    def choose(self, chain: Chain, rng: random.Random) -> int | None:
        replies_after = chain.replies_after
        ranked = sorted((replies_after(w), w) for w in chain.legal_words())
        if not ranked:
            return None
        if ranked[0][0] == 0:
            winners = [w for replies, w in ranked if replies == 0]
            return winners[rng.randrange(len(winners))]
        quarter = max(1, (len(ranked) + 3) // 4)
        return ranked[rng.randrange(quarter)][1]


@dataclass(slots=True)
class SearchStats:
    """What the last hard search cost; observable by the benchmark and the tests."""

    positions: int = 0
    exhausted: bool = False


class HardOpponent:
    """Negamax with alpha-beta over the real game state, 4 plies, ≤ 20,000 positions.

    The search works on "edges" (words sharing a first and a last syllable are
    interchangeable for the rest of the game), so its branching factor is the number of
    distinct last syllables, not of words. Leaves are valued by mobility: the number of
    unused replies of the side to move. An immediate win is always taken.
    """

    def __init__(self, depth: int = HARD_DEPTH, node_limit: int = HARD_NODE_LIMIT) -> None:
        self.depth = depth
        self.node_limit = node_limit
        self.last_search = SearchStats()

    def choose(self, chain: Chain, rng: random.Random) -> int | None:
        lexicon = chain.lexicon
        stats = SearchStats()
        self.last_search = stats
        root = chain.current
        used_from = dict(chain.used_from)
        used_edges = dict(chain.used_edges)
        out_degree = lexicon.out_degree
        edge_last = lexicon.edge_last
        edge_size = lexicon.edge_size
        edges_from = lexicon.edges_from
        limit = self.node_limit

        def moves(syllable: int) -> list[tuple[int, int, int]]:
            """(replies left to the other side, edge, next syllable), fewest replies first."""
            found = []
            for edge in edges_from[syllable]:
                if edge_size[edge] - used_edges.get(edge, 0) > 0:
                    nxt = edge_last[edge]
                    replies = out_degree[nxt] - used_from.get(nxt, 0) - (nxt == syllable)
                    found.append((replies, edge, nxt))
            found.sort()
            return found

        def negamax(syllable: int, depth: int, alpha: int, beta: int) -> int:
            stats.positions += 1
            options = moves(syllable)
            if not options:
                return -WIN - depth
            if options[0][0] == 0:
                return WIN + depth
            if depth == 1 or stats.positions >= limit:
                if stats.positions >= limit:
                    stats.exhausted = True
                return -min(options[0][0], MOBILITY_CAP)
            best = -WIN * 2
            for _, edge, nxt in options:
                used_edges[edge] = used_edges.get(edge, 0) + 1
                used_from[syllable] = used_from.get(syllable, 0) + 1
                value = -negamax(nxt, depth - 1, -beta, -alpha)
                used_edges[edge] -= 1
                used_from[syllable] -= 1
                if value > best:
                    best = value
                    if value > alpha:
                        alpha = value
                        if alpha >= beta:
                            break
            return best

        stats.positions = 1
        options = moves(root)
        if not options:
            return None
        if options[0][0] == 0:
            chosen_edges = [edge for replies, edge, _ in options if replies == 0]
        else:
            chosen_edges = []
            best = -WIN * 2
            alpha = -WIN * 2
            for _, edge, nxt in options:
                used_edges[edge] = used_edges.get(edge, 0) + 1
                used_from[root] = used_from.get(root, 0) + 1
                # Search with alpha - 1 so that moves tying the best are valued exactly.
                value = -negamax(nxt, self.depth - 1, -WIN * 2, -(alpha - 1))
                used_edges[edge] -= 1
                used_from[root] -= 1
                if value > best:
                    best, chosen_edges = value, [edge]
                    alpha = max(alpha, value)
                elif value == best:
                    chosen_edges.append(edge)
        edge = chosen_edges[rng.randrange(len(chosen_edges))]
        return _word_on_edge(chain, edge, rng)


def _word_on_edge(chain: Chain, edge: int, rng: random.Random) -> int:
    """A random unused word on an edge, a common one when the edge has any."""
    lexicon = chain.lexicon
    edge_of = lexicon.edge_of
    words = [w for w in chain.legal_words() if edge_of[w] == edge]
    common = [w for w in words if lexicon.tiers[w] <= COMMON_TIER]
    pool = common or words
    return pool[rng.randrange(len(pool))]


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
