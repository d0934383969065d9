"""The arena's uploaded bots over HTTP, under /arena/api/bots (spec B5, B6).

Thin: the handler reads the form, body or query, calls one use case and maps its
result to the JSON views below (camelCase); errors go through the one table in
`errors`. The owner key travels in the `X-Owner-Key` header. The upload route alone
takes a large body (a 16 MiB JAR and the form's overhead); an upload past it is
`file_too_large`, never a 500. Every other route keeps the 4 KiB cap.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Protocol

import msgspec
import structlog
from litestar import MediaType, Request, Response, Router, delete, get, patch, post
from litestar.datastructures import UploadFile
from litestar.enums import RequestEncodingType
from litestar.exceptions import HTTPException
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import OpenAPI, OpenAPIType, Schema
from litestar.params import Body, FromPath, Parameter

from noitu.adapters.http.arena.bot_views import (
    BotFiguresView,
    BotListView,
    BotMatchesView,
    BotView,
    PublicBotsView,
    UploadedView,
    bot_match_view,
    bot_view,
    figures_view,
)
from noitu.adapters.http.arena.owner_key import OWNER_KEY_HEADER, OWNER_KEY_PATTERN, OwnerKey
from noitu.adapters.http.client_address import ClientAddresses
from noitu.adapters.http.errors import (
    ERROR_STATUS,
    ErrorBody,
    error_response,
    error_responses,
    http_error_handler,
)
from noitu.adapters.http.fast_paths import JsonAnswer
from noitu.adapters.http.paths import ARENA_API_PATH
from noitu.application.arena.bot_details import BotDetails
from noitu.application.arena.bot_figures import (
    BotFiguresOf,
    BotFiguresQuery,
)
from noitu.application.arena.bot_matches import BotMatches, BotMatchesQuery
from noitu.application.arena.bot_source import BotSource
from noitu.application.arena.delete_bot import DeleteBot
from noitu.application.arena.errors import (
    AddressTooManyKeys,
    AddressTooManyUploads,
    BadFile,
    BadOwnerKey,
    BadRequest,
    BotInMatch,
    BotNotBuilt,
    BotNotFound,
    BuildUnavailable,
    Busy,
    FileTooLarge,
    GameError,
    NotOwner,
    StorageFull,
    TooManyBots,
    TooManyUploads,
    UnsupportedFile,
    UploadsUnavailable,
)
from noitu.application.arena.jobs import JobError, JobFailed
from noitu.application.arena.ladder.errors import BotRanked
from noitu.application.arena.languages import LANGUAGES
from noitu.application.arena.limits import MAX_JAR_BYTES, MAX_PUBLIC_PAGE_SIZE, PUBLIC_PAGE_SIZE
from noitu.application.arena.my_bots import MyBots
from noitu.application.arena.public_bots import PublicBots, PublicBotsQuery
from noitu.application.arena.publish_bot import PublishBot, PublishBotCommand
from noitu.application.arena.storage import StorageUnavailable
from noitu.application.arena.upload_bot import UploadBot, UploadBotCommand

log = structlog.get_logger("noitu.http")

MAX_BODY_BYTES = 4096
#: The multipart form's boundaries, part headers and the name field, beyond the file.
FORM_OVERHEAD_BYTES = 64 * 1024
MAX_UPLOAD_BODY_BYTES = MAX_JAR_BYTES + FORM_OVERHEAD_BYTES


class PublishBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    public: bool


@dataclass
class UploadForm:
    file: UploadFile
    name: str | None = None


def upload_http_error(request: Request, error: HTTPException) -> Response[ErrorBody]:
    """An upload over the body limit is `file_too_large`; the rest as everywhere."""
    if error.status_code == 413:
        return error_response(FileTooLarge())
    return http_error_handler(request, error)


def upload_game_error(request: Request, error: GameError) -> Response[ErrorBody]:
    """The server's own failures while building are logged with their cause; a build no
    worker took in time (or whose worker was lost) is one warning line: the operator
    needs the reason, not the traceback of a wait."""
    cause = error.__cause__
    if isinstance(cause, JobError) and not isinstance(cause, JobFailed):
        log.warning("upload_busy", path=request.url.path, reason=str(cause)[:200])
    elif ERROR_STATUS[error.code] >= 500 and cause is not None:
        log.error("upload_failed", code=error.code, path=request.url.path, exc_info=cause)
    return error_response(error)


def storage_error_handler(request: Request, error: StorageUnavailable) -> Response[ErrorBody]:
    """The arena's database cannot be reached: the client may try again later."""
    log.warning("arena_storage_unavailable", path=request.url.path, reason=str(error)[:200])
    return error_response(Busy())


class ArenaBotUseCases(Protocol):
    """Where the bot routes find their use cases: each attribute hands out the current
    one (the composition root's providers fit)."""

    upload_bot: Callable[[], UploadBot]
    client_addresses: Callable[[], ClientAddresses]
    my_bots: Callable[[], MyBots]
    public_bots: Callable[[], PublicBots]
    bot_details: Callable[[], BotDetails]
    bot_source: Callable[[], BotSource]
    publish_bot: Callable[[], PublishBot]
    delete_bot: Callable[[], DeleteBot]
    bot_matches: Callable[[], BotMatches]
    bot_figures: Callable[[], BotFiguresOf]


#: What the use cases accept, said in the document (they check it themselves, so that a
#: malformed key answers `bad_owner_key` and a malformed cursor `bad_request`): an
#: optional parameter is a string of this form, or absent.
PARAMETER_PATTERNS = {
    OWNER_KEY_HEADER: OWNER_KEY_PATTERN,
    "before": r"^(0|[1-9][0-9]{0,17})\.[0-9a-z]{16}$",
}
#: A page of matches' cursor (`<finished ms>.<match id>`), the `before` of the routes
#: that list matches.
MATCH_CURSOR_PATTERN = r"^(0|[1-9][0-9]{0,17})\.[0-9A-F]{8}$"
#: The ladder's matches' filter: an uploaded bot's id or a built-in's name.
BOT_FILTER_PATTERN = r"^[0-9a-z]{1,64}$"


def tighten_bots_schema(schema: OpenAPI) -> None:
    """Say in the document what the handlers enforce: the PATCH body has no other
    field, and the optional parameters' forms (litestar writes `string or null`, and a
    null cannot be sent in a header or a query)."""
    components = (schema.components.schemas if schema.components else None) or {}
    component = components.get(PublishBody.__name__)
    if component is None:
        raise RuntimeError(f"the OpenAPI document has no schema for {PublishBody.__name__}")
    component.additional_properties = False
    found: set[str] = set()
    for path, item in (schema.paths or {}).items():
        if not path.startswith(ARENA_API_PATH):
            continue
        for operation in (item.get, item.post, item.put, item.patch, item.delete):
            for parameter in (operation.parameters or []) if operation else []:
                name = getattr(parameter, "name", "")
                pattern = PARAMETER_PATTERNS.get(name)
                if name == "before" and path.endswith("/matches"):
                    pattern = MATCH_CURSOR_PATTERN
                elif name == "bot" and path.endswith("/matches"):
                    pattern = BOT_FILTER_PATTERN
                if pattern is not None:
                    parameter.schema = Schema(
                        type=OpenAPIType.STRING, pattern=pattern, description=parameter.description
                    )
                    found.add(parameter.name)
    found.discard("bot")
    if found != set(PARAMETER_PATTERNS):
        raise RuntimeError(f"the OpenAPI document lacks the parameters {set(PARAMETER_PATTERNS) - found}")


def arena_bot_routers(use_cases: ArenaBotUseCases) -> list[Any]:
    # Plain closures over the composition root's providers, as nối từ's routes (no
    # dependency injection per request).
    @post(
        "/",
        status_code=201,
        summary="Upload a bot: one .py, .cpp/.cc/.cxx, .java or .jar file, built at once",
        description=(
            "The build's verdict and the compiler's messages are in the answer's bot"
            " (`build`, `buildMessages`); `buildWaitMs` is how long the build waited for"
            " a free place (one build per core at once). Without an owner key a new one"
            " is made and returned: keep it."
        ),
        request_max_body_size=MAX_UPLOAD_BODY_BYTES,
        exception_handlers={HTTPException: upload_http_error, GameError: upload_game_error},
        responses=error_responses(
            BadOwnerKey, UnsupportedFile, BadFile, TooManyBots, FileTooLarge, TooManyUploads,
            UploadsUnavailable, BuildUnavailable, StorageFull, Busy, AddressTooManyKeys,
            AddressTooManyUploads,
        ),
    )
    async def upload(
        request: Request,
        data: Annotated[UploadForm, Body(media_type=RequestEncodingType.MULTI_PART)],
        owner_key: OwnerKey = None,
    ) -> UploadedView:
        if not isinstance(data.file, UploadFile):
            raise BadFile("Hãy gửi bot trong trường tệp `file`.")
        content = await data.file.read()
        command = UploadBotCommand(
            file_name=data.file.filename or "",
            data=content,
            name=data.name,
            owner_key=owner_key,
            address=use_cases.client_addresses().of(request),
        )
        result = await use_cases.upload_bot()(command)
        return UploadedView(bot_view(result.bot), result.owner_key, result.build_wait_ms)

    @get(
        "/",
        summary="My bots, newest first",
        responses=error_responses(BadOwnerKey, Busy),
    )
    async def mine(owner_key: OwnerKey = None) -> BotListView:
        return BotListView([bot_view(info) for info in await use_cases.my_bots()(owner_key)])

    @get(
        "/public",
        summary="Public bots, newest first, a page at a time",
        responses=error_responses(BadOwnerKey, Busy),
    )
    async def public(
        limit: Annotated[int, Parameter(ge=1, le=MAX_PUBLIC_PAGE_SIZE)] = PUBLIC_PAGE_SIZE,
        before: Annotated[str | None, Parameter(description="The previous page's `next`")] = None,
        owner_key: OwnerKey = None,
    ) -> PublicBotsView:
        page = await use_cases.public_bots()(PublicBotsQuery(limit, before, owner_key))
        return PublicBotsView([bot_view(info) for info in page.bots], page.next)

    @get(
        "/{bot_id:str}",
        summary="One bot: everything for its owner, the public facts for others",
        responses=error_responses(BadOwnerKey, BotNotFound, Busy),
    )
    async def details(
        bot_id: FromPath[str],
        owner_key: OwnerKey = None,
    ) -> BotView:
        return bot_view(await use_cases.bot_details()(bot_id, owner_key))

    @get(
        "/{bot_id:str}/source",
        summary="The bot's uploaded file (its owner only): text, or the JAR as it was sent",
        media_type="text/plain",
        responses={
            200: ResponseSpec(
                data_container=str,
                media_type="text/plain",
                description="The source as text; a JAR as application/java-archive",
            ),
            **error_responses(BadOwnerKey, BotNotFound, NotOwner, Busy),
        },
    )
    async def source(
        bot_id: FromPath[str],
        owner_key: OwnerKey = None,
    ) -> Response[bytes]:
        found = await use_cases.bot_source()(bot_id, owner_key)
        return Response(
            found.data,
            # litestar adds "; charset=utf-8" to a text/ type itself.
            media_type=LANGUAGES[found.language].media_type,
            headers={
                "Content-Disposition": f'attachment; filename="{found.file_name}"',
                "Cache-Control": "no-store",
            },
        )

    @patch(
        "/{bot_id:str}",
        summary="Make one's bot public or private",
        responses=error_responses(
            BadOwnerKey, BotNotFound, NotOwner, BotNotBuilt, BotRanked, Busy
        ),
    )
    async def publish(
        bot_id: FromPath[str],
        data: Annotated[PublishBody, Body(media_type=MediaType.JSON)],
        owner_key: OwnerKey = None,
    ) -> BotView:
        return bot_view(await use_cases.publish_bot()(PublishBotCommand(bot_id, data.public, owner_key)))

    @delete(
        "/{bot_id:str}",
        status_code=204,
        summary="Delete one's bot and its files",
        responses=error_responses(BadOwnerKey, BotNotFound, NotOwner, BotInMatch, Busy),
    )
    async def remove(
        bot_id: FromPath[str],
        owner_key: OwnerKey = None,
    ) -> None:
        await use_cases.delete_bot()(bot_id, owner_key)

    @get(
        "/{bot_id:str}/matches",
        summary="A bot's matches of any kind (ladder and rooms), newest first, 50 a page",
        description=(
            "Anyone's for a public bot or a built-in (its name is its id), its owner's"
            " for a private one. The owner also reads each match's failure and, for 7"
            " days, the bot's stderr tail."
        ),
        responses=error_responses(BadOwnerKey, BotNotFound, BadRequest, Busy),
    )
    async def matches(
        bot_id: FromPath[str],
        before: Annotated[str | None, Parameter(description="The previous page's `next`")] = None,
        owner_key: OwnerKey = None,
    ) -> BotMatchesView:
        page = await use_cases.bot_matches()(BotMatchesQuery(bot_id, before, owner_key))
        return BotMatchesView([bot_match_view(match) for match in page.matches], page.next)

    @get(
        "/{bot_id:str}/figures",
        summary="A bot's figures: results by side, failures by code, reply-time p50/p99",
        responses=error_responses(BadOwnerKey, BotNotFound, Busy),
    )
    async def figures(bot_id: FromPath[str], owner_key: OwnerKey = None) -> BotFiguresView:
        return figures_view(await use_cases.bot_figures()(BotFiguresQuery(bot_id, owner_key)))

    return [
        Router(
            path=f"{ARENA_API_PATH}/bots",
            route_handlers=[
                upload, mine, public, details, source, publish, remove, matches, figures,
            ],
            request_max_body_size=MAX_BODY_BYTES,
            tags=["arena"],
            response_class=JsonAnswer,
        )
    ]
