"""The words the players bring, in Telegram (spec B11): `/baotu <từ>` reports a word,
`/tu <từ>` says whether it is in the game, and the operators' chat (NOITU_ADMIN_CHAT)
reviews each newly reported word with "Thêm" / "Bỏ qua" buttons that only its
administrators can press. Every text is plain (no parse mode): words print as typed."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

import structlog
from aiogram import Bot, F, Router
from aiogram.enums import ChatMemberStatus
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message

from noitu.adapters.noitu.telegram.links import LOOKUP_COMMAND, REPORT_COMMAND
from noitu.adapters.noitu.telegram.retry import describe
from noitu.adapters.noitu.telegram.texts import (
    ADDED_ON,
    LOOKUP_USAGE,
    REPORT_USAGE,
    REVIEW_ADD,
    REVIEW_ADDED_BY,
    REVIEW_ADMINS_ONLY,
    REVIEW_COUNT,
    REVIEW_DONE,
    REVIEW_NEAREST,
    REVIEW_NO_NEAREST,
    REVIEW_SKIP,
    REVIEW_SKIPPED_BY,
    REVIEW_TITLE,
    VARIANT_IN_GAME,
    WORD_IN_GAME,
    WORD_NOT_IN_GAME,
)
from noitu.adapters.noitu.telegram.words_bot import WordsBot
from noitu.application.errors import GameError
from noitu.application.noitu.words.change_words import WordsCommand
from noitu.domain.noitu.additions import Action
from noitu.domain.noitu.reports import VIETNAM_UTC_OFFSET_MS, PendingWord

log = structlog.get_logger("noitu.telegram")

ADD_DATA = "words:add"
SKIP_DATA = "words:skip"
ADMINS = (ChatMemberStatus.CREATOR, ChatMemberStatus.ADMINISTRATOR)
PLAYERS_ZONE = timezone(timedelta(milliseconds=VIETNAM_UTC_OFFSET_MS))
TITLE_WORD = re.compile("«(.+?)»")


def review_text(pending: PendingWord, nearest: list[str]) -> str:
    lines = [REVIEW_TITLE.format(word=pending.word), REVIEW_COUNT.format(count=pending.reporters)]
    lines.append(REVIEW_NEAREST.format(words=", ".join(nearest)) if nearest else REVIEW_NO_NEAREST)
    return "\n".join(lines)


def review_buttons() -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(inline_keyboard=[[
        InlineKeyboardButton(text=REVIEW_ADD, callback_data=ADD_DATA),
        InlineKeyboardButton(text=REVIEW_SKIP, callback_data=SKIP_DATA),
    ]])


def players_date(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).astimezone(PLAYERS_ZONE).strftime("%d/%m/%Y")


class TelegramReviewChat:
    """The ReviewChat port on the Bot API: a failure is logged and the word stays pending
    (the CLI lists it)."""

    def __init__(self, bot: Bot, chat_id: int) -> None:
        self._bot = bot
        self._chat_id = chat_id

    async def post(self, pending: PendingWord, nearest: list[str]) -> int | None:
        try:
            message = await self._bot.send_message(
                chat_id=self._chat_id, text=review_text(pending, nearest), reply_markup=review_buttons()
            )
        except TelegramAPIError as error:
            log.warning("review_post_failed", error=type(error).__name__,
                        detail=describe(error, self._bot.token))
            return None
        return message.message_id

    async def update(self, pending: PendingWord, nearest: list[str]) -> bool:
        if pending.message_id is None:
            return False
        try:
            await self._bot.edit_message_text(
                chat_id=self._chat_id, message_id=pending.message_id,
                text=review_text(pending, nearest), reply_markup=review_buttons(),
            )
        except TelegramBadRequest as error:
            return "not modified" in str(error)
        except TelegramAPIError as error:
            log.warning("review_edit_failed", error=type(error).__name__,
                        detail=describe(error, self._bot.token))
            return False
        return True


def lookup_text(found) -> str:
    if found.canonical is None:
        return WORD_NOT_IN_GAME.format(word=found.asked)
    if found.canonical == found.asked:
        text = WORD_IN_GAME.format(word=found.canonical)
    else:
        text = VARIANT_IN_GAME.format(asked=found.asked, word=found.canonical)
    if found.added_ms is not None:
        text += ADDED_ON.format(date=players_date(found.added_ms))
    return text


def words_router(words: WordsBot, say) -> Router:
    router = Router(name="noitu-words")

    @router.message(Command(REPORT_COMMAND))
    async def report(message: Message, command: CommandObject, bot: Bot) -> None:
        if not command.args or message.from_user is None:
            await say(bot, message, REPORT_USAGE)
            return
        try:
            answer = await words.file_report(command.args, message.from_user.id, message.chat.id)
        except GameError as error:
            await say(bot, message, error.message)
            return
        await say(bot, message, answer.message)

    @router.message(Command(LOOKUP_COMMAND))
    async def look_up(message: Message, command: CommandObject, bot: Bot) -> None:
        if not command.args:
            await say(bot, message, LOOKUP_USAGE)
            return
        try:
            found = words.look_up(command.args)
        except GameError as error:
            await say(bot, message, error.message)
            return
        await say(bot, message, lookup_text(found))

    @router.callback_query(F.data.in_({ADD_DATA, SKIP_DATA}))
    async def decide(query: CallbackQuery, bot: Bot) -> None:
        message = query.message
        admin_chat = words.admin_chat
        if admin_chat is None or not isinstance(message, Message) or message.chat.id != admin_chat:
            await query.answer(REVIEW_ADMINS_ONLY, show_alert=True)
            return
        try:
            member = await bot.get_chat_member(admin_chat, query.from_user.id)
        except TelegramAPIError as error:
            log.warning("review_member_check_failed", error=type(error).__name__,
                        detail=describe(error, bot.token))
            member = None
        if member is None or member.status not in ADMINS:
            await query.answer(REVIEW_ADMINS_ONLY, show_alert=True)
            return
        found = TITLE_WORD.search(message.text or "")
        if found is None:
            await query.answer()
            return
        word = found.group(1)
        name = query.from_user.full_name
        if query.data == ADD_DATA:
            await words.change_words(WordsCommand((word,), Action.ADD))
            done = REVIEW_ADDED_BY.format(name=name)
        else:
            await words.reject_words((word,))
            done = REVIEW_SKIPPED_BY.format(name=name)
        try:
            await message.edit_text(f"{message.text}\n\n{done}", reply_markup=None)
        except TelegramAPIError as error:
            log.warning("review_edit_failed", error=type(error).__name__,
                        detail=describe(error, bot.token))
        await query.answer(REVIEW_DONE)

    return router
