"""Running the bot inside the HTTP server's lifespan: polling, webhook, or neither.

- polling: deleteWebhook, then aiogram's long polling in a task that never touches the
  server's signals (`handle_signals=False`); stopped with `stop_polling()`.
- webhook: setWebhook to `<GAME_BASE_URL>/telegram/webhook` with the secret; the updates
  arrive on the litestar route from `webhook.webhook_route`.
- none: no updates at all (another process owns them); scores are still reported.

The Bot API calls made at start (setMyCommands, setWebhook, deleteWebhook) run in
tasks that retry transient failures, so a slow or absent Telegram never holds up the
HTTP server's start.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import structlog
from aiogram import Bot, Dispatcher
from aiogram.loggers import dispatcher as aiogram_dispatcher_log
from aiogram.types import BotCommand

from noitu.adapters.noitu.telegram.links import (
    DAILY_COMMAND,
    GAME_SHORT_NAME,
    LOOKUP_COMMAND,
    REPORT_COMMAND,
    ROOM_COMMAND,
    TOP_COMMAND,
)
from noitu.adapters.noitu.telegram.retry import describe, retry_delay
from noitu.adapters.noitu.telegram.texts import (
    COMMAND_DESCRIPTION,
    DAILY_COMMAND_DESCRIPTION,
    LOOKUP_COMMAND_DESCRIPTION,
    REPORT_COMMAND_DESCRIPTION,
    ROOM_COMMAND_DESCRIPTION,
    TOP_COMMAND_DESCRIPTION,
)

POLLING_TIMEOUT_S = 30
STOP_POLLING_S = 5.0
FIRST_RETRY_S = 1.0
MAX_RETRY_S = 60.0

CONFLICT_REPORT_EVERY_S = 300.0

log = structlog.get_logger("noitu.telegram")


class PollingConflictWatch(logging.Filter):
    """Says plainly, once per incident, when another process polls this bot token.

    aiogram's polling loop logs each failed getUpdates and retries with a backoff (it
    does not crash); Telegram answers 409 Conflict while a second poller runs. This
    filter watches aiogram's dispatcher log for that error and adds one clear line.
    """

    def __init__(self, every_s: float = CONFLICT_REPORT_EVERY_S, clock=time.monotonic) -> None:
        super().__init__()
        self._every_s = every_s
        self._clock = clock
        self._last = -every_s
        self.reported = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args and "TelegramConflictError" in str(record.args[0]):
            now = self._clock()
            if now - self._last >= self._every_s:
                self._last = now
                self.reported += 1
                log.error(
                    "telegram_conflict",
                    problem="another process is polling this bot token; only one may."
                    " Stop it, or run TELEGRAM_MODE=none here (or webhook mode everywhere)",
                )
        return True


class TelegramRunner:
    def __init__(
        self,
        bot: Bot,
        dispatcher: Dispatcher,
        mode: str,
        webhook_url: str = "",
        webhook_secret: str = "",
        polling_timeout_s: int = POLLING_TIMEOUT_S,
        first_retry_s: float = FIRST_RETRY_S,
        max_retry_s: float = MAX_RETRY_S,
    ) -> None:
        if mode not in ("polling", "webhook", "none"):
            raise ValueError(f"unknown Telegram mode {mode!r}")
        self.bot = bot
        self.dispatcher = dispatcher
        self.mode = mode
        self.webhook_url = webhook_url
        self.webhook_secret = webhook_secret
        self._polling_timeout_s = polling_timeout_s
        self._first_retry_s = first_retry_s
        self._max_retry_s = max_retry_s
        self._poller: asyncio.Task[None] | None = None

    async def _keep_trying(self, name: str, call: Callable[[], Awaitable[Any]]) -> bool:
        """Call until it works; wait and retry after a transient failure, stop on a final one."""
        backoff = self._first_retry_s
        while True:
            try:
                await call()
                return True
            except Exception as error:  # noqa: BLE001 - log it, never die silently
                delay = retry_delay(error, backoff)
                context = {"error": type(error).__name__, "detail": describe(error, self.bot.token)}
                if delay is None:
                    log.error(f"{name}_failed", **context)
                    return False
                log.warning(f"{name}_retry", wait_s=round(delay, 2), **context)
            await asyncio.sleep(delay)
            backoff = min(backoff * 2, self._max_retry_s)

    async def _set_commands(self) -> None:
        commands = [
            BotCommand(command=GAME_SHORT_NAME, description=COMMAND_DESCRIPTION),
            BotCommand(command=DAILY_COMMAND, description=DAILY_COMMAND_DESCRIPTION),
            BotCommand(command=ROOM_COMMAND, description=ROOM_COMMAND_DESCRIPTION),
            BotCommand(command=TOP_COMMAND, description=TOP_COMMAND_DESCRIPTION),
            BotCommand(command=REPORT_COMMAND, description=REPORT_COMMAND_DESCRIPTION),
            BotCommand(command=LOOKUP_COMMAND, description=LOOKUP_COMMAND_DESCRIPTION),
        ]
        if await self._keep_trying("set_my_commands", lambda: self.bot.set_my_commands(commands)):
            log.info("set_my_commands_done")

    async def _set_webhook(self) -> None:
        async def register() -> None:
            await self.bot.set_webhook(
                url=self.webhook_url,
                secret_token=self.webhook_secret,
                allowed_updates=self.dispatcher.resolve_used_update_types(),
                drop_pending_updates=False,
            )

        if await self._keep_trying("set_webhook", register):
            log.info("set_webhook_done", url=self.webhook_url)

    async def _poll(self) -> None:
        """Long polling until stopped; restarted with a backoff if it ever falls over."""
        backoff = self._first_retry_s
        watch = PollingConflictWatch()
        aiogram_dispatcher_log.addFilter(watch)
        try:
            await self._poll_until_stopped(backoff)
        finally:
            aiogram_dispatcher_log.removeFilter(watch)

    async def _poll_until_stopped(self, backoff: float) -> None:
        while True:
            # A webhook left set by an earlier run would make every getUpdates a 409.
            if not await self._keep_trying(
                "delete_webhook", lambda: self.bot.delete_webhook(drop_pending_updates=False)
            ):
                return
            try:
                await self.dispatcher.start_polling(
                    self.bot,
                    handle_signals=False,
                    close_bot_session=False,
                    polling_timeout=self._polling_timeout_s,
                )
                return  # stopped on purpose
            except Exception as error:  # noqa: BLE001 - e.g. getMe failed: try again later
                log.warning(
                    "polling_failed",
                    error=type(error).__name__,
                    detail=describe(error, self.bot.token),
                    wait_s=backoff,
                )
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, self._max_retry_s)

    async def _stop_polling(self) -> None:
        poller, self._poller = self._poller, None
        if poller is None:
            return
        if not poller.done():
            try:
                await asyncio.wait_for(self.dispatcher.stop_polling(), STOP_POLLING_S)
            except RuntimeError:
                pass  # not polling right now (still starting, or waiting to retry)
            except TimeoutError:
                log.warning("stop_polling_slow")
        poller.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await poller

    @contextlib.asynccontextmanager
    async def lifespan(self, _app: object = None) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        setup: list[asyncio.Task[None]] = []
        if self.mode != "none":
            setup.append(loop.create_task(self._set_commands()))
        if self.mode == "webhook":
            setup.append(loop.create_task(self._set_webhook()))
        if self.mode == "polling":
            self._poller = loop.create_task(self._poll())
        try:
            yield
        finally:
            await self._stop_polling()
            for task in setup:
                task.cancel()
            for task in setup:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await self.bot.session.close()
            log.info("telegram_stopped", mode=self.mode)
