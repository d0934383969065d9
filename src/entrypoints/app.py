"""The app factory: `create_app(container)` builds the whole server from one container,
the HTTP app and, with a bot token, the bot in its lifespan. No module-level app object.

One process serves both. The Telegram side (aiogram) is built only when a bot token is
set: importing aiogram takes seconds, and local play does not need it.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import msgspec
import structlog
from litestar import Litestar, get
from litestar.exceptions import HTTPException
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin

from noitu.adapters.arena.sql.engine import describe
from noitu.adapters.http.arena.bots import (
    arena_bot_routers,
    storage_error_handler,
    tighten_bots_schema,
)
from noitu.adapters.http.arena.ladder import arena_ladder_routers, tighten_ladder_schema
from noitu.adapters.http.arena.pages import arena_assets, arena_page_routers
from noitu.adapters.http.arena.rooms import arena_room_routers, tighten_rooms_schema
from noitu.adapters.http.arena.ws import room_socket_router
from noitu.adapters.http.bodies import GameRequest
from noitu.adapters.http.errors import (
    game_error_handler,
    http_error_handler,
    internal_error_handler,
)
from noitu.adapters.http.fast_paths import allow_every_method_in_options
from noitu.adapters.http.middleware import response_headers
from noitu.adapters.http.noitu.api import noitu_routers, page_assets, page_figures, tighten_schema
from noitu.adapters.http.noitu.rooms import group_room_router, tighten_group_rooms_schema
from noitu.adapters.http.noitu.words import (
    tighten_words_schema,
    words_api_router,
    words_page_router,
)
from noitu.adapters.http.openapi import SchemaPart, complete_openapi
from noitu.adapters.http.pages import kernel_assets, kernel_router
from noitu.adapters.http.paths import ARENA_API_PATH, SCHEMA_PATH
from noitu.adapters.http.strict_query import declare_strict_query, strict_query
from noitu.application.arena.ladder.play_ladder import PlayLadderCommand
from noitu.application.arena.storage import StorageUnavailable
from noitu.application.errors import GameError
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import Settings
from noitu.entrypoints.words import words_lifespan

SHUTDOWN_REPORTS_S = 5.0
#: At shutdown, how long live matches may take to end (each bot gets 1 s to exit).
ROOMS_SHUTDOWN_S = 10.0

log = structlog.get_logger("noitu.app")

Lifespan = Callable[[Litestar], contextlib.AbstractAsyncContextManager[Any]]


@get("/healthz", summary="Liveness", tags=["ops"])
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


def _resources(container: Container) -> Lifespan:
    """The container's Resources (the Redis link, the arena's database, migrated, the
    sandbox, the room feeds, the periodic tasks), opened before every other part starts
    and closed after every other part has stopped: this lifespan comes first."""

    @contextlib.asynccontextmanager
    async def lifespan(_: Litestar) -> AsyncIterator[None]:
        try:
            await container.init_resources()
            yield
        finally:
            await container.shutdown_resources()

    return lifespan


def _periodic_stops_first(container: Container) -> Lifespan:
    """The periodic tasks, started with the Resources, stop before any part does (this
    lifespan comes last, so it ends first): nothing sweeps, settles or abandons while
    the rooms close and the reports drain."""

    @contextlib.asynccontextmanager
    async def lifespan(_: Litestar) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await container.periodic_resource.shutdown()

    return lifespan


def _noitu_lifespan(container: Container) -> Lifespan:
    @contextlib.asynccontextmanager
    async def lifespan(_: Litestar) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await container.background().drain(SHUTDOWN_REPORTS_S)

    return lifespan


def _arena_lifespan(container: Container, settings: Settings) -> Lifespan:
    """The arena's start-up, once its Resources are open (the sandbox probed, the
    database migrated): put right what a previous run left, and say how the arena
    runs (uploads are built only in a sandbox: this process's, or with
    NOITU_ARENA_QUEUE=saq the workers'; without one the built-in bots run directly)."""

    @contextlib.asynccontextmanager
    async def lifespan(_: Litestar) -> AsyncIterator[None]:
        found = container.arena_sandbox_status()
        on_workers = settings.arena_queue == "saq"
        uploads = on_workers or (found is not None and found.available)
        recovered = await container.recover_at_start()()
        if on_workers:
            sandbox = "not needed: matches and builds run on the workers"
        else:
            sandbox = found.reason if found is not None else "not probed"
        (log.info if uploads else log.warning)(
            "arena",
            uploads="on" if uploads else "off",
            builds="workers (saq)" if on_workers else "here",
            matches="workers (saq)" if on_workers else "here",
            sandbox=sandbox,
            database=describe(settings.arena_database_url),
            files=settings.arena_files,
            data_dir=str(settings.data_dir),
            **msgspec.structs.asdict(recovered),
        )
        yield

    return lifespan


def _rooms_lifespan(container: Container, settings: Settings) -> Lifespan:
    """The arena's rooms, and (unless NOITU_ARENA_LADDER=0) the ladder's driver filling the
    slots they leave idle. At shutdown (before the Resources close, so the database and
    the feed are still there) the driver stops first, so no ladder match starts, then
    every live match ends as ABANDONED and is archived, its bots' processes stopped (a
    killed server's bots die with it: the sandbox's --die-with-parent, the direct
    launcher's parent-death signal)."""

    @contextlib.asynccontextmanager
    async def lifespan(_: Litestar) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        tasks: list[asyncio.Task[None]] = []
        if settings.arena_ladder:
            tasks.append(
                loop.create_task(container.play_ladder()(PlayLadderCommand(settings.instance)))
            )
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            ended = await container.close_rooms()(ROOMS_SHUTDOWN_S)
            if ended:
                log.info("arena_rooms_closed", abandoned=ended)

    return lifespan


def _telegram(container: Container, settings: Settings) -> tuple[list[Lifespan], list[object]]:
    """The bot's lifespan and, in webhook mode, its route; exits on a malformed token."""
    from aiogram.utils.token import TokenValidationError

    try:
        container.telegram_bot()
    except TokenValidationError:
        print(
            "noitu: TELEGRAM_BOT_TOKEN does not look like a bot token (<digits>:<secret>,"
            " as @BotFather gives it)",
            file=sys.stderr,
        )
        raise SystemExit(2) from None
    routes = [container.webhook_route()] if settings.webhook_url else []
    return [container.telegram_runner().lifespan], routes


def _log_startup(settings: Settings) -> None:
    if not settings.noitu_enabled:
        log.warning(
            "startup",
            telegram="off",
            game="off",
            reason=f"MODULES={' '.join(settings.modules)!r} does not name noitu: nothing of noitu runs",
        )
    elif settings.local_play:
        log.info(
            "startup",
            telegram="off",
            game="local",
            reason="TELEGRAM_BOT_TOKEN is unset: local play, no Telegram",
        )
    else:
        facts: dict[str, str] = {}
        if settings.webhook_url:
            facts["webhook"] = settings.webhook_url
        if settings.telegram_problem:
            facts["problem"] = settings.telegram_problem
        if settings.telegram_api_base:
            facts["api_base"] = settings.telegram_api_base
        if settings.game_disabled_reason:
            facts["reason"] = settings.game_disabled_reason
        quiet = settings.game_enabled and not settings.telegram_problem
        (log.info if quiet else log.warning)(
            "startup",
            telegram=settings.telegram_mode,
            game="enabled" if settings.game_enabled else "disabled",
            **facts,
        )


def create_app(container: Container) -> Litestar:
    settings = container.settings()
    routes: list[object] = [healthz]
    lifespans: list[Lifespan] = [_resources(container)]
    # What each mounted part adds to the OpenAPI document (see http/openapi.py).
    schema_parts: list[SchemaPart] = []
    before_request = None
    if settings.telegram_enabled:
        telegram_lifespans, telegram_routes = _telegram(container, settings)
        lifespans += telegram_lifespans
        routes += telegram_routes
    if settings.game_enabled or settings.arena_enabled:
        routes.append(kernel_router(kernel_assets()))
    if settings.game_enabled:
        assets = page_assets(page_figures(settings.turn_ms))
        routes += noitu_routers(assets, container)
        routes.append(group_room_router(container))
        routes += [words_api_router(container), words_page_router(container)]
        schema_parts.append(tighten_words_schema)
        schema_parts += [tighten_schema, tighten_group_rooms_schema]
        lifespans.append(_noitu_lifespan(container))
    if settings.game_enabled or settings.telegram_enabled:
        lifespans.append(words_lifespan(container))
    if settings.arena_enabled:
        routes += arena_page_routers(arena_assets())
        routes += arena_bot_routers(container)
        lifespans.append(_arena_lifespan(container, settings))
        routes += arena_room_routers(container)
        routes += arena_ladder_routers(container)
        schema_parts += [
            tighten_bots_schema, tighten_rooms_schema, tighten_ladder_schema,
            declare_strict_query(ARENA_API_PATH),
        ]
        before_request = strict_query(ARENA_API_PATH)
        routes.append(room_socket_router(container))
        lifespans.append(_rooms_lifespan(container, settings))
    lifespans.append(_periodic_stops_first(container))
    _log_startup(settings)

    app = Litestar(
        route_handlers=routes,
        lifespan=lifespans,
        # The arena API's GET routes refuse query parameters they do not declare.
        before_request=before_request,
        before_send=[response_headers(settings.access_log)],
        request_class=GameRequest,
        exception_handlers={
            GameError: game_error_handler,
            StorageUnavailable: storage_error_handler,
            HTTPException: http_error_handler,
            Exception: internal_error_handler,
        },
        # The OpenAPI document as JSON only (SCHEMA_PATH/openapi.json, and SCHEMA_PATH
        # itself): litestar's HTML renderers would load their scripts from a CDN.
        openapi_config=OpenAPIConfig(
            title="noitu", version="0.1.0", path=SCHEMA_PATH, render_plugins=[JsonRenderPlugin()]
        ),
        logging_config=None,
        debug=False,
    )
    complete_openapi(app.openapi_schema, schema_parts)
    allow_every_method_in_options(app)
    return app
