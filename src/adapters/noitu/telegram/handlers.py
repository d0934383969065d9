"""The bot's handlers: /noitu sends the game, Play answers with a game link; /noitungay
sends the daily game (the game NOITU_DAILY_GAME names, spec B13), whose Play answers a
daily game's link.

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

from noitu.adapters.noitu.telegram.links import DAILY_COMMAND, GAME_SHORT_NAME, GameLinks
from noitu.adapters.noitu.telegram.retry import describe
from noitu.adapters.noitu.telegram.rooms import rooms_router
from noitu.adapters.noitu.telegram.texts import (
    DAILY_OFF,
    GAME_DISABLED,
    NO_GAME_MESSAGE,
    NO_GAMES_IN_CHANNELS,
    SEND_FAILED,
)
from noitu.application.noitu.rooms.ports import ChatLeaderboard, RoomCards
from noitu.application.noitu.session import GameMessage
from noitu.application.ports import Clock

log = structlog.get_logger("noitu.telegram")

SHORT_NAME_HINT = "create the game in @BotFather with /newgame and the short name {name}"


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


async def _send_game(
    message: Message, bot: Bot, short_name: str = GAME_SHORT_NAME, unknown: str = SEND_FAILED
) -> Message | None:
    """Send the game `short_name` where the command came from; the game message, or
    None (a channel gets a short text instead; a failure is logged and said: `unknown`
    when Telegram does not know the game's short name)."""
    if message.chat.type == ChatType.CHANNEL:
        await _say(bot, message, NO_GAMES_IN_CHANNELS)
        return None
    thread = message.message_thread_id if message.is_topic_message else None
    try:
        return await bot.send_game(
            chat_id=message.chat.id, game_short_name=short_name, message_thread_id=thread
        )
    except TelegramAPIError as error:
        detail = describe(error, bot.token)
        bad_name = "GAME_SHORTNAME" in detail
        hint = {"hint": SHORT_NAME_HINT.format(name=short_name)} if bad_name else {}
        log.warning(
            "send_game_failed",
            chat_id=message.chat.id,
            game=short_name,
            error=type(error).__name__,
            detail=detail,
            **hint,
        )
        await _say(bot, message, unknown if bad_name else SEND_FAILED)
        return None


def noitu_router(
    links: GameLinks,
    cards: RoomCards | None = None,
    leaderboard: ChatLeaderboard | None = None,
    clock: Clock | None = None,
    daily_game: str = "",
) -> Router:
    """The /noitu handlers; with the room ports, also /noituphong and /noitutop, and
    Play on a recorded room card answers a room link (spec B10). /noitungay sends the
    game `daily_game` names (off when ""), whose Play answers a daily link (B13)."""
    router = Router(name="noitu")
    command = Command(GAME_SHORT_NAME)  # also /noitu@ThisBot; /noitu@OtherBot is not ours

    @router.message(command)
    @router.channel_post(command)
    async def send_game(message: Message, bot: Bot) -> None:
        await _send_game(message, bot)

    daily_command = Command(DAILY_COMMAND)

    @router.message(daily_command)
    @router.channel_post(daily_command)
    async def send_daily_game(message: Message, bot: Bot) -> None:
        if not daily_game:
            await _say(bot, message, DAILY_OFF)
            return
        await _send_game(message, bot, daily_game, unknown=DAILY_OFF)

    async def _playable(query: CallbackQuery) -> GameMessage | None:
        """The game message a Play press came from, or None once the player was told
        why it cannot open (links off, or no game message)."""
        if not links.enabled:
            await _answer(query, text=GAME_DISABLED, show_alert=True)
            return None
        address = game_message_of(query)
        if address is None:
            log.warning("play_without_game_message", user_id=query.from_user.id)
            await _answer(query, text=NO_GAME_MESSAGE, show_alert=True)
        return address

    if daily_game:

        @router.callback_query(F.game_short_name == daily_game)
        async def play_daily(query: CallbackQuery) -> None:
            address = await _playable(query)
            if address is not None:
                url = links.url_for(
                    query.from_user.id, query.from_user.first_name, address, daily=True
                )
                await _answer(query, url=url)

    @router.callback_query(F.game_short_name == GAME_SHORT_NAME)
    async def play(query: CallbackQuery) -> None:
        address = await _playable(query)
        if address is None:
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
