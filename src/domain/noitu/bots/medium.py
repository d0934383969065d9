"""Medium: one-move lookahead (spec "Rules", the default difficulty)."""

from __future__ import annotations

import random

from noitu.domain.noitu.bots.counters import used_per_edge
from noitu.domain.noitu.bots.index import BotIndex
from noitu.domain.noitu.bots.picks import nth_unused_on_edge
from noitu.domain.noitu.chain import Chain


class MediumOpponent:
    """A word leaving no reply if there is one; otherwise a random word among the
    quarter of legal words that leave the player the fewest replies.

    Words on one edge leave the same number of replies, so the ranking is over edges
    weighted by their unused words; the quarter is ⌈n/4⌉ words of the n legal ones, and
    words tying at its boundary are taken in edge order.
    """

    def __init__(self, index: BotIndex) -> None:
        self.index = index

    def choose(self, chain: Chain, rng: random.Random) -> int | None:
        index = self.index
        syllable = chain.current
        used_from = chain.used_from
        used_edges = used_per_edge(index, chain)
        out_degree = chain.lexicon.out_degree
        edge_last = index.edge_last
        edge_size = index.edge_size
        ranked: list[tuple[int, int, int]] = []  # (replies left, edge, unused words)
        total = 0
        for edge in index.edges_from[syllable]:
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
                return nth_unused_on_edge(index, chain, edge, pick)
            pick -= free
        raise AssertionError("unreachable: the pick is below the total")
