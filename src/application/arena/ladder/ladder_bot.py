"""One bot on the ladder (spec B8 "Pages and routes", B13): its row of the table and its
rating over time, for the bot's page to draw.

The ratings are the points the ladder kept as it folded each result in (history.py),
read a page at a time, newest page first, and the row is the bot's alone, its rank
counted by the store: a read never folds the history nor builds the whole table, so it
costs about the same at 50 results as at 50,000, and the chart agrees with the table
(a rebuild rewrites both). A bot that left the table (unranked) keeps its history and has no row;
a bot that was never on the ladder, or that the viewer may not see (someone else's
private bot, a deleted one), is `BotNotFound`.
"""

from __future__ import annotations

from dataclasses import dataclass

from noitu.application.arena.bot_info import viewer_of
from noitu.application.arena.errors import BotNotFound
from noitu.application.arena.ladder.list_ladder import ListedBot, listed
from noitu.application.arena.ladder.ports import (
    BuiltinRoster,
    LadderBots,
    LadderHistory,
    LadderListing,
)
from noitu.application.arena.match_history import cursor_text, parse_cursor
from noitu.application.arena.records import MatchCursor, is_bot_id
from noitu.domain.arena.ladder.results import ResultKey

NEVER_ON_LADDER = "Bot này chưa từng lên bảng xếp hạng."
#: Rating points a page: the newest page is what the bot's page draws.
RATINGS_PAGE_SIZE = 200


@dataclass(frozen=True, slots=True)
class LadderBotQuery:
    bot_id: str
    owner_key: str | None = None
    #: The previous page's `next`: the points before it (None: the newest page).
    before: str | None = None


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
    #: The cursor of the page of older points; None when this page has the oldest.
    next: str | None


class LadderBotOf:
    def __init__(
        self,
        listing: LadderListing,
        history: LadderHistory,
        roster: BuiltinRoster,
        bots: LadderBots,
    ) -> None:
        self._listing = listing
        self._history = history
        self._roster = roster
        self._bots = bots

    async def __call__(self, query: LadderBotQuery) -> LadderBot:
        viewer = viewer_of(query.owner_key)
        cursor = parse_cursor(query.before)
        bot_id = query.bot_id
        if bot_id not in self._roster.names():
            record = await self._bots.get_bot(bot_id) if is_bot_id(bot_id) else None
            if record is None or not (record.public or record.owner == viewer):
                raise BotNotFound()
        before = None if cursor is None else ResultKey(cursor.finished_ms, cursor.match_id)
        # One after the other: at once, their threads only contended (measured).
        found = await self._history.points(bot_id, before, RATINGS_PAGE_SIZE + 1)
        entry = await self._listing.place(bot_id, self._roster.names())
        page = found[:RATINGS_PAGE_SIZE]
        row = None if entry is None else listed(self._roster, entry)
        if row is None and not page and cursor is None:
            raise BotNotFound(NEVER_ON_LADDER)
        ratings = tuple(
            RatingPoint(
                point.key.ended_ms, point.standing.rating.mu, point.standing.rating.sigma,
                point.standing.rating.ordinal,
            )
            for point in reversed(page)
        )
        following = None
        if len(found) > RATINGS_PAGE_SIZE:
            oldest = page[-1].key
            following = cursor_text(MatchCursor(oldest.ended_ms, oldest.match_id))
        return LadderBot(row, ratings, following)
