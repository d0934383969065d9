"""The rating and the scheduler together find a known order (spec B8 "Quality"), on
simulated results: every bot has a fixed strength and each match is drawn from a
logistic model of the difference (5% draws). The real benchmark plays real bots with
the real runner; this shows the rules themselves converge, with seeded randomness."""

from __future__ import annotations

import math
import random

import pytest

from noitu.adapters.arena.builtin import BUILTIN_SOURCES
from noitu.application.arena.ladder.schedule_pairing import SchedulePairingCommand
from noitu.domain.arena.board import Side
from noitu.domain.arena.match import EndReason, Result
from support.ladder import Ladder

DRAWS = 0.05


def kendall_tau(shown: list[str], known: list[str]) -> float:
    place = {bot: index for index, bot in enumerate(known)}
    concordant = discordant = 0
    for i, first in enumerate(shown):
        for second in shown[i + 1:]:
            if place[first] < place[second]:
                concordant += 1
            else:
                discordant += 1
    return (concordant - discordant) / (concordant + discordant)


async def play_until(ladder: Ladder, strength: dict[str, float], pairings_each: int,
                     outcomes: random.Random) -> None:
    """Schedule and play pairings until every bot has played `pairings_each`."""
    played = dict.fromkeys(strength, 0)
    while min(played.values()) < pairings_each:
        pairing = await ladder.schedule(SchedulePairingCommand("only"))
        assert pairing is not None
        for bot in pairing.bots:
            played[bot] += 1
        for index in (0, 1):
            p1, p2 = pairing.seats(index)
            p1_wins = 1 / (1 + math.exp(strength[p2] - strength[p1]))
            draw = outcomes.random()
            winner = (Side.P1 if draw < p1_wins * (1 - DRAWS)
                      else Side.P2 if draw < 1 - DRAWS else None)
            await ladder.play(pairing, index, Result(winner, EndReason.NO_PIECES, 30))


@pytest.mark.parametrize("seed", range(3))
async def test_rating_the_scheduler_finds_a_known_order_after_30_pairings_each(seed):
    ladder = Ladder(seed=seed)
    random_bot, tactical, strong = BUILTIN_SOURCES  # weakest to strongest, as listed
    strength = {random_bot: 0.0, tactical: 5.0, strong: 10.0}  # logits
    for n in range(8):  # eight uploads between and around them, one logit apart
        strength[await ladder.ranked(n, key=f"{n:032x}")] = n + (0.5 if n < 4 else 1.5)
    await play_until(ladder, strength, 30, random.Random(seed + 100))
    shown = [row.bot for row in await ladder.show()]
    known = sorted(strength, key=lambda bot: -strength[bot])
    assert kendall_tau(shown, known) >= 0.9


async def test_rating_strong_over_tactical_over_random_after_10_pairings_each():
    ladder = Ladder(seed=3)
    random_bot, tactical, strong = BUILTIN_SOURCES
    strength = {random_bot: 0.0, tactical: 2.0, strong: 4.0}
    await play_until(ladder, strength, 10, random.Random(4))
    assert [row.bot for row in await ladder.show()] == [strong, tactical, random_bot]
