"""B8 "Pages and routes": the table as the arena's page shows it — each row of the
ladder's table with the bot's name and language (the built-ins' own; an uploaded bot's
as stored)."""

from __future__ import annotations

import msgspec

from noitu.application.arena.ladder.membership import every_member
from noitu.application.arena.ladder.ports import (
    BuiltinRoster,
    LadderBots,
    LadderMembers,
    LadderStandings,
)
from noitu.application.arena.ports import Language
from noitu.domain.arena.ladder.table import LadderRow, ladder_table


class ListedBot(msgspec.Struct, frozen=True):
    row: LadderRow
    name: str
    language: Language


class ListLadder:
    def __init__(
        self,
        members: LadderMembers,
        standings: LadderStandings,
        roster: BuiltinRoster,
        bots: LadderBots,
    ) -> None:
        self._members = members
        self._standings = standings
        self._roster = roster
        self._bots = bots

    async def __call__(self) -> tuple[ListedBot, ...]:
        members = await every_member(self._roster, self._members)
        listed = []
        for row in ladder_table(members, await self._standings.load()):
            if row.builtin:
                listed.append(ListedBot(row, row.bot, self._roster.language(row.bot)))
                continue
            bot = await self._bots.get_bot(row.bot)
            if bot is not None:  # a bot deleted meanwhile has left the table
                listed.append(ListedBot(row, bot.name, bot.language))
        return tuple(listed)
