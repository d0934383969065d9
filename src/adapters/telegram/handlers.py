"""The bot's two handlers: /noitu sends the game, Play answers with a game link.

Thin on purpose: the game itself lives behind the HTTP API; here we only send the game
message and sign links that point at it.
"""

from __future__ import annotations

import structlog
from aiogram import Bot, F, Router
from aiogram.enums import ChatType
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command
from aiogram.types import CallbackQuery, Message

from noitu.adapters.telegram.links import GAME_SHORT_NAME, GameLinks
from noitu.adapters.telegram.retry import describe
from noitu.adapters.telegram.texts import (
    GAME_DISABLED,
    NO_GAME_MESSAGE,
    NO_GAMES_IN_CHANNELS,
    SEND_FAILED,
)
from noitu.application.noitu.session import GameMessage

log = structlog.get_logger("noitu.telegram")

SHORT_NAME_HINT = "create the game in @BotFather with /newgame and the short name noitu"


def game_message_of(query: CallbackQuery) -> GameMessage | None:
    """The message Play was pressed on: an inline message, or a chat message (even one
    the bot can no longer read); None when the query names neither."""
    if query.inline_message_id:
        return GameMessage(inline_message_id=query.inline_message_id)
    message = query.message
    if message is None or not message.chat.id or message.message_id <= 0:
        return None
    topic = None
    if isinstance(message, Message) and message.is_topic_message:
        topic = message.message_thread_id
    return GameMessage(chat_id=message.chat.id, message_id=message.message_id, topic_id=topic)


async def _say(bot: Bot, message: Message, text: str) -> None:
    thread = message.message_thread_id if message.is_topic_message else None
    try:
        await bot.send_message(chat_id=message.chat.id, text=text, message_thread_id=thread)
    except TelegramAPIError as error:
        log.warning(
            "send_message_failed",
            chat_id=message.chat.id,
            error=type(error).__name__,
            detail=describe(error, bot.token),
        )


async def _answer(query: CallbackQuery, **answer: object) -> None:
    try:
        await query.answer(**answer)  # type: ignore[arg-type]
    except TelegramAPIError as error:  # e.g. "query is too old": nothing left to do
        token = query.bot.token if query.bot else ""
        log.warning(
            "answer_callback_failed", error=type(error).__name__, detail=describe(error, token)
        )


def noitu_router(links: GameLinks) -> Router:
    router = Router(name="noitu")
    command = Command(GAME_SHORT_NAME)  # also /noitu@ThisBot; /noitu@OtherBot is not ours

    @router.message(command)
    @router.channel_post(command)
    async def send_game(message: Message, bot: Bot) -> None:
        if message.chat.type == ChatType.CHANNEL:
            await _say(bot, message, NO_GAMES_IN_CHANNELS)
            return
        thread = message.message_thread_id if message.is_topic_message else None
        try:
            await bot.send_game(
                chat_id=message.chat.id, game_short_name=GAME_SHORT_NAME, message_thread_id=thread
            )
        except TelegramAPIError as error:
            detail = describe(error, bot.token)
            hint = {"hint": SHORT_NAME_HINT} if "GAME_SHORTNAME" in detail else {}
            log.warning(
                "send_game_failed",
                chat_id=message.chat.id,
                error=type(error).__name__,
                detail=detail,
                **hint,
            )
            await _say(bot, message, SEND_FAILED)

    @router.callback_query(F.game_short_name == GAME_SHORT_NAME)
    async def play(query: CallbackQuery) -> None:
        if not links.enabled:
            await _answer(query, text=GAME_DISABLED, show_alert=True)
            return
        address = game_message_of(query)
        if address is None:
            log.warning("play_without_game_message", user_id=query.from_user.id)
            await _answer(query, text=NO_GAME_MESSAGE, show_alert=True)
            return
        url = links.url_for(query.from_user.id, query.from_user.first_name, address)
        await _answer(query, url=url)

    return router
