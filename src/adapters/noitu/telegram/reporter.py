"""The Telegram score reporter: setGameScore, bounded in time, retried when transient.

Runs in the background (the unit of work spawns it after a commit), so a slow Telegram never slows a
move. force=false: Telegram keeps each player's best, and a score that is not higher
answers BOT_SCORE_NOT_MODIFIED, which counts as saved (spec "Scoring") but is no new
record (B12); a score Telegram takes raised the best, or is the player's first there.
After an attempt whose fate is unknown (a timeout, a 5xx), a later
BOT_SCORE_NOT_MODIFIED may be that attempt's own score: it is still answered as no
record, the end screen never claiming one it cannot tell (docs/decisions.md).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable

import structlog
from aiogram import Bot
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest

from noitu.adapters.noitu.telegram.retry import describe, retry_delay
from noitu.application.noitu.session import GameMessage, ReportState, ScoreReport

NOT_MODIFIED = "BOT_SCORE_NOT_MODIFIED"
SAVED = ScoreReport(ReportState.OK)
FAILED = ScoreReport(ReportState.FAILED)

log = structlog.get_logger("noitu.telegram.scores")


class TelegramScoreReporter:
    """Implements the ScoreReporter port.

    Each attempt lasts at most `attempt_timeout_s`; all attempts and the waits between
    them fit in `budget_s`. A 4xx answer is final at once.
    """

    def __init__(
        self,
        bot: Bot,
        attempt_timeout_s: float = 10.0,
        budget_s: float = 30.0,
        max_attempts: int = 4,
        first_backoff_s: float = 0.5,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._bot = bot
        self._attempt_timeout_s = attempt_timeout_s
        self._budget_s = budget_s
        self._max_attempts = max_attempts
        self._first_backoff_s = first_backoff_s
        self._sleep = sleep
        self._monotonic = monotonic

    async def _set_score(
        self, user_id: int, score: int, message: GameMessage, timeout_s: float
    ) -> None:
        request_timeout = max(1, math.ceil(timeout_s))
        if message.inline_message_id:
            await self._bot.set_game_score(
                user_id=user_id,
                score=score,
                force=False,
                inline_message_id=message.inline_message_id,
                request_timeout=request_timeout,
            )
        else:
            await self._bot.set_game_score(
                user_id=user_id,
                score=score,
                force=False,
                chat_id=message.chat_id,
                message_id=message.message_id,
                request_timeout=request_timeout,
            )

    def _failure(self, error: BaseException, timeout_s: float) -> str:
        if isinstance(error, TimeoutError):
            return f"TimeoutError: no answer within {timeout_s:.1f} s"
        return f"{type(error).__name__}: {describe(error, self._bot.token)}"

    async def report(self, user_id: int, score: int, message: GameMessage) -> ScoreReport:
        context = {"user_id": user_id, "score": score, "game_message": message.key}
        deadline = self._monotonic() + self._budget_s
        backoff = self._first_backoff_s
        failure = "no attempt fitted in the time budget"
        for attempt in range(1, self._max_attempts + 1):
            remaining = deadline - self._monotonic()
            if remaining <= 0:
                break
            timeout_s = min(self._attempt_timeout_s, remaining)
            try:
                async with asyncio.timeout(timeout_s):
                    await self._set_score(user_id, score, message, timeout_s)
            except TelegramBadRequest as error:
                if NOT_MODIFIED in error.message:
                    log.info("score_reported", attempt=attempt, not_higher=True, **context)
                    return SAVED
                failure, delay = self._failure(error, timeout_s), None
            except (TelegramAPIError, TimeoutError) as error:
                failure, delay = self._failure(error, timeout_s), retry_delay(error, backoff)
            except Exception as error:  # noqa: BLE001 - answer FAILED, never blow up the task
                log.error(
                    "score_report_failed",
                    attempt=attempt,
                    error=type(error).__name__,
                    detail=describe(error, self._bot.token),
                    **context,
                )
                return FAILED
            else:
                log.info("score_reported", attempt=attempt, **context)
                return ScoreReport(ReportState.OK, new_record=score > 0)

            if delay is None:
                break
            if attempt == self._max_attempts or self._monotonic() + delay >= deadline:
                break
            log.info(
                "score_report_retry",
                attempt=attempt,
                wait_s=round(delay, 2),
                error=failure,
                **context,
            )
            await self._sleep(delay)
            backoff *= 2
        log.warning("score_report_failed", error=failure, **context)
        return FAILED
