"""Medium: one-move lookahead (spec "Rules", the default difficulty), over the first class
of its vocabulary that has a legal word (`MEDIUM_VOCABULARY`: open common words, then any
common word, then an answerable rare word); stuck when it knows none."""

from __future__ import annotations

import random

from noitu.domain.noitu.bots.index import BotIndex
from noitu.domain.noitu.bots.vocabulary import MEDIUM_VOCABULARY, Vocabulary
from noitu.domain.noitu.chain import Chain


class MediumOpponent:
    """A word leaving no reply if there is one; otherwise a random word among the
    quarter of legal words that leave the player the fewest replies — the legal words
    of the first class of its vocabulary that has any.

    Replies are counted as the rules count them (every unused word). Words on one edge
    leave the same number of replies, so the ranking is over edges weighted by their
    legal words; the quarter is ⌈n/4⌉ words of the n legal ones of the class, and words
    tying at its boundary are taken in edge order, each edge's words in code-point order.
    """

    def __init__(self, index: BotIndex, vocabulary: Vocabulary = MEDIUM_VOCABULARY) -> None:
        self.index = index
        self.vocabulary = vocabulary

    def choose(self, chain: Chain, rng: random.Random) -> int | None:
        syllable = chain.current
        if chain.unused_replies(syllable) <= 0:
            return None
        words_in = self.index.words_in
        for word_class in self.vocabulary:
            ranked = self._ranked(chain, words_in(word_class, syllable))
            if ranked:
                break
        else:
            return None
        if ranked[0][0] == 0:
            winning = [w for replies, _, words in ranked if replies == 0 for w in words]
            return winning[rng.randrange(len(winning))]
        total = sum(len(words) for _, _, words in ranked)
        pick = rng.randrange((total + 3) // 4)
        for _, _, words in ranked:
            if pick < len(words):
                return words[pick]
            pick -= len(words)
        raise AssertionError("unreachable: the pick is below the total")

    def _ranked(self, chain: Chain, words: tuple[int, ...]) -> list[tuple[int, int, list[int]]]:
        """(replies left, edge, its legal words) for each edge with a legal word among
        `words`, fewest replies first, ties in edge order."""
        used = chain.used
        edge_of = self.index.edge_of
        by_edge: dict[int, list[int]] = {}
        for word in words:
            if word not in used:
                edge = edge_of[word]
                found = by_edge.get(edge)
                if found is None:
                    by_edge[edge] = [word]
                else:
                    found.append(word)
        if not by_edge:
            return []
        syllable = chain.current
        used_from = chain.used_from
        out_degree = chain.lexicon.out_degree
        edge_last = self.index.edge_last
        ranked = []
        for edge, legal in by_edge.items():
            last = edge_last[edge]
            replies = out_degree[last] - used_from.get(last, 0) - (last == syllable)
            ranked.append((replies, edge, legal))
        ranked.sort(key=lambda item: (item[0], item[1]))
        return ranked
