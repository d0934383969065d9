"""One bot on the ladder (spec B8 "Pages and routes"): its row of the table and its
rating over time, for the bot's page to draw.

The ratings are recomputed from the stored results in their order, exactly as a rebuild
folds them (`Standings.after`), and one point is kept after each result the bot played:
nothing is stored twice, and the chart always agrees with the table. A bot that left
the table (unranked) keeps its history and has no row; a bot that was never on the
ladder, or that the viewer may not see (someone else's private bot, a deleted one), is
`BotNotFound`.
"""

from __future__ import annotations

from dataclasses import dataclass

from noitu.application.arena.bot_info import viewer_of
from noitu.application.arena.errors import BotNotFound
from noitu.application.arena.ladder.list_ladder import ListedBot
from noitu.application.arena.ladder.membership import every_member
from noitu.application.arena.ladder.ports import (
    BuiltinRoster,
    LadderBots,
    LadderMembers,
    LadderResults,
    LadderStandings,
)
from noitu.application.arena.records import is_bot_id
from noitu.domain.arena.ladder.standings import Standings
from noitu.domain.arena.ladder.table import ladder_table

NEVER_ON_LADDER = "Bot này chưa từng lên bảng xếp hạng."


@dataclass(frozen=True, slots=True)
class LadderBotQuery:
    bot_id: str
    owner_key: str | None = None


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """The bot's rating right after one of its rated ladder matches ended."""

    ms: int
    mu: float
    sigma: float
    ordinal: float


@dataclass(frozen=True, slots=True)
class LadderBot:
    row: ListedBot | None  # None once the bot has left the table
    ratings: tuple[RatingPoint, ...]  # oldest first


class LadderBotOf:
    def __init__(
        self,
        members: LadderMembers,
        standings: LadderStandings,
        results: LadderResults,
        roster: BuiltinRoster,
        bots: LadderBots,
    ) -> None:
        self._members = members
        self._standings = standings
        self._results = results
        self._roster = roster
        self._bots = bots

    async def __call__(self, query: LadderBotQuery) -> LadderBot:
        viewer = viewer_of(query.owner_key)
        bot_id = query.bot_id
        builtin = bot_id in self._roster.names()
        name, language = bot_id, None
        if not builtin:
            record = await self._bots.get_bot(bot_id) if is_bot_id(bot_id) else None
            if record is None or not (record.public or record.owner == viewer):
                raise BotNotFound()
            name, language = record.name, record.language
        else:
            language = self._roster.language(bot_id)
        points = []
        standings = Standings()
        for result in await self._results.after(None):
            standings = standings.after(result)
            if result.side_of(bot_id) is not None:
                rating = standings.of(bot_id).rating
                points.append(RatingPoint(result.ended_ms, rating.mu, rating.sigma, rating.ordinal))
        members = await every_member(self._roster, self._members)
        table = ladder_table(members, await self._standings.load())
        row = next((ListedBot(r, name, language) for r in table if r.bot == bot_id), None)
        if row is None and not points:
            raise BotNotFound(NEVER_ON_LADDER)
        return LadderBot(row, tuple(points))
