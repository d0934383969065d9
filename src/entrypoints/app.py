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
from noitu.adapters.heap import trim_heap
from noitu.adapters.http.arena import arena_assets, arena_page_routers
from noitu.adapters.http.arena_bots import (
    arena_bot_routers,
    storage_error_handler,
    tighten_bots_schema,
)
from noitu.adapters.http.arena_ladder import arena_ladder_routers, tighten_ladder_schema
from noitu.adapters.http.arena_rooms import arena_room_routers, tighten_rooms_schema
from noitu.adapters.http.arena_ws import room_socket_router
from noitu.adapters.http.bodies import GameRequest
from noitu.adapters.http.errors import (
    game_error_handler,
    http_error_handler,
    internal_error_handler,
)
from noitu.adapters.http.fast_paths import allow_every_method_in_options
from noitu.adapters.http.middleware import response_headers
from noitu.adapters.http.noitu import noitu_routers, page_assets, page_figures, tighten_schema
from noitu.adapters.http.noitu_rooms import group_room_router, tighten_group_rooms_schema
from noitu.adapters.http.noitu_words import (
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
from noitu.application.errors import Busy, GameError
from noitu.application.noitu.rooms.pages import RENEW_EVERY_MS
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import Settings
from noitu.entrypoints.words import words_lifespan

SWEEP_EVERY_S = 60.0
SHUTDOWN_REPORTS_S = 5.0
ROOM_SETTLE_EVERY_S = 0.5  # B10: a turn that ran out is settled within 1 s after its grace
ROOM_SETTLE_LEAST_S = 0.005  # the shortest sleep between two rounds of the rooms' task
#: How often a process looks for the matches of a worker that died (B9: within 30 s).
LOST_MATCHES_EVERY_S = 5.0
ROOM_CLOSE_EVERY_S = 60.0  # how often every room is brought up to now (idle ones closed)
#: At shutdown, how long live matches may take to end (each bot gets 1 s to exit).
ROOMS_SHUTDOWN_S = 10.0

log = structlog.get_logger("noitu.app")

Lifespan = Callable[[Litestar], contextlib.AbstractAsyncContextManager[Any]]


@get("/healthz", summary="Liveness", tags=["ops"])
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


async def sweep_forever(container: Container, every_s: float = SWEEP_EVERY_S) -> None:
    """The minutely task: settle turns that ran out with the page closed."""
    settle = container.settle_expired()
    while True:
        await asyncio.sleep(every_s)
        try:
            result = await settle()
            if result.settled or result.dropped_idle or result.dropped_finished:
                log.info("sweep", **{f: getattr(result, f) for f in result.__struct_fields__})
        except Busy:  # the store is unreachable; it logs the outage once, not per round
            pass
        except Exception:  # keep sweeping whatever one round hit
            log.exception("sweep_failed")


async def settle_rooms_forever(
    container: Container, every_s: float = ROOM_SETTLE_EVERY_S,
    close_every_s: float = ROOM_CLOSE_EVERY_S, renew_every_s: float = RENEW_EVERY_MS / 1000,
) -> None:
    """The group rooms' task (B10): rooms with something due are brought up to now —
    the bot seat's word when its pause ends, turns that ran out within a second after
    their grace, the presence rules (a host absent 2 minutes passes the role within
    10 s), whether or not anyone is connected; it sleeps until the next thing due, at
    most `every_s`. Every `renew_every_s` the feeds served here renew their holds; about
    once a minute every room is brought up to now (and empty ones closed). After feeds
    closed, the memory they freed goes back to the system."""
    settle, close_idle = container.group_settle(), container.group_close_idle()
    renew, pages = container.group_renew_pages(), container.group_pages()
    closed_feeds = pages.closed
    loop = asyncio.get_running_loop()
    next_close = loop.time() + close_every_s
    next_renew = loop.time() + renew_every_s
    pause_s = every_s
    while True:
        await asyncio.sleep(pause_s)
        pause_s = every_s
        try:
            await settle()
            now = loop.time()
            if now >= next_renew:
                next_renew = now + renew_every_s
                await renew()
            if now >= next_close:
                next_close = now + close_every_s
                closed = await close_idle()
                if closed:
                    log.info("rooms_closed", closed=closed)
            if pages.closed != closed_feeds:
                closed_feeds = pages.closed
                trim_heap()
            wait_ms = await settle.wait_ms()
            if wait_ms is not None:
                pause_s = min(every_s, max(wait_ms / 1000, ROOM_SETTLE_LEAST_S))
        except Busy:
            pass
        except Exception:
            log.exception("room_settle_failed")


def _resources(container: Container) -> Lifespan:
    """The container's Resources (the Redis link, the arena's database, migrated, the
    sandbox, the room feeds), opened before every other part starts and closed after
    every other part has stopped: this lifespan comes first."""

    @contextlib.asynccontextmanager
    async def lifespan(_: Litestar) -> AsyncIterator[None]:
        try:
            await container.init_resources()
            yield
        finally:
            await container.shutdown_resources()

    return lifespan


def _noitu_lifespan(container: Container) -> Lifespan:
    @contextlib.asynccontextmanager
    async def lifespan(_: Litestar) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        sweeper = loop.create_task(sweep_forever(container))
        room_settler = loop.create_task(settle_rooms_forever(container))
        try:
            yield
        finally:
            for task in (sweeper, room_settler):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
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


async def abandon_lost_matches_forever(container: Container) -> None:
    """Several machines (B9 "Faults"): every few seconds, the matches of a worker that
    stopped beating end as ABANDONED (any process may do it; the board's hold makes it
    once)."""
    abandon = container.abandon_lost_matches()
    while True:
        await asyncio.sleep(LOST_MATCHES_EVERY_S)
        try:
            abandoned = await abandon()
        except Busy:
            continue  # Redis away: an outage under 30 s abandons nothing
        except Exception:
            log.exception("lost_matches_failed")
            continue
        if abandoned:
            log.warning("lost_matches_abandoned", matches=abandoned)


def _rooms_lifespan(container: Container, settings: Settings) -> Lifespan:
    """The arena's rooms, and (unless NOITU_ARENA_LADDER=0) the ladder's driver filling the
    slots they leave idle. At shutdown (before the Resources close, so the database and
    the feed are still there) the driver stops first, so no ladder match starts, then
    every live match ends as ABANDONED and is archived, its bots' processes stopped (a
    killed server's bots die with it: the sandbox's --die-with-parent, the direct
    launcher's parent-death signal)."""

    @contextlib.asynccontextmanager
    async def lifespan(_: Litestar) -> AsyncIterator[None]:
        container.room_host()  # listens to the match queue from now on
        loop = asyncio.get_running_loop()
        tasks: list[asyncio.Task[None]] = []
        on_workers = settings.arena_queue == "saq"
        if settings.arena_ladder:
            tasks.append(
                loop.create_task(container.play_ladder()(PlayLadderCommand(settings.instance)))
            )
        if on_workers:
            tasks.append(loop.create_task(abandon_lost_matches_forever(container)))
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
