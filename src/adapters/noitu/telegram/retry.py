"""Which Bot API failures are worth another try, and how long to wait before it.

Transient: network errors and timeouts, 5xx answers, and flood control (retry_after).
Everything else (any 4xx) is final: asking again would get the same answer.
"""

from __future__ import annotations

from aiogram.exceptions import (
    TelegramEntityTooLarge,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)


def retry_delay(error: BaseException, backoff_s: float) -> float | None:
    """Seconds to wait before retrying after `error`, or None when it must not be retried."""
    if isinstance(error, TelegramRetryAfter):
        return float(error.retry_after)
    if isinstance(error, TelegramEntityTooLarge):  # a 413 that aiogram files as a network error
        return None
    if isinstance(error, (TelegramNetworkError, TelegramServerError, TimeoutError)):
        return backoff_s
    return None


def describe(error: BaseException, bot_token: str = "") -> str:
    """A short text for the log; never carries the bot token (URLs in errors might)."""
    text = getattr(error, "message", None) or str(error) or type(error).__name__
    if bot_token:
        text = text.replace(bot_token, "<bot-token>")
    return text[:300]
