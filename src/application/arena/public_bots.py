"""The public bots, newest first, a page at a time (spec B4, B5: anyone may seat one).

A page ends with a cursor, `next`, when more may follow: pass it back as `before`. The
cursor is `<created ms>.<bot id>` of the page's last bot; a malformed one is a
`bad_request`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from noitu.application.arena.bot_info import BotInfo, info_of, viewer_of
from noitu.application.arena.errors import BadRequest
from noitu.application.arena.limits import MAX_PUBLIC_PAGE_SIZE, PUBLIC_PAGE_SIZE
from noitu.application.arena.records import BotCursor
from noitu.application.arena.storage import BotCatalogue

CURSOR_PATTERN = re.compile(r"(0|[1-9][0-9]{0,17})\.([0-9a-z]{16})")


@dataclass(frozen=True, slots=True)
class PublicBotsQuery:
    limit: int = PUBLIC_PAGE_SIZE
    before: str | None = None
    owner_key: str | None = None


@dataclass(frozen=True, slots=True)
class PublicBotsPage:
    bots: list[BotInfo]
    next: str | None


def cursor_text(cursor: BotCursor) -> str:
    return f"{cursor.created_ms}.{cursor.bot_id}"


def parse_cursor(text: str) -> BotCursor:
    match = CURSOR_PATTERN.fullmatch(text)
    if match is None:
        raise BadRequest("Vị trí trang không hợp lệ.")
    return BotCursor(int(match.group(1)), match.group(2))


class PublicBots:
    def __init__(self, catalogue: BotCatalogue) -> None:
        self._catalogue = catalogue

    async def __call__(self, query: PublicBotsQuery) -> PublicBotsPage:
        if not 1 <= query.limit <= MAX_PUBLIC_PAGE_SIZE:
            raise BadRequest(f"Mỗi trang có từ 1 đến {MAX_PUBLIC_PAGE_SIZE} bot.")
        before = None if query.before is None else parse_cursor(query.before)
        viewer = viewer_of(query.owner_key)
        # One more than asked tells whether another page follows.
        found = await self._catalogue.public_bots(query.limit + 1, before)
        page = found[: query.limit]
        more = len(found) > query.limit
        return PublicBotsPage(
            [info_of(bot, viewer) for bot in page],
            cursor_text(page[-1].cursor) if more else None,
        )
