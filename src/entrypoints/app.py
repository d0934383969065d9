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

import structlog
from litestar import Litestar, get
from litestar.exceptions import HTTPException
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin

from noitu.adapters.http.arena import ArenaAssets, arena_page_routers
from noitu.adapters.http.assets import PageAssets
from noitu.adapters.http.bodies import GameRequest
from noitu.adapters.http.errors import (
    game_error_handler,
    http_error_handler,
    internal_error_handler,
)
from noitu.adapters.http.middleware import response_headers
from noitu.adapters.http.noitu import noitu_routers, tighten_schema
from noitu.adapters.http.paths import SCHEMA_PATH
from noitu.application.errors import Busy, GameError
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import Settings

SWEEP_EVERY_S = 60.0
SHUTDOWN_REPORTS_S = 5.0

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


def _noitu_lifespan(container: Container, settings: Settings) -> Lifespan:
    @contextlib.asynccontextmanager
    async def lifespan(_: Litestar) -> AsyncIterator[None]:
        sweeper = asyncio.get_running_loop().create_task(sweep_forever(container))
        try:
            yield
        finally:
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeper
            await container.background().drain(SHUTDOWN_REPORTS_S)
            if settings.store == "redis":
                await container.redis().aclose()

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
    lifespans: list[Lifespan] = []
    if settings.telegram_enabled:
        telegram_lifespans, telegram_routes = _telegram(container, settings)
        lifespans += telegram_lifespans
        routes += telegram_routes
    if settings.game_enabled:
        # The rules say the turn in whole seconds, rounded half up as the page's script
        # rounds turn_limit_ms (at least 1).
        turn_seconds = max((settings.turn_ms + 500) // 1000, 1)
        assets = PageAssets.from_package(turn_seconds=turn_seconds)
        routes += noitu_routers(assets, container)
        lifespans.append(_noitu_lifespan(container, settings))
    if settings.arena_enabled:
        routes += arena_page_routers(ArenaAssets.from_package())
    _log_startup(settings)

    app = Litestar(
        route_handlers=routes,
        lifespan=lifespans,
        before_send=[response_headers(settings.access_log)],
        request_class=GameRequest,
        exception_handlers={
            GameError: game_error_handler,
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
    if settings.game_enabled:
        tighten_schema(app.openapi_schema)
    return app
