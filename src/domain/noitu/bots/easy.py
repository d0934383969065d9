"""Easy: a random legal word (spec "Rules"), drawn from common words when any are legal."""

from __future__ import annotations

import random

from noitu.domain.noitu.bots.index import BotIndex
from noitu.domain.noitu.bots.picks import pick_unused
from noitu.domain.noitu.chain import Chain


class EasyOpponent:
    def __init__(self, index: BotIndex) -> None:
        self.index = index

    def choose(self, chain: Chain, rng: random.Random) -> int | None:
        syllable = chain.current
        if chain.unused_replies(syllable) <= 0:
            return None
        used = chain.used
        found = pick_unused(self.index.common_starting_with(syllable), used, rng)
        if found is None:
            found = pick_unused(chain.lexicon.starting_with[syllable], used, rng)
        return found
