"""How a bot turns a choice of edge into a word: uniformly, common words first."""

from __future__ import annotations

import random

from noitu.domain.noitu.bots.index import BotIndex
from noitu.domain.noitu.chain import Chain
from noitu.domain.noitu.rules import COMMON_TIER

REJECTION_DRAWS = 8


def pick_unused(words: tuple[int, ...], used: set[int], rng: random.Random) -> int | None:
    """A uniformly random word of `words` that is not in `used`, or None.

    A few draws with rejection first (the chain uses few words of any syllable, so one
    draw nearly always does), then an exact draw among the unused ones.
    """
    if not words:
        return None
    count = len(words)
    for _ in range(REJECTION_DRAWS):
        word = words[rng.randrange(count)]
        if word not in used:
            return word
    unused = [w for w in words if w not in used]
    return unused[rng.randrange(len(unused))] if unused else None


def unused_on_edge(index: BotIndex, chain: Chain, edge: int) -> list[int]:
    """The unused words of an edge, in code-point order."""
    edge_of = index.edge_of
    used = chain.used
    return [
        w for w in chain.lexicon.starting_with[index.edge_first[edge]]
        if edge_of[w] == edge and w not in used
    ]


def common_first(words: list[int], tiers: list[int], rng: random.Random) -> int:
    """A random word of a non-empty list, a common one when the list has any."""
    common = [w for w in words if tiers[w] <= COMMON_TIER]
    pool = common or words
    return pool[rng.randrange(len(pool))]


def random_word_on_edge(index: BotIndex, chain: Chain, edge: int, rng: random.Random) -> int:
    """A random unused word on an edge, a common one when the edge has any."""
    return common_first(unused_on_edge(index, chain, edge), chain.lexicon.tiers, rng)
