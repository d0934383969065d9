"""Easy: a random legal word (spec "Rules") of the first class of its vocabulary that has
one (`EASY_VOCABULARY`: open common words, then any common word, then an open rare word);
stuck when it knows none."""

from __future__ import annotations

import random

from noitu.domain.noitu.bots.index import BotIndex
from noitu.domain.noitu.bots.picks import pick_unused
from noitu.domain.noitu.bots.vocabulary import EASY_VOCABULARY, Vocabulary
from noitu.domain.noitu.chain import Chain


class EasyOpponent:
    def __init__(self, index: BotIndex, vocabulary: Vocabulary = EASY_VOCABULARY) -> None:
        self.index = index
        self.vocabulary = vocabulary

    def choose(self, chain: Chain, rng: random.Random) -> int | None:
        syllable = chain.current
        if chain.unused_replies(syllable) <= 0:
            return None
        used = chain.used
        words_in = self.index.words_in
        for word_class in self.vocabulary:
            found = pick_unused(words_in(word_class, syllable), used, rng)
            if found is not None:
                return found
        return None
