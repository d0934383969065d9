"""B8 "Scheduling": a slot is free for a ladder pairing; choose it.

Runs under the ladder's lease, so exactly one scheduler decides at a time across
instances and workers; when another holds it this call chooses nothing. The rule is the
domain's (`choose_pairing`): the free bot with the highest σ, an opponent among the six
nearest in μ − 3σ other than its previous one, a newcomer's placement first. The pairing
gets a new id and seed and is opened at once, under the asking instance's name (its
driver plays it), which makes both bots busy.

Nothing is scheduled while no uploaded bot is ranked and free to play (`anyone_asked`):
the built-ins alone play no ladder match. The check comes before the lease, so an
idle ladder costs one read a tick and no write.
"""

from __future__ import annotations

import random

import msgspec

from noitu.application.arena.ladder.membership import every_member
from noitu.application.arena.ladder.ports import (
    BuiltinRoster,
    LadderLease,
    LadderMembers,
    LadderPairings,
    LadderStandings,
)
from noitu.application.arena.ladder.record_ladder_result import new_pairing_id
from noitu.application.arena.records import MAX_SEED
from noitu.application.ports import Clock
from noitu.domain.arena.ladder.pairing import Pairing
from noitu.domain.arena.ladder.scheduling import Contender, anyone_asked, choose_pairing

#: How long a scheduler that died keeps others out.
LEASE_MS = 30_000


class SchedulePairingCommand(msgspec.Struct, frozen=True):
    #: Who asks (an instance's name): the lease's holder.
    scheduler: str


class SchedulePairing:
    def __init__(
        self,
        lease: LadderLease,
        members: LadderMembers,
        standings: LadderStandings,
        pairings: LadderPairings,
        roster: BuiltinRoster,
        clock: Clock,
        rng: random.Random,
        *,
        builtins_alone: bool = False,
    ) -> None:
        """`builtins_alone`: schedule the built-ins among themselves even with no
        uploaded bot ranked (tests of the driver's mechanics on built-ins only); the
        server never does."""
        self._builtins_alone = builtins_alone
        self._lease = lease
        self._members = members
        self._standings = standings
        self._pairings = pairings
        self._roster = roster
        self._clock = clock
        self._rng = rng

    async def __call__(self, command: SchedulePairingCommand) -> Pairing | None:
        """The pairing to play now (already opened), or None: nobody asked (no
        uploaded bot ranked and free), no two bots can meet, or another scheduler
        holds the lease."""
        if not self._builtins_alone and not anyone_asked(await self._members.members()):
            return None
        now = self._clock.now_ms()
        if not await self._lease.acquire(command.scheduler, now, LEASE_MS):
            return None
        try:
            return await self._schedule(command.scheduler, now)
        finally:
            await self._lease.release(command.scheduler)

    async def _schedule(self, instance: str, now: int) -> Pairing | None:
        standings = await self._standings.load()
        previous = await self._pairings.previous_opponents()
        contenders = [
            Contender(member, standings.of(member.bot), previous.get(member.bot))
            for member in await every_member(self._roster, self._members)
        ]
        busy = {bot for pairing in await self._pairings.live() for bot in pairing.bots}
        choice = choose_pairing(contenders, busy, self._roster.names(), self._rng)
        if choice is None:
            return None
        pairing = Pairing(
            id=new_pairing_id(self._rng), seed=self._rng.randint(0, MAX_SEED),
            first=choice.bot, second=choice.opponent, placement=choice.placement,
            started_ms=now, instance=instance,
        )
        return pairing if await self._pairings.open(pairing) else None
