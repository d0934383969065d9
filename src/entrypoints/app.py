"""The Litestar app factory: `create_app(container)`; no module-level app object."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import structlog
from litestar import Litestar, get
from litestar.di import Provide
from litestar.exceptions import HTTPException
from litestar.openapi import OpenAPIConfig

from noitu.adapters.http.api import (
    game_error_handler,
    game_routers,
    http_error_handler,
    internal_error_handler,
    tighten_schema,
)
from noitu.adapters.http.assets import PageAssets
from noitu.adapters.http.middleware import response_headers
from noitu.application.noitu.errors import Busy, GameError
from noitu.application.noitu.get_state import GetState
from noitu.application.noitu.give_up import GiveUp
from noitu.application.noitu.play_move import PlayMove
from noitu.application.noitu.start_game import StartGame
from noitu.entrypoints.container import Container

SWEEP_EVERY_S = 60.0
SHUTDOWN_REPORTS_S = 5.0

log = structlog.get_logger("noitu.app")


@get("/healthz", summary="Liveness", tags=["ops"])
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


def _use_case_dependencies(container: Container) -> dict[str, Provide]:
    def start_game() -> StartGame:
        return container.start_game()

    def play_move() -> PlayMove:
        return container.play_move()

    def get_state() -> GetState:
        return container.get_state()

    def give_up() -> GiveUp:
        return container.give_up()

    return {
        "start_game": Provide(start_game, sync_to_thread=False),
        "play_move": Provide(play_move, sync_to_thread=False),
        "get_state": Provide(get_state, sync_to_thread=False),
        "give_up": Provide(give_up, sync_to_thread=False),
    }


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


def create_app(
    container: Container,
    extra_lifespans: list[Callable[[Litestar], contextlib.AbstractAsyncContextManager[Any]]]
    | None = None,
    extra_routes: list[object] | None = None,
) -> Litestar:
    settings = container.settings()
    routes: list[object] = [healthz, *(extra_routes or [])]
    if settings.game_enabled:
        routes += game_routers(PageAssets.from_package(), _use_case_dependencies(container))

    @contextlib.asynccontextmanager
    async def game_lifespan(_: Litestar) -> AsyncIterator[None]:
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

    lifespans = [*(extra_lifespans or [])]
    if settings.game_enabled:
        lifespans.append(game_lifespan)

    app = Litestar(
        route_handlers=routes,
        lifespan=lifespans,
        before_send=[response_headers(settings.access_log)],
        exception_handlers={
            GameError: game_error_handler,
            HTTPException: http_error_handler,
            Exception: internal_error_handler,
        },
        openapi_config=OpenAPIConfig(title="noitu", version="0.1.0"),
        logging_config=None,
        debug=False,
    )
    if settings.game_enabled:
        tighten_schema(app.openapi_schema)
    return app
