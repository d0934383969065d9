"""The words the players bring over HTTP (spec B11): `api/report-word` (solo),
`api/room/report-word` (group rooms) and the public page of added words."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Protocol

from litestar import Router, post
from litestar.openapi.spec import OpenAPI

from noitu.adapters.http.errors import error_responses
from noitu.adapters.http.fast_paths import JsonAnswer
from noitu.adapters.http.noitu import MAX_BODY_BYTES, WORD_CONSTRAINTS, JsonBody, tighten_schema
from noitu.adapters.http.paths import NOITU_API_PATH
from noitu.application.noitu.errors import NoSession
from noitu.application.noitu.rooms.errors import NoMember, RoomGone
from noitu.application.noitu.words.file_report import ReportAnswer, TooManyReports
from noitu.application.noitu.words.report_refused_word import (
    NotRefused,
    ReportRefusedWord,
    ReportWordCommand,
)
from noitu.application.noitu.words.report_room_word import ReportRoomWord, RoomReportWordCommand


class WordsUseCases(Protocol):
    report_refused_word: Callable[[], ReportRefusedWord]
    report_room_word: Callable[[], ReportRoomWord]


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
