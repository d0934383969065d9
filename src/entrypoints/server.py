"""Builds the whole server from one container: the HTTP app and, with a bot token, the bot.

One process serves both. The Telegram side (aiogram) is imported only when a bot token
is set: importing aiogram takes seconds, and local play does not need it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

import structlog
from litestar import Litestar

from noitu.entrypoints.app import create_app
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import Settings

log = structlog.get_logger("noitu")


@dataclass
class TelegramSide:
    """What the Telegram side adds to the app, and what the start-up line says about it."""

    lifespan: Any
    routes: list[object] = field(default_factory=list)
    facts: dict[str, str] = field(default_factory=dict)


def telegram_side(container: Container, settings: Settings) -> TelegramSide:
    from aiogram import Dispatcher
    from aiogram.utils.token import TokenValidationError

    from noitu.adapters.telegram.handlers import noitu_router
    from noitu.adapters.telegram.links import GameLinks
    from noitu.adapters.telegram.runner import TelegramRunner
    from noitu.adapters.telegram.webhook import WEBHOOK_PATH, webhook_route, webhook_secret

    try:
        bot = container.telegram_bot()
    except TokenValidationError:
        print(
            "noitu: TELEGRAM_BOT_TOKEN does not look like a bot token (<digits>:<secret>,"
            " as @BotFather gives it)",
            file=sys.stderr,
        )
        raise SystemExit(2) from None

    issuer = container.token_signer() if settings.game_enabled else None
    links = GameLinks(base_url=settings.game_base_url, issuer=issuer, clock=container.clock())
    dispatcher = Dispatcher()
    dispatcher.include_router(noitu_router(links))

    mode, facts, routes = settings.telegram_mode, {}, []
    webhook_url = secret = ""
    if mode == "webhook":
        if settings.game_base_url:
            webhook_url = f"{settings.game_base_url}{WEBHOOK_PATH}"
            secret = webhook_secret(settings.bot_token)
            recent = None
            if settings.store == "redis":
                from noitu.adapters.redis.store import RedisRecentUpdates

                recent = RedisRecentUpdates(container.redis())
            routes.append(webhook_route(bot, dispatcher, secret, recent))
            facts["webhook"] = webhook_url
        else:
            facts["problem"] = "webhook mode needs a valid GAME_BASE_URL: no updates will arrive"
            mode = "none"
    if settings.telegram_api_base:
        facts["api_base"] = settings.telegram_api_base

    runner = TelegramRunner(bot, dispatcher, mode, webhook_url=webhook_url, webhook_secret=secret)
    container.score_reporter.override(container.telegram_reporter)
    return TelegramSide(lifespan=runner.lifespan, routes=routes, facts=facts)


def build_app(container: Container) -> Litestar:
    settings = container.settings()
    if not settings.noitu_enabled:
        log.warning(
            "startup",
            telegram="off",
            game="off",
            reason=f"MODULES={' '.join(settings.modules)!r} does not name noitu: nothing of noitu runs",
        )
        return create_app(container)
    if settings.local_play:
        log.info(
            "startup",
            telegram="off",
            game="local",
            reason="TELEGRAM_BOT_TOKEN is unset: local play, no Telegram",
        )
        return create_app(container)

    side = telegram_side(container, settings)
    game = "enabled" if settings.game_enabled else "disabled"
    reason = {"reason": settings.game_disabled_reason} if settings.game_disabled_reason else {}
    quiet = settings.game_enabled and "problem" not in side.facts
    (log.info if quiet else log.warning)(
        "startup", telegram=settings.telegram_mode, game=game, **reason, **side.facts
    )
    return create_app(container, extra_lifespans=[side.lifespan], extra_routes=side.routes)
