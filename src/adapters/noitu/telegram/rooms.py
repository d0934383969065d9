"""The group rooms' Telegram side (spec B10): `/noituphong` sends a room card and
records it, `/noitutop` answers the chat's leaderboard, and the announcement of a
game's end goes to the card's topic."""

from __future__ import annotations

import asyncio

import structlog
from aiogram import Bot, Router
from aiogram.enums import ChatType
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command
from aiogram.types import Message

from noitu.adapters.noitu.telegram.links import ROOM_COMMAND, TOP_COMMAND, GameLinks
from noitu.adapters.noitu.telegram.retry import describe
from noitu.adapters.noitu.telegram.texts import (
    EMPTY_LEADERBOARD,
    LEADERBOARD_IS_FOR_GROUPS,
    LEADERBOARD_ROW,
    LEADERBOARD_TITLE,
    ROOMS_ARE_FOR_GROUPS,
    UNKNOWN_NAME,
)
from noitu.application.noitu.rooms.ports import ChatLeaderboard, RoomCards
from noitu.application.noitu.rooms.record import RoomCard
from noitu.application.noitu.session import GameMessage
from noitu.application.ports import Clock

log = structlog.get_logger("noitu.telegram")

GROUP_CHATS = (ChatType.GROUP, ChatType.SUPERGROUP)
LEADERBOARD_SIZE = 10
ANNOUNCE_TIMEOUT_S = 10.0


def leaderboard_text(rows: list) -> str:
    if not rows:
        return EMPTY_LEADERBOARD
    lines = [LEADERBOARD_TITLE]
    for rank, row in enumerate(rows, start=1):
        name = row.name or UNKNOWN_NAME.format(user_id=row.user_id)
        lines.append(LEADERBOARD_ROW.format(rank=rank, name=name, wins=row.wins,
                                            best=row.best, games=row.games))
    return "\n".join(lines)


def rooms_router(
    links: GameLinks,
    cards: RoomCards,
    leaderboard: ChatLeaderboard,
    clock: Clock,
    send_game,  # the /noitu handler: a room card is the same game message
    say,
) -> Router:
    router = Router(name="noitu-rooms")
    room_command = Command(ROOM_COMMAND)  # /noituphong@OtherBot is not ours
    top_command = Command(TOP_COMMAND)

    @router.message(room_command)
    @router.channel_post(room_command)
    async def send_room_card(message: Message, bot: Bot) -> None:
        if message.chat.type == ChatType.PRIVATE:
            await say(bot, message, ROOMS_ARE_FOR_GROUPS)
            return
        sent = await send_game(message, bot)
        if sent is None or message.chat.type not in GROUP_CHATS or not links.enabled:
            return
        now = clock.now_ms()
        topic = message.message_thread_id if message.is_topic_message else None
        await cards.record(RoomCard(message.chat.id, sent.message_id, topic, now, now))

    @router.message(top_command)
    @router.channel_post(top_command)
    async def send_leaderboard(message: Message, bot: Bot) -> None:
        if message.chat.type not in GROUP_CHATS:
            await say(bot, message, LEADERBOARD_IS_FOR_GROUPS)
            return
        rows = await leaderboard.top(message.chat.id, LEADERBOARD_SIZE)
        await say(bot, message, leaderboard_text(rows))

    return router


class TelegramRoomAnnouncer:
    """Implements the RoomAnnouncer port: one plain text in the card's chat and topic,
    bounded in time; a failure is logged (the game's result stands)."""

    def __init__(self, bot: Bot, timeout_s: float = ANNOUNCE_TIMEOUT_S) -> None:
        self._bot = bot
        self._timeout_s = timeout_s

    async def announce(self, card: GameMessage, text: str) -> None:
        if card.chat_id is None:
            return
        try:
            async with asyncio.timeout(self._timeout_s):
                await self._bot.send_message(
                    chat_id=card.chat_id, text=text, message_thread_id=card.topic_id
                )
        except (TelegramAPIError, TimeoutError) as error:
            log.warning(
                "room_announcement_failed",
                chat_id=card.chat_id,
                error=type(error).__name__,
                detail=describe(error, self._bot.token) if isinstance(error, TelegramAPIError) else "",
            )
