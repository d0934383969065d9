"""The suggestions after a loss (spec B7), against a plain second implementation: the
server ranks them with the key spelled out (for speed), and must rank as the rule says."""

from __future__ import annotations

import random

from noitu.adapters.noitu.dictionary_file import lexicon_from_lines
from noitu.domain.noitu.chain import Chain, Side
from noitu.domain.noitu.rules import SUGGESTION_LIMIT, suggestions
from support.dictionaries import random_words


def reference(chain: Chain, syllable: int) -> list[int]:
    """Common words first, then those leaving the fewest replies, then code-point order."""
    tiers = chain.lexicon.tiers
    legal = [w for w in chain.lexicon.starting_with[syllable] if w not in chain.used]
    return sorted(legal, key=lambda w: (tiers[w], chain.replies_after(w), w))[:SUGGESTION_LIMIT]


def test_suggestions_rank_as_the_rule_says_on_random_games() -> None:
    rng = random.Random(13)
    for seed in range(40):
        words = random_words(seed, syllables=8, words=60)
        # Tiers drawn per word, and words that loop back (first syllable = last) are in.
        lines = [f"{w}\t{rng.randint(1, 4)}" for w in words]
        lexicon = lexicon_from_lines(lines, f"random {seed}")
        for _ in range(25):
            chain = Chain(lexicon)
            chain.append(rng.randrange(len(lexicon)), Side.BOT, 0)
            for _ in range(rng.randrange(12)):
                legal = list(chain.legal_words())
                if not legal:
                    break
                chain.append(rng.choice(legal), Side.PLAYER, 0)
            for syllable in (chain.current, rng.randrange(len(lexicon.syllable_names))):
                assert suggestions(chain, syllable) == reference(chain, syllable)
