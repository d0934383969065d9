"""What the bots count in a chain beyond the rules' counters, derived on each reply.

The Chain keeps only what the rules need (the used words, per first syllable). A reply
derives the rest from the used words — at most 300 of them, so this costs tens of
microseconds — and a game's state stays the rules' alone.
"""

from __future__ import annotations

from collections import Counter

from noitu.domain.noitu.bots.index import BotIndex
from noitu.domain.noitu.chain import Chain


def used_per_edge(index: BotIndex, chain: Chain) -> dict[int, int]:
    """edge -> how many of its words the chain has used."""
    return Counter(map(index.edge_of.__getitem__, chain.used))


def edges_to_exhausted(index: BotIndex, chain: Chain) -> dict[int, list[int]]:
    """first syllable -> the edges from it into a syllable whose words are all used (a
    move there wins at once)."""
    found: dict[int, list[int]] = {}
    out_degree = chain.lexicon.out_degree
    edge_first = index.edge_first
    for syllable, used in chain.used_from.items():
        if used == out_degree[syllable]:
            for edge in index.edges_into[syllable]:
                found.setdefault(edge_first[edge], []).append(edge)
    return found


def used_draw_moves(index: BotIndex, chain: Chain) -> dict[int, int]:
    """syllable -> how many of its drawing moves (see `BotIndex.draw_moves`) are used."""
    first = chain.lexicon.first
    is_draw_move = index.is_draw_move
    return Counter(first[w] for w in chain.used if is_draw_move(w))
