"""The bot's three policies (spec "Rules"): easy, medium and hard, over a `BotIndex`."""

from __future__ import annotations

from noitu.domain.noitu.bots.easy import EasyOpponent
from noitu.domain.noitu.bots.hard import HARD_DEPTH, HARD_NODE_LIMIT, HardOpponent
from noitu.domain.noitu.bots.index import BotIndex
from noitu.domain.noitu.bots.medium import MediumOpponent
from noitu.domain.noitu.opponent import Difficulty, Opponent

__all__ = [
    "HARD_DEPTH",
    "HARD_NODE_LIMIT",
    "BotIndex",
    "EasyOpponent",
    "HardOpponent",
    "MediumOpponent",
    "make_opponents",
]


def make_opponents(index: BotIndex) -> dict[Difficulty, Opponent]:
    """One policy per difficulty, sharing the index."""
    return {
        Difficulty.EASY: EasyOpponent(index),
        Difficulty.MEDIUM: MediumOpponent(index),
        Difficulty.HARD: HardOpponent(index),
    }
