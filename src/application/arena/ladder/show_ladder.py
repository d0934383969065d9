"""B8 "Rating", the table as anyone reads it: every member (built-ins included,
suspended ones marked) in the table's order."""

from __future__ import annotations

from noitu.application.arena.ladder.membership import every_member
from noitu.application.arena.ladder.ports import BuiltinRoster, LadderMembers, LadderStandings
from noitu.domain.arena.ladder.table import LadderRow, ladder_table


class ShowLadder:
    def __init__(
        self, members: LadderMembers, standings: LadderStandings, roster: BuiltinRoster
    ) -> None:
        self._members = members
        self._standings = standings
        self._roster = roster

    async def __call__(self) -> tuple[LadderRow, ...]:
        members = await every_member(self._roster, self._members)
        return ladder_table(members, await self._standings.load())
