"""The webhook route: Telegram POSTs updates to `<GAME_BASE_URL>/telegram/webhook`.

Only a request carrying our secret in X-Telegram-Bot-Api-Secret-Token (compared in
constant time) is fed to the dispatcher. Telegram re-sends an update it thinks failed,
so recently seen update ids are ignored.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections import OrderedDict
from typing import Protocol

import structlog
from aiogram import Bot, Dispatcher
from aiogram.types import Update
from litestar import Request, Response, post
from litestar.handlers import HTTPRouteHandler
from pydantic import ValidationError

from noitu.adapters.http.paths import WEBHOOK_PATH
from noitu.adapters.noitu.telegram.retry import describe

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
SECRET_LABEL = b"noitu/webhook/v1"
MAX_UPDATE_BYTES = 1024 * 1024
RECENT_UPDATES = 2048

log = structlog.get_logger("noitu.telegram.webhook")


def webhook_secret(bot_token: str) -> str:
    """The secret Telegram sends back with every update: HMAC(bot token, label), hex.

    64 characters of [0-9a-f], within Telegram's 1-256 of [A-Za-z0-9_-]; rotating the
    bot token rotates it.
    """
    return hmac.new(bot_token.encode(), SECRET_LABEL, hashlib.sha256).hexdigest()


class RecentUpdates:
    """A bounded set of the update ids seen last; `first_time` records and answers."""

    def __init__(self, size: int = RECENT_UPDATES) -> None:
        self._size = size
        self._seen: OrderedDict[int, None] = OrderedDict()

    async def first_time(self, update_id: int) -> bool:
        if update_id in self._seen:
            return False
        self._seen[update_id] = None
        if len(self._seen) > self._size:
            self._seen.popitem(last=False)
        return True


class SeenUpdates(Protocol):
    """Remembers handled update ids: this process's memory, or Redis across instances."""

    async def first_time(self, update_id: int) -> bool: ...


def webhook_route(
    bot: Bot, dispatcher: Dispatcher, secret: str, recent: SeenUpdates | None = None
) -> HTTPRouteHandler:
    expected = secret.encode()
    seen = recent or RecentUpdates()

    @post(
        WEBHOOK_PATH,
        status_code=200,
        include_in_schema=False,
        request_max_body_size=MAX_UPDATE_BYTES,
    )
    async def telegram_webhook(request: Request) -> Response[bytes]:
        given = request.headers.get(SECRET_HEADER, "").encode("utf-8", "replace")
        if not hmac.compare_digest(given, expected):
            log.warning("webhook_bad_secret")
            return Response(b"", status_code=401)
        try:
            update = Update.model_validate(json.loads(await request.body()), context={"bot": bot})
        except (ValueError, ValidationError, RecursionError):  # RecursionError: nested too deeply
            return Response(b"", status_code=400)
        try:
            first = await seen.first_time(update.update_id)
        except Exception as error:  # noqa: BLE001 - a shared store that is down must not drop /noitu
            log.warning("webhook_dedup_unavailable", error=type(error).__name__)
            first = True
        if not first:
            log.info("webhook_duplicate", update_id=update.update_id)
            return Response(b"", status_code=200)
        try:
            await dispatcher.feed_update(bot, update)
        except Exception as error:  # answer 200 anyway: a re-sent update would fail again
            log.error(
                "update_failed",
                update_id=update.update_id,
                error=type(error).__name__,
                detail=describe(error, bot.token),
                exc_info=error,
            )
        return Response(b"", status_code=200)

    return telegram_webhook
