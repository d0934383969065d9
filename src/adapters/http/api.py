"""The Litestar HTTP API under /games/noitu/ (spec "HTTP API", B9).

Handlers are thin: litestar parses the JSON body into the use case's command, the use
case runs, the result goes back as JSON. `ERROR_STATUS` is the one table that maps
errors to HTTP answers.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
import structlog
from litestar import Controller, MediaType, Request, Response, Router, get, post
from litestar.di import NamedDependency, Provide
from litestar.exceptions import HTTPException
from litestar.openapi.spec import Example, OpenAPI
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import Body
from litestar.response import Redirect

from noitu.application.noitu.errors import GameError
from noitu.application.noitu.get_state import GetState
from noitu.application.noitu.give_up import GiveUp, SessionCommand
from noitu.application.noitu.messages import ERROR_MESSAGES
from noitu.application.noitu.play_move import PlayMove, PlayMoveCommand, PlayMoveResult
from noitu.application.noitu.start_game import StartGame, StartGameCommand
from noitu.application.noitu.view import SessionView
from noitu.domain.noitu.game import MAX_TYPED_CHARACTERS, MAX_TYPED_TOKENS
from noitu.domain.noitu.bots.opponents import Difficulty
from noitu.adapters.http.assets import PageAssets

GAME_PATH = "/games/noitu"
MAX_BODY_BYTES = 4096

log = structlog.get_logger("noitu.http")


class ErrorBody(msgspec.Struct, frozen=True):
    error: str
    message: str


ERROR_STATUS: dict[str, int] = {
    "bad_request": 400,
    "bad_token": 401,
    "token_expired": 401,
    "no_session": 404,
    "game_over": 409,
    "too_fast": 429,
    "busy": 503,
    "internal": 500,
}


def error_response(code: str, message: str | None = None) -> Response[ErrorBody]:
    return Response(
        ErrorBody(code, message or ERROR_MESSAGES[code]),
        status_code=ERROR_STATUS[code],
        media_type=MediaType.JSON,
    )


def game_error_handler(_: Request, error: GameError) -> Response[ErrorBody]:
    return error_response(error.code, error.message)


def http_error_handler(request: Request, error: HTTPException) -> Response[ErrorBody]:
    """Anything litestar refuses before a use case runs: a malformed or oversized body,
    an unknown field, a wrong type. All are the client's `bad_request`."""
    if error.status_code >= 500:
        return internal_error_handler(request, error)
    if error.status_code in (404, 405):
        headers = dict(error.headers or {})
        return Response(
            ErrorBody("not_found" if error.status_code == 404 else "method_not_allowed", ""),
            status_code=error.status_code,
            headers=headers,
            media_type=MediaType.JSON,
        )
    return error_response("bad_request")


def internal_error_handler(request: Request, error: Exception) -> Response[ErrorBody]:
    log.error("internal_error", path=request.url.path, exc_info=error)
    return Response(
        ErrorBody("internal", ERROR_MESSAGES["internal"]),
        status_code=500,
        media_type=MediaType.JSON,
    )


def _error_spec(*codes: str) -> dict[int, ResponseSpec]:
    specs: dict[int, ResponseSpec] = {}
    for code in (*codes, "bad_request", "internal"):
        status = ERROR_STATUS[code]
        named = [c for c in (*codes, "bad_request", "internal") if ERROR_STATUS[c] == status]
        specs[status] = ResponseSpec(
            data_container=ErrorBody,
            description=" or ".join(dict.fromkeys(named)),
            examples=[Example(value={"error": c, "message": ERROR_MESSAGES[c]}) for c in dict.fromkeys(named)],
        )
    return specs


JsonBody = Body(media_type=MediaType.JSON)


class GameApi(Controller):
    path = f"{GAME_PATH}/api"
    tags = ["game"]

    @post(
        "/start",
        status_code=200,
        summary="Start a game from a signed game link",
        responses=_error_spec("bad_token", "token_expired", "too_fast", "busy"),
    )
    async def start(
        self, data: Annotated[StartGameCommand, JsonBody], start_game: NamedDependency[StartGame]
    ) -> SessionView:
        return await start_game(data)

    @post(
        "/move",
        status_code=200,
        summary="Play a word; the bot answers in the same request",
        responses=_error_spec("no_session", "game_over", "too_fast"),
    )
    async def move(
        self, data: Annotated[PlayMoveCommand, JsonBody], play_move: NamedDependency[PlayMove]
    ) -> PlayMoveResult:
        return await play_move(data)

    @post(
        "/state",
        status_code=200,
        summary="The session view; settles a turn that ran out",
        responses=_error_spec("no_session"),
    )
    async def state(
        self, data: Annotated[SessionCommand, JsonBody], get_state: NamedDependency[GetState]
    ) -> SessionView:
        return await get_state(data)

    @post(
        "/give-up",
        status_code=200,
        summary="Chịu thua: end the game",
        responses=_error_spec("no_session"),
    )
    async def give_up(
        self, data: Annotated[SessionCommand, JsonBody], give_up: NamedDependency[GiveUp]
    ) -> SessionView:
        return await give_up(data)


def page_router(assets: PageAssets) -> Router:
    @get(
        "/",
        summary="The game page",
        media_type="text/html",
        responses={308: ResponseSpec(data_container=None, description="Adds the trailing slash")},
    )
    async def page(request: Request) -> Response[bytes] | Redirect:
        # The page loads its script, style and API by relative paths: it needs the slash.
        raw_path = request.scope.get("raw_path") or request.scope["path"].encode()
        if not raw_path.split(b"?")[0].endswith(b"/"):
            query = request.scope.get("query_string", b"").decode("latin-1")
            return Redirect(f"{GAME_PATH}/" + (f"?{query}" if query else ""), status_code=308)
        return assets.response("index.html")

    @get("/app.js", summary="The page's script", media_type="text/javascript")
    async def script() -> Response[bytes]:
        return assets.response("app.js")

    @get("/app.css", summary="The page's style sheet", media_type="text/css")
    async def style() -> Response[bytes]:
        return assets.response("app.css")

    return Router(path=GAME_PATH, route_handlers=[page, script, style], tags=["page"])


def tighten_schema(schema: OpenAPI) -> None:
    """Say in the OpenAPI document what the handlers enforce: no unknown fields, the
    word limits of B2 and the three difficulties. (The word limits are checked by the
    use case, after the 300 ms limit, as B4 orders; msgspec does not enforce them.)"""
    components = schema.components.schemas or {}
    for name in ("StartGameCommand", "PlayMoveCommand", "SessionCommand"):
        if name in components:
            components[name].additional_properties = False
    if "PlayMoveCommand" in components:
        word = components["PlayMoveCommand"].properties["word"]
        word.max_length = MAX_TYPED_CHARACTERS
        word.pattern = rf"^\s*(\S+\s+){{0,{MAX_TYPED_TOKENS - 1}}}\S*\s*$"
    if "StartGameCommand" in components:
        components["StartGameCommand"].properties["difficulty"].enum = ["", *(d.value for d in Difficulty)]


def game_routers(assets: PageAssets, dependencies: dict[str, Provide]) -> list[object]:
    api = Router(
        path="/",
        route_handlers=[GameApi],
        dependencies=dependencies,
        request_max_body_size=MAX_BODY_BYTES,
    )
    return [api, page_router(assets)]
