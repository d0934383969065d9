"""Nối từ over HTTP: the API under /games/noitu/api/ and the page (spec "HTTP API", B9).

Handlers are thin: litestar parses the JSON body into the use case's command, the use
case runs, the result struct goes back as JSON (`fast_paths.JsonAnswer`, the response
class of both games' APIs); errors go through the table in `errors`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Protocol

from litestar import MediaType, Request, Response, Router, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import OpenAPI
from litestar.params import Body, FromPath
from litestar.response import Redirect

from noitu.adapters.http.assets import (
    SCRIPT_FOLDER,
    Assets,
    package_folder,
    read_files,
    read_scripts,
)
from noitu.adapters.http.errors import LIMIT_ERROR_HANDLERS, ErrorBody, error_responses
from noitu.adapters.http.fast_paths import JsonAnswer
from noitu.adapters.http.pages import SLASH_REDIRECT, asset_route, slash_redirect
from noitu.adapters.http.paths import NOITU_API_PATH, NOITU_PATH
from noitu.application.noitu.commands import (
    PlayMoveCommand,
    SessionCommand,
    StartGameCommand,
)
from noitu.application.noitu.errors import (
    BadToken,
    Busy,
    GameOver,
    NoSession,
    TokenExpired,
    TooFast,
)
from noitu.application.noitu.get_daily import DailyAnswer, GetDaily
from noitu.application.noitu.get_record import GetRecord, RecordAnswer
from noitu.application.noitu.get_state import GetState
from noitu.application.noitu.give_up import GiveUp
from noitu.application.noitu.play_move import PlayMove, PlayMoveResult
from noitu.application.noitu.rooms.errors import RoomLink
from noitu.application.noitu.start_game import StartGame
from noitu.application.noitu.view import SessionView
from noitu.domain.noitu.opponent import Difficulty
from noitu.domain.noitu.rules import MAX_TYPED_CHARACTERS, MAX_TYPED_TOKENS, MIN_SYLLABLES

MAX_BODY_BYTES = 4096

JsonBody = Body(media_type=MediaType.JSON)


class NoituUseCases(Protocol):
    """Where the routes find their use cases: each attribute hands out the current one
    (the composition root's providers), looked up per request, so a provider overridden
    after the app was built is still the one that runs."""

    start_game: Callable[[], StartGame]
    play_move: Callable[[], PlayMove]
    get_state: Callable[[], GetState]
    give_up: Callable[[], GiveUp]
    get_record: Callable[[], GetRecord]
    get_daily: Callable[[], GetDaily]


def api_router(use_cases: NoituUseCases) -> Router:
    # Plain closures rather than litestar's dependency injection: resolving four
    # dependencies per request cost ~15% of a request's CPU under load (issue 13).
    @post(
        "/start",
        status_code=200,
        summary="Start a game from a signed game link",
        responses=error_responses(BadToken, TokenExpired, RoomLink, TooFast, Busy, wait_in_body=True),
    )
    async def start(data: Annotated[StartGameCommand, JsonBody]) -> SessionView:
        return await use_cases.start_game()(data)

    @post(
        "/move",
        status_code=200,
        summary="Play a word; the bot answers in the same request",
        responses=error_responses(NoSession, GameOver, TooFast, wait_in_body=True),
    )
    async def move(data: Annotated[PlayMoveCommand, JsonBody]) -> PlayMoveResult:
        return await use_cases.play_move()(data)

    @post(
        "/state",
        status_code=200,
        summary="The session view; settles a turn that ran out",
        responses=error_responses(NoSession),
    )
    async def state(data: Annotated[SessionCommand, JsonBody]) -> SessionView:
        return await use_cases.get_state()(data)

    @post(
        "/give-up",
        status_code=200,
        summary="Chịu thua: end the game",
        responses=error_responses(NoSession),
    )
    async def give_up(data: Annotated[SessionCommand, JsonBody]) -> SessionView:
        return await use_cases.give_up()(data)

    @post(
        "/record",
        status_code=200,
        summary="The end screen's record block (B12): the player's best and place on "
        "this game message, its top 3, a new record, this game's best word",
        description="`pending` while the game goes on or its score is being reported "
        "(ask again); `unavailable` when the table failed or took over 3 s (no block); "
        "`ready` with the block.",
        responses=error_responses(NoSession),
    )
    async def record(data: Annotated[SessionCommand, JsonBody]) -> RecordAnswer:
        return await use_cases.get_record()(data)

    @post(
        "/daily",
        status_code=200,
        summary="The daily game's end screen (B13): the day, the player's words, score "
        "and streak, and the share text with no word of the game in it",
        description="`pending` while the game goes on; `ready` once it is over. A "
        "session that is not a daily game's is a `bad_request`.",
        responses=error_responses(NoSession),
    )
    async def daily(data: Annotated[SessionCommand, JsonBody]) -> DailyAnswer:
        return await use_cases.get_daily()(data)

    return Router(
        path=NOITU_API_PATH,
        route_handlers=[start, move, state, give_up, record, daily],
        tags=["game"],
        request_max_body_size=MAX_BODY_BYTES,
        response_class=JsonAnswer,
        exception_handlers=LIMIT_ERROR_HANDLERS,  # a 429 says when to ask again
    )


def page_figures(turn_ms: int) -> dict[str, int]:
    """What index.html's `data-limit` marks say: the rules' turn length in whole seconds,
    rounded half up as the page's script rounds a view's `turn_limit_ms`, at least 1,
    and a word's fewest syllables."""
    return {"turn_s": max((turn_ms + 500) // 1000, 1), "min_syllables": MIN_SYLLABLES}


def page_assets(figures: dict[str, int]) -> Assets:
    """The page's files: index.html (its marks saying `figures`), app.js, app.css and
    the ES modules of js/."""
    folder = package_folder()
    files = {**read_files(folder, "index.html", "app.js", "app.css"), **read_scripts(folder)}
    files["index.html"] = files["index.html"].with_figures(figures)
    return Assets(files)


def page_router(assets: Assets) -> Router:
    @asset_route(
        "/",
        summary="The game page",
        media_type="text/html",
        responses=SLASH_REDIRECT,
    )
    async def page(request: Request) -> Response[bytes] | Redirect:
        return slash_redirect(request, NOITU_PATH) or assets.answer("index.html")

    @asset_route("/app.js", summary="The page's script", media_type="text/javascript")
    async def script() -> Response[bytes]:
        return assets.answer("app.js")

    @asset_route("/app.css", summary="The page's style sheet", media_type="text/css")
    async def style() -> Response[bytes]:
        return assets.answer("app.css")

    @asset_route(
        "/js/{name:str}",
        summary="One of the page's ES modules, imported by app.js",
        media_type="text/javascript",
        responses={404: ResponseSpec(data_container=ErrorBody, description="not_found: no such module")},
    )
    async def module(name: FromPath[str]) -> Response[bytes]:
        return assets.answer(f"{SCRIPT_FOLDER}/{name}")

    return Router(path=NOITU_PATH, route_handlers=[page, script, style, module], tags=["page"])


# What the handlers enforce beyond the commands' types, said in the OpenAPI document:
# no unknown fields, the word limits of B2 (checked by the use case after the 300 ms
# limit, as B4 orders, so msgspec does not enforce them) and the three difficulties.
# Keyed by the command classes: a command renamed or a field dropped stops the server
# from starting instead of quietly loosening the published schema.
#: A typed word's limits (B2), for every command that carries one (solo and rooms).
WORD_CONSTRAINTS: dict[str, Any] = {
    "max_length": MAX_TYPED_CHARACTERS,
    "pattern": rf"^\s*(\S+\s+){{0,{MAX_TYPED_TOKENS - 1}}}\S*\s*$",
}

SCHEMA_CONSTRAINTS: dict[type, dict[str, dict[str, Any]]] = {
    StartGameCommand: {"difficulty": {"enum": ["", *(d.value for d in Difficulty)]}},
    PlayMoveCommand: {"word": WORD_CONSTRAINTS},
    SessionCommand: {},
}


def tighten_schema(
    schema: OpenAPI, table: dict[type, dict[str, dict[str, Any]]] = SCHEMA_CONSTRAINTS
) -> None:
    """No unknown fields and `table`'s checks (the use cases make them), said in the
    document; nối từ's group rooms pass their own table."""
    components = (schema.components.schemas if schema.components else None) or {}
    for command, constraints in table.items():
        component = components.get(command.__name__)
        if component is None:
            raise RuntimeError(f"the OpenAPI document has no schema for {command.__name__}")
        component.additional_properties = False
        for field_name, values in constraints.items():
            field_schema = (component.properties or {}).get(field_name)
            if field_schema is None:
                raise RuntimeError(f"{command.__name__} has no field {field_name!r} to constrain")
            for key, value in values.items():
                setattr(field_schema, key, value)


def noitu_routers(assets: Assets, use_cases: NoituUseCases) -> list[object]:
    return [api_router(use_cases), page_router(assets)]
