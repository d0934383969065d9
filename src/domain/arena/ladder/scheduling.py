"""B8 "Scheduling": whenever a slot is free, which pairing the ladder plays.

- The bot: among ranked bots (built-ins included) that are not suspended and in no
  pairing, the one with the highest σ; ties: fewest ladder games, then the longest
  since its last game (never played counts as longest), then the order listed.
- Its opponent: uniformly among the `NEAREST` bots closest to it in μ − 3σ (all of
  them when fewer), not counting its previous pairing's opponent — unless that bot is
  the only one free, since a pairing beats an idle ladder.
- A bot in placement (placement.py) meets its placement opponent; when that built-in
  is busy the bot waits and the next bot in order is tried. Nobody else picks a bot in
  placement as its opponent, so its first pairings are the placement ones.
- Fair play (B13): never a bot `related` to it (one owner key, or ranked from one
  client address); when only such bots are free, the next bot in order is tried.
- (ours) The ladder plays only while someone asked for it: at least one uploaded bot
  ranked and not suspended. With only the built-ins it plays nothing, so an idle
  server's slots are not kept busy by matches nobody looks at.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from noitu.domain.arena.ladder.members import Member, related
from noitu.domain.arena.ladder.placement import placement_opponent
from noitu.domain.arena.ladder.standings import Standing

#: How many of the nearest bots in μ − 3σ the opponent is drawn from.
NEAREST = 6


def anyone_asked(members: Iterable[Member]) -> bool:
    """Whether an uploaded bot is ranked and free to play (not suspended): the ladder
    plays nothing otherwise (the built-ins alone, or only suspended uploads)."""
    return any(not member.builtin and not member.suspended for member in members)


@dataclass(frozen=True, slots=True)
class Contender:
    """A member as the scheduler sees it."""

    member: Member
    standing: Standing
    previous_opponent: str | None = None

    @property
    def bot(self) -> str:
        return self.member.bot


@dataclass(frozen=True, slots=True)
class PairingChoice:
    bot: str
    opponent: str
    placement: bool


def scheduling_order(contenders: Sequence[Contender]) -> list[Contender]:
    """Highest σ first; ties: fewest games, then the longest since the last game, then
    an uploaded bot before a built-in (B8 stops at the second tie: a new bot and the
    built-ins of a server that has played nothing yet all tie on the first two, and the
    author is the one waiting to see the bot placed)."""

    def key(contender: Contender) -> tuple[float, int, int, bool]:
        standing = contender.standing
        last = -1 if standing.last_game_ms is None else standing.last_game_ms
        return (-standing.rating.sigma, standing.games, last, contender.member.builtin)

    return sorted(contenders, key=key)


def nearest(contender: Contender, others: Sequence[Contender]) -> list[Contender]:
    """The `NEAREST` of `others` closest to `contender` in μ − 3σ (ties: listed order)."""
    mine = contender.standing.rating.ordinal
    by_distance = sorted(others, key=lambda other: abs(other.standing.rating.ordinal - mine))
    return by_distance[:NEAREST]


def choose_pairing(
    contenders: Sequence[Contender],
    busy: Collection[str],
    placement_order: Sequence[str],
    rng: random.Random,
) -> PairingChoice | None:
    """The next pairing, or None when no two free bots can meet."""
    free = [c for c in contenders if not c.member.suspended and c.bot not in busy]
    free_bots = {c.bot for c in free}
    for contender in scheduling_order(free):
        placing = placement_opponent(contender.member, placement_order)
        if placing is not None and placing != contender.bot:
            if placing in free_bots:
                return PairingChoice(contender.bot, placing, placement=True)
            if any(c.bot == placing for c in contenders):
                continue  # its placement opponent is busy: it waits
        others = [
            c for c in free
            if c.bot != contender.bot
            and placement_opponent(c.member, placement_order) is None
            and not related(contender.member, c.member)
        ]
        if not others:
            continue
        fresh = [c for c in others if c.bot != contender.previous_opponent] or others
        opponent = rng.choice(nearest(contender, fresh))
        return PairingChoice(contender.bot, opponent.bot, placement=False)
    return None
