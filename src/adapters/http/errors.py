"""The one table that maps errors to HTTP answers, and the handlers that apply it.

Every error body is `{"error": <code>, "message": <Vietnamese sentence>}`; the codes are
the use cases' (`GameError.code`), plus litestar's own refusals mapped to them. Every
429 answer also carries `Retry-After`: in whole seconds (at least 1), when the limit
frees up at the latest. Nối từ's API (solo and rooms, whose pages offer to try again)
also says it in the body: `{"error", "message", "retry_after_ms"}` (`LimitBody`), through
its routers' own handler, `limit_error_handler`.
"""

from __future__ import annotations

import msgspec
import structlog
from litestar import MediaType, Request, Response
from litestar.exceptions import HTTPException
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import (
    Example,
    OpenAPI,
    OpenAPIHeader,
    OpenAPIResponse,
    OpenAPIType,
    Schema,
)

from noitu.adapters.http.fast_paths import client_left_mid_body
from noitu.application.errors import BadRequest, GameError

log = structlog.get_logger("noitu.http")


class ErrorBody(msgspec.Struct, frozen=True):
    error: str
    message: str


class LimitBody(msgspec.Struct, frozen=True):
    """A 429 of nối từ's API: the error, and in how many ms asking again may succeed
    (the wait `Retry-After` rounds up to whole seconds)."""

    error: str
    message: str
    retry_after_ms: int


ERROR_STATUS: dict[str, int] = {
    "bad_request": 400,
    "bad_token": 401,
    "token_expired": 401,
    "no_session": 404,
    "game_over": 409,
    "too_fast": 429,
    "busy": 503,
    "internal": 500,
    # nối từ's group rooms (B10); room_full and not_your_turn are shared with the arena
    "no_member": 404,
    "room_gone": 404,
    "no_game": 409,
    "watching": 409,
    "out_of_game": 409,
    "not_host": 403,
    "not_enough_players": 409,
    "game_running": 409,
    "too_many_rooms": 409,
    "not_a_room_link": 400,
    "room_link": 400,
    # the words the players bring (B11)
    "too_many_reports": 429,
    "word_not_refused": 409,
    # the arena's uploaded bots
    "bad_owner_key": 400,
    "unsupported_file": 400,
    "bad_file": 400,
    "not_owner": 403,
    "bot_not_found": 404,
    "too_many_bots": 409,
    "bot_not_built": 409,
    "bot_in_match": 409,
    "file_too_large": 413,
    "too_many_uploads": 429,
    "uploads_unavailable": 503,
    "build_unavailable": 503,
    "storage_full": 507,
    # per client address, whatever the owner keys (B10)
    "address_too_many_keys": 429,
    "address_too_many_uploads": 429,
    "address_too_many_rooms": 429,
    # the arena's rooms and matches
    "room_not_found": 404,
    "room_full": 409,
    "seat_taken": 409,
    "already_seated": 409,
    "not_seated": 403,
    "wrong_phase": 409,
    "not_your_turn": 409,
    "illegal_action": 422,
    "placement_refused": 422,
    "time_up": 409,
    "too_many_matches": 429,
    "match_not_found": 404,
    "replay_not_ready": 409,
    "replay_deleted": 410,
    "one_spectacle": 429,
    # the ladder (B8)
    "too_many_ranked": 409,
    "not_ranked": 409,
    "bot_ranked": 409,
}


TOO_MANY_REQUESTS = 429
REQUEST_TIMEOUT = 408
RETRY_AFTER = "Retry-After"

#: When a limit frees up, for the 429 codes whose use case cannot tell (ms, at the
#: latest): the oldest of an owner's uploads leaves the one-minute window within one
#: window (`UPLOAD_WINDOW_MS`, compared by a test); a room frees up when a match ends,
#: which nobody can tell, so the client is asked to wait a little before asking again.
#: Without either, one second.
RETRY_AFTER_MS: dict[str, int] = {
    "too_many_uploads": 60_000,
    "too_many_matches": 10_000,
    "one_spectacle": 10_000,
}


def retry_after_ms(error: GameError) -> int:
    """When a 429's limit frees up: the use case's own wait, else the table's (ms, at
    least 1)."""
    wait_ms = error.retry_after_ms
    if wait_ms is None:
        wait_ms = RETRY_AFTER_MS.get(error.code, 1000)
    return max(1, wait_ms)


def retry_after_s(error: GameError) -> int:
    """The Retry-After of a 429: `retry_after_ms` in whole seconds rounded up, at least 1."""
    return max(1, -(-retry_after_ms(error) // 1000))


def error_response(error: GameError, *, wait_in_body: bool = False) -> Response[ErrorBody | LimitBody]:
    status = ERROR_STATUS[error.code]
    body: ErrorBody | LimitBody = ErrorBody(error.code, error.message)
    headers = None
    if status == TOO_MANY_REQUESTS:
        headers = {RETRY_AFTER: str(retry_after_s(error))}
        if wait_in_body:
            body = LimitBody(error.code, error.message, retry_after_ms(error))
    return Response(body, status_code=status, headers=headers, media_type=MediaType.JSON)


def game_error_handler(_: Request, error: GameError) -> Response[ErrorBody | LimitBody]:
    return error_response(error)


def limit_error_handler(_: Request, error: GameError) -> Response[ErrorBody | LimitBody]:
    """Nối từ's API: a 429 also says in the body when to ask again."""
    return error_response(error, wait_in_body=True)


#: The exception handlers of nối từ's API routers.
LIMIT_ERROR_HANDLERS = {GameError: limit_error_handler}


def http_error_handler(request: Request, error: HTTPException) -> Response[ErrorBody]:
    """Anything litestar refuses before a use case runs: a malformed or oversized body,
    an unknown field, a wrong type. All are the client's `bad_request`."""
    if client_left_mid_body(error):
        # Nobody reads this answer: the connection is gone (or closed with 408 by the
        # server for a body too slow). The access log says 408; nothing failed here.
        return Response(b"", status_code=REQUEST_TIMEOUT, media_type=MediaType.TEXT)
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
    return error_response(BadRequest())


def internal_error_handler(request: Request, error: Exception) -> Response[ErrorBody]:
    log.error("internal_error", path=request.url.path, exc_info=error)
    return error_response(GameError())


def error_responses(
    *errors: type[GameError], wait_in_body: bool = False
) -> dict[int, ResponseSpec]:
    """The OpenAPI answers of a route that may raise `errors` (bad_request and internal
    are always possible), one per status, with every code of that status as an example;
    with `wait_in_body` (nối từ's API), a 429's body is a `LimitBody`."""
    every = dict.fromkeys((*errors, BadRequest, GameError))
    specs: dict[int, ResponseSpec] = {}
    for error in every:
        status = ERROR_STATUS[error.code]
        named = [e for e in every if ERROR_STATUS[e.code] == status]
        limited = wait_in_body and status == TOO_MANY_REQUESTS
        specs[status] = ResponseSpec(
            data_container=LimitBody if limited else ErrorBody,
            description=" or ".join(e.code for e in named),
            examples=[
                Example(value={"error": e.code, "message": e.default_message}
                        | ({"retry_after_ms": 1000} if limited else {}))
                for e in named
            ],
        )
    return specs


def declare_retry_after(schema: OpenAPI) -> None:
    """Say in the document that every 429 answer carries `Retry-After`."""
    header = OpenAPIHeader(
        schema=Schema(type=OpenAPIType.INTEGER, minimum=1),
        required=True,
        description="Whole seconds to wait before asking again: when the limit frees up",
    )
    for item in (schema.paths or {}).values():
        for method in ("get", "post", "put", "patch", "delete"):
            operation = getattr(item, method)
            answer = (operation.responses or {}).get(str(TOO_MANY_REQUESTS)) if operation else None
            if isinstance(answer, OpenAPIResponse):
                answer.headers = {**(answer.headers or {}), RETRY_AFTER: header}
    limit = ((schema.components.schemas if schema.components else None) or {}).get("LimitBody")
    if limit is not None and limit.properties is not None:
        limit.properties["retry_after_ms"] = Schema(
            type=OpenAPIType.INTEGER, minimum=1,
            description="Milliseconds to wait before asking again (Retry-After, unrounded)",
        )
