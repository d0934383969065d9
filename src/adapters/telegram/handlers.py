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
from noitu.adapters.telegram.rooms import rooms_router
from noitu.adapters.telegram.texts import (
    GAME_DISABLED,
    NO_GAME_MESSAGE,
    NO_GAMES_IN_CHANNELS,
    SEND_FAILED,
)
from noitu.application.noitu.rooms.ports import ChatLeaderboard, RoomCards
from noitu.application.noitu.session import GameMessage
from noitu.application.ports import Clock

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


async def _send_game(message: Message, bot: Bot) -> Message | None:
    """Send the game where the command came from; the game message, or None (a
    channel gets a short text instead; a failure is logged and said)."""
    if message.chat.type == ChatType.CHANNEL:
        await _say(bot, message, NO_GAMES_IN_CHANNELS)
        return None
    thread = message.message_thread_id if message.is_topic_message else None
    try:
        return await bot.send_game(
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
        return None


def noitu_router(
    links: GameLinks,
    cards: RoomCards | None = None,
    leaderboard: ChatLeaderboard | None = None,
    clock: Clock | None = None,
) -> Router:
    """The /noitu handlers; with the room ports, also /noituphong and /noitutop, and
    Play on a recorded room card answers a room link (spec B10)."""
    router = Router(name="noitu")
    command = Command(GAME_SHORT_NAME)  # also /noitu@ThisBot; /noitu@OtherBot is not ours

    @router.message(command)
    @router.channel_post(command)
    async def send_game(message: Message, bot: Bot) -> None:
        await _send_game(message, bot)

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
        room = False
        if cards is not None and clock is not None and address.chat_id is not None:
            assert address.message_id is not None
            card = await cards.find(address.chat_id, address.message_id, clock.now_ms())
            if card is not None:
                room = True
                address = card.message
        url = links.url_for(query.from_user.id, query.from_user.first_name, address, room=room)
        await _answer(query, url=url)

    if cards is not None and leaderboard is not None and clock is not None:
        router.include_router(rooms_router(links, cards, leaderboard, clock, _send_game, _say))
    return router
