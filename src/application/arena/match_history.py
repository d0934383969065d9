"""What the histories share (spec B8 "History of every bot", "Pages and routes"): whose
history may be read, how a seat is shown, and the cursor of a page of finished matches.

A history belongs to a bot: an uploaded bot's id (its owner always reads it, anyone
when it is public) or a built-in's name (`random`, `tactical`, `strong`, the same ids
as the ladder's rows). Anything else, a deleted bot included, is `BotNotFound`, exactly
as for the bot routes. A seat whose uploaded bot was deleted shows as "bot đã xoá".
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Protocol

from noitu.application.arena.bot_info import visible_bot
from noitu.application.arena.errors import BadRequest, BotNotFound
from noitu.application.arena.records import BotRecord, MatchCursor, Seat, is_bot_id
from noitu.application.arena.replay import SeatKind
from noitu.application.arena.storage import BotCatalogue

#: Matches in a page of a history.
HISTORY_PAGE_SIZE = 50
#: What a deleted bot is called in the histories of the bots it played.
DELETED_BOT_NAME = "bot đã xoá"
#: `<finished ms>.<match id>` of a page's last match.
CURSOR_PATTERN = re.compile(r"(0|[1-9][0-9]{0,17})\.([0-9A-F]{8})")


class BuiltinNames(Protocol):
    """The built-in bots' names (the arena's built-in bots)."""

    def names(self) -> tuple[str, ...]: ...


@dataclass(frozen=True, slots=True)
class HistoryBot:
    """The bot whose history is read: its record, or None for a built-in."""

    id: str
    record: BotRecord | None

    def owned_by(self, viewer: str | None) -> bool:
        return self.record is not None and viewer is not None and self.record.owner == viewer


async def history_bot(
    catalogue: BotCatalogue, builtins: BuiltinNames, bot_id: str, viewer: str | None
) -> HistoryBot:
    if bot_id in builtins.names():
        return HistoryBot(bot_id, None)
    if not is_bot_id(bot_id):
        raise BotNotFound()
    return HistoryBot(bot_id, await visible_bot(catalogue, bot_id, viewer))


@dataclass(frozen=True, slots=True)
class SeatShown:
    """A side of a match as a history shows it."""

    bot_id: str | None  # an uploaded bot's id or a built-in's name; None for a person
    name: str
    builtin: bool
    deleted: bool


class SeatNames:
    """Shows seats, asking the catalogue once per uploaded bot whether it still exists."""

    def __init__(self, catalogue: BotCatalogue) -> None:
        self._catalogue = catalogue
        self._exists: dict[str, bool] = {}

    def learn(self, asked: Collection[str], existing: Collection[str]) -> None:
        """What one read found: of the uploaded bots `asked`, those `existing` are
        stored (a page of matches asks once, not once per bot)."""
        self._exists.update((bot, bot in existing) for bot in asked)

    async def show(self, seat: Seat) -> SeatShown:
        if seat.kind is SeatKind.PERSON:
            return SeatShown(None, seat.name, builtin=False, deleted=False)
        if seat.kind is SeatKind.BUILTIN:
            return SeatShown(seat.ref, seat.name, builtin=True, deleted=False)
        if seat.ref not in self._exists:
            self._exists[seat.ref] = await self._catalogue.get_bot(seat.ref) is not None
        if not self._exists[seat.ref]:
            return SeatShown(seat.ref, DELETED_BOT_NAME, builtin=False, deleted=True)
        return SeatShown(seat.ref, seat.name, builtin=False, deleted=False)


def cursor_text(cursor: MatchCursor) -> str:
    return f"{cursor.finished_ms}.{cursor.match_id}"


def parse_cursor(text: str | None) -> MatchCursor | None:
    if text is None:
        return None
    found = CURSOR_PATTERN.fullmatch(text)
    if found is None:
        raise BadRequest("Vị trí trang không hợp lệ.")
    return MatchCursor(int(found.group(1)), found.group(2))
