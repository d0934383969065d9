"""The bot the player picks (spec "Rules": easy, medium — the default —, hard).

The policies themselves live in `noitu.domain.noitu.bots`; the game only needs this
interface.
"""

from __future__ import annotations

import random
from enum import Enum
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from noitu.domain.noitu.chain import Chain


class Difficulty(str, Enum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


DEFAULT_DIFFICULTY = Difficulty.MEDIUM


class Opponent(Protocol):
    def choose(self, chain: Chain, rng: random.Random) -> int | None:
        """A legal unused word answering the chain's current syllable, or None: no
        legal word is left, or none the level knows (`bots.vocabulary`).

        A pure function of (position, random source): it reads the chain, never
        changes it."""
        ...
