"""Builders for the composition root that import aiogram only when called.

Importing aiogram costs seconds; local play and the tests that never touch Telegram
should not pay for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aiogram import Bot

    from noitu.adapters.telegram.reporter import TelegramScoreReporter


def make_bot(token: str, api_base: str = "") -> Bot:
    """A Bot for the token; TELEGRAM_API_BASE points it at a self-hosted Bot API server.

    Raises aiogram's TokenValidationError for a token that is not `<digits>:<secret>`.
    """
    from aiogram import Bot
    from aiogram.client.session.aiohttp import AiohttpSession
    from aiogram.client.telegram import TelegramAPIServer

    session = AiohttpSession(api=TelegramAPIServer.from_base(api_base)) if api_base else None
    return Bot(token, session=session)


def make_score_reporter(bot: Bot) -> TelegramScoreReporter:
    from noitu.adapters.telegram.reporter import TelegramScoreReporter

    return TelegramScoreReporter(bot)
