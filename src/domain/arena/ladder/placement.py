"""B8 "Scheduling", a new bot's placement: its first pairings are against the built-in
bots in their listed order (`random`, then `tactical`, then `strong`), as long as it wins
both matches of each; a 1–1 or worse ends placement, and so does winning the last. A
pairing played again (a match the server spoilt) leaves placement where it was.
(Not the pieces' placement of B1: this is where a newcomer starts on the ladder.)
"""

from __future__ import annotations

from collections.abc import Sequence

from noitu.domain.arena.ladder.members import Member
from noitu.domain.arena.ladder.pairing import MATCHES_PER_PAIRING, Pairing

FIRST_PLACEMENT_STEP = 0


def placement_opponent(member: Member, placement_order: Sequence[str]) -> str | None:
    """The built-in `member` meets next in its placement; None once placement is over."""
    step = member.placement_step
    if step is None or step >= len(placement_order):
        return None
    return placement_order[step]


def step_after(member: Member, pairing: Pairing, placement_order: Sequence[str]) -> int | None:
    """`member`'s placement step once `pairing` (over) is counted."""
    if not pairing.placement or pairing.first != member.bot or member.placement_step is None:
        return member.placement_step
    if pairing.to_replay:
        return member.placement_step
    if pairing.wins_of(member.bot) < MATCHES_PER_PAIRING:
        return None
    following = member.placement_step + 1
    return following if following < len(placement_order) else None
