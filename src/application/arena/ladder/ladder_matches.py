"""The ladder's matches, newest first, a page at a time (spec B8 "Pages and routes"),
all of them or one bot's: both sides, the winner, the reason, the turns, and whether the
match was rated (an abandoned one or a server's failure was not, and was played again).

A page is three reads whatever it holds: the matches, which of them were rated, and
which of their uploaded bots still exist (a deleted one shows as such).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from noitu.application.arena.errors import BadRequest
from noitu.application.arena.ladder.ports import LadderListing, LadderResults
from noitu.application.arena.match_history import (
    HISTORY_PAGE_SIZE,
    SeatNames,
    SeatShown,
    cursor_text,
    parse_cursor,
)
from noitu.application.arena.replay import SeatKind
from noitu.application.arena.storage import BotCatalogue, MatchArchive
from noitu.domain.arena.board import Side
from noitu.domain.arena.match import EndReason

#: What can name a bot: an uploaded bot's id or a built-in's name.
BOT_FILTER_PATTERN = re.compile(r"[0-9a-z]{1,64}")


@dataclass(frozen=True, slots=True)
class LadderMatchesQuery:
    before: str | None = None
    bot: str | None = None  # an uploaded bot's id or a built-in's name


@dataclass(frozen=True, slots=True)
class LadderMatch:
    match_id: str
    room: str
    ended_ms: int
    p1: SeatShown
    p2: SeatShown
    winner: Side | None
    reason: EndReason
    turns: int
    has_replay: bool
    #: The retention sweep deleted its replay (B14): shown as "bản ghi đã xoá".
    replay_deleted: bool
    rated: bool


@dataclass(frozen=True, slots=True)
class LadderMatchesPage:
    matches: tuple[LadderMatch, ...]
    next: str | None


class LadderMatches:
    def __init__(
        self,
        archive: MatchArchive,
        catalogue: BotCatalogue,
        results: LadderResults,
        listing: LadderListing,
    ) -> None:
        self._archive = archive
        self._catalogue = catalogue
        self._results = results
        self._listing = listing

    async def __call__(self, query: LadderMatchesQuery) -> LadderMatchesPage:
        before = parse_cursor(query.before)
        if query.bot is not None and BOT_FILTER_PATTERN.fullmatch(query.bot) is None:
            raise BadRequest("Mã bot không hợp lệ.")
        found = await self._archive.finished_matches(
            HISTORY_PAGE_SIZE + 1, before, bot=query.bot, ladder=True
        )
        page = found[:HISTORY_PAGE_SIZE]
        rated = await self._results.rated([match.id for match in page])
        names = SeatNames(self._catalogue)
        uploads = {
            seat.ref for match in page for seat in (match.p1, match.p2)
            if seat.kind is SeatKind.UPLOAD
        }
        names.learn(uploads, await self._listing.existing(uploads))
        shown = []
        for match in page:
            result = match.result
            assert result is not None and match.finished_ms is not None
            shown.append(
                LadderMatch(
                    match_id=match.id,
                    room=match.room,
                    ended_ms=match.finished_ms,
                    p1=await names.show(match.p1),
                    p2=await names.show(match.p2),
                    winner=result.winner,
                    reason=result.reason,
                    turns=result.turns,
                    has_replay=match.replay is not None,
                    replay_deleted=match.replay_deleted,
                    rated=match.id in rated,
                )
            )
        more = len(found) > HISTORY_PAGE_SIZE
        return LadderMatchesPage(tuple(shown), cursor_text(page[-1].cursor) if more else None)
