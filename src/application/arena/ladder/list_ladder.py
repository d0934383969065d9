"""B8 "Pages and routes": the table as the arena's page shows it — each row of the
ladder's table with the bot's name and language (the built-ins' own; an uploaded bot's
as stored), a page at a time.

A page is one read of the store (`LadderListing`), which orders the rows as the
domain's table does: a table of thousands of ranked bots (issue 30: 5,000 sybil bots
made the whole table take 6.6 s, a query per row) costs one statement a page, and no
row is built in Python but those shown.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from noitu.application.arena.errors import BadRequest
from noitu.application.arena.ladder.ports import BuiltinRoster, LadderListing, TableEntry
from noitu.application.arena.ports import Language
from noitu.domain.arena.ladder.table import LadderRow, table_row

#: Rows a page of the table holds.
TABLE_PAGE_SIZE = 100
#: The highest rank a page may start after (far beyond any table).
MAX_AFTER = 10**9


class ListedBot(msgspec.Struct, frozen=True):
    row: LadderRow
    name: str
    language: Language


@dataclass(frozen=True, slots=True)
class LadderPage:
    rows: tuple[ListedBot, ...]
    #: The last rank shown, to start the next page after; None on the last page.
    next: int | None


def listed(roster: BuiltinRoster, entry: TableEntry) -> ListedBot:
    """A stored row with the bot's name and language."""
    row = table_row(entry.rank, entry.member, entry.standing)
    if entry.member.builtin:
        return ListedBot(row, entry.member.bot, roster.language(entry.member.bot))
    assert entry.name is not None and entry.language is not None
    return ListedBot(row, entry.name, entry.language)


class ListLadder:
    def __init__(self, listing: LadderListing, roster: BuiltinRoster) -> None:
        self._listing = listing
        self._roster = roster

    async def __call__(self, after: int = 0) -> LadderPage:
        """The rows ranked after `after` (0: the top of the table)."""
        if not 0 <= after <= MAX_AFTER:
            raise BadRequest("Vị trí trang không hợp lệ.")
        found = await self._listing.page(self._roster.names(), after, TABLE_PAGE_SIZE + 1)
        rows = tuple(listed(self._roster, entry) for entry in found[:TABLE_PAGE_SIZE])
        more = len(found) > TABLE_PAGE_SIZE
        return LadderPage(rows, rows[-1].row.rank if more else None)
