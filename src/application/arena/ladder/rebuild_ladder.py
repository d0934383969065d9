"""B8 "Whole history": recompute every rating from the stored ladder results in their
order and write them in one transaction (`noitu arena ladder rebuild`). It may run while
servers run: it takes the scheduler's lease, and answers `LadderBusy` while another
holds it. Run twice, it gives the same table.
"""

from __future__ import annotations

import msgspec

from noitu.application.arena.ladder.errors import LadderBusy
from noitu.application.arena.ladder.history import rebuild
from noitu.application.arena.ladder.membership import every_member
from noitu.application.arena.ladder.ports import (
    BuiltinRoster,
    LadderLease,
    LadderMembers,
    LadderResults,
    LadderStandings,
)
from noitu.application.arena.ladder.schedule_pairing import LEASE_MS
from noitu.application.ports import Clock
from noitu.domain.arena.ladder.table import LadderRow, ladder_table


class RebuildLadderCommand(msgspec.Struct, frozen=True):
    #: Who asks: the lease's holder while the rebuild runs.
    holder: str


class RebuiltLadder(msgspec.Struct, frozen=True):
    table: tuple[LadderRow, ...]
    results: int  # how many rated matches the history holds


class RebuildLadder:
    def __init__(
        self,
        lease: LadderLease,
        results: LadderResults,
        standings: LadderStandings,
        members: LadderMembers,
        roster: BuiltinRoster,
        clock: Clock,
    ) -> None:
        self._lease = lease
        self._results = results
        self._standings = standings
        self._members = members
        self._roster = roster
        self._clock = clock

    async def __call__(self, command: RebuildLadderCommand) -> RebuiltLadder:
        if not await self._lease.acquire(command.holder, self._clock.now_ms(), LEASE_MS):
            raise LadderBusy()
        try:
            rebuilt = await rebuild(self._results, self._standings)
            members = await every_member(self._roster, self._members)
        finally:
            await self._lease.release(command.holder)
        counted = sum(standing.games for standing in rebuilt.by_bot.values()) // 2
        return RebuiltLadder(ladder_table(members, rebuilt), counted)
