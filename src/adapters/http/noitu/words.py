"""The words the players bring over HTTP (spec B11): `api/report-word` (solo),
`api/room/report-word` (group rooms) and the public page of added words."""

from __future__ import annotations

import html
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Annotated, Any, Protocol

from litestar import Response, Router, post
from litestar.openapi.spec import OpenAPI

from noitu.adapters.http.errors import error_responses
from noitu.adapters.http.fast_paths import JsonAnswer
from noitu.adapters.http.noitu.api import MAX_BODY_BYTES, WORD_CONSTRAINTS, JsonBody, tighten_schema
from noitu.adapters.http.pages import asset_route
from noitu.adapters.http.paths import NOITU_API_PATH, NOITU_PATH
from noitu.application.noitu.errors import NoSession
from noitu.application.noitu.rooms.errors import NoMember, RoomGone
from noitu.application.noitu.words.file_report import ReportAnswer, TooManyReports
from noitu.application.noitu.words.recent_additions import RecentAdditions
from noitu.application.noitu.words.report_refused_word import (
    NotRefused,
    ReportRefusedWord,
    ReportWordCommand,
)
from noitu.application.noitu.words.report_room_word import ReportRoomWord, RoomReportWordCommand
from noitu.domain.noitu.additions import Added
from noitu.domain.noitu.reports import VIETNAM_UTC_OFFSET_MS

PLAYERS_ZONE = timezone(timedelta(milliseconds=VIETNAM_UTC_OFFSET_MS))
WORDS_PAGE_CACHE = "no-cache"  # a new word shows at once


class WordsUseCases(Protocol):
    report_refused_word: Callable[[], ReportRefusedWord]
    report_room_word: Callable[[], ReportRoomWord]
    recent_additions: Callable[[], RecentAdditions]


def words_api_router(use_cases: WordsUseCases) -> Router:
    @post(
        "/report-word",
        status_code=200,
        summary="Báo thiếu từ: report the word this session was just refused as missing",
        responses=error_responses(NoSession, NotRefused, TooManyReports),
    )
    async def report_word(data: Annotated[ReportWordCommand, JsonBody]) -> ReportAnswer:
        return await use_cases.report_refused_word()(data)

    @post(
        "/room/report-word",
        status_code=200,
        summary="Báo thiếu từ in a group room: the word this member was just refused",
        responses=error_responses(NoMember, RoomGone, NotRefused, TooManyReports),
    )
    async def room_report_word(data: Annotated[RoomReportWordCommand, JsonBody]) -> ReportAnswer:
        return await use_cases.report_room_word()(data)

    return Router(
        path=NOITU_API_PATH,
        route_handlers=[report_word, room_report_word],
        tags=["words"],
        request_max_body_size=MAX_BODY_BYTES,
        response_class=JsonAnswer,
    )


WORDS_SCHEMA_CONSTRAINTS: dict[type, dict[str, dict[str, Any]]] = {
    ReportWordCommand: {"word": WORD_CONSTRAINTS},
    RoomReportWordCommand: {"word": WORD_CONSTRAINTS},
}


def tighten_words_schema(schema: OpenAPI) -> None:
    tighten_schema(schema, WORDS_SCHEMA_CONSTRAINTS)


def words_page(added: list[Added]) -> bytes:
    """The page of the last added words, newest first: plain HTML, the words escaped,
    the game's style sheets, no script."""
    if added:
        rows = []
        for item in added:
            day = datetime.fromtimestamp(item.at_ms / 1000, UTC).astimezone(PLAYERS_ZONE)
            rows.append(
                f'<li class="added-word"><span class="added-text">{html.escape(item.word)}</span> '
                f'<time datetime="{day:%Y-%m-%d}">{day:%d/%m/%Y}</time></li>'
            )
        body = f'<ol class="added-words" data-testid="added-words">{"".join(rows)}</ol>'
    else:
        body = '<p class="muted" data-testid="no-added-words">Chưa có từ nào được thêm.</p>'
    return f"""<!doctype html>
<html lang="vi">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<title>Từ mới – Nối từ</title>
<link rel="stylesheet" href="/kernel/kernel.css">
<link rel="stylesheet" href="app.css">
</head>
<body>
<main class="app words-page">
<h1 class="brand-title">Từ mới được thêm</h1>
<p>Những từ người chơi báo thiếu và đã được thêm vào trò chơi, mới nhất trước.</p>
{body}
</main>
</body>
</html>
""".encode()


def words_page_router(use_cases: WordsUseCases) -> Router:
    @asset_route("/words", summary="The last 100 words added to the game", media_type="text/html")
    async def page() -> Response[bytes]:
        return Response(
            words_page(use_cases.recent_additions()()),
            media_type="text/html; charset=utf-8",
            headers={"cache-control": WORDS_PAGE_CACHE},
        )

    return Router(path=NOITU_PATH, route_handlers=[page], tags=["page"])
