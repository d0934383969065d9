"""The HighScores port on Telegram: getGameHighScores for a player on a game message.

One attempt, bounded by `timeout_s` (the record block is worth little once the page
has stopped waiting for it); any failure is `HighScoresUnavailable`.
"""

from __future__ import annotations

import asyncio
import math

import structlog
from aiogram import Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import GameHighScore

from noitu.adapters.noitu.telegram.retry import describe
from noitu.application.noitu.ports import HighScore, HighScoresUnavailable
from noitu.application.noitu.session import GameMessage

log = structlog.get_logger("noitu.telegram.scores")


class TelegramHighScores:
    def __init__(self, bot: Bot, timeout_s: float) -> None:
        self._bot = bot
        self._timeout_s = timeout_s

    async def _ask(self, user_id: int, message: GameMessage) -> list[GameHighScore]:
        request_timeout = max(1, math.ceil(self._timeout_s))
        if message.inline_message_id:
            return await self._bot.get_game_high_scores(
                user_id=user_id,
                inline_message_id=message.inline_message_id,
                request_timeout=request_timeout,
            )
        return await self._bot.get_game_high_scores(
            user_id=user_id,
            chat_id=message.chat_id,
            message_id=message.message_id,
            request_timeout=request_timeout,
        )

    async def table(self, user_id: int, message: GameMessage) -> list[HighScore]:
        try:
            async with asyncio.timeout(self._timeout_s):
                rows = await self._ask(user_id, message)
        except (TelegramAPIError, TimeoutError) as error:
            log.warning(
                "high_scores_failed",
                user_id=user_id,
                game_message=message.key,
                error=type(error).__name__,
                detail=describe(error, self._bot.token),
            )
            raise HighScoresUnavailable() from error
        return sorted(
            (HighScore(row.position, row.user.id, row.user.first_name, row.score) for row in rows),
            key=lambda row: row.position,
        )
