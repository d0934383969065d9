"""Builders for the composition root that import aiogram only when called.

Importing aiogram costs seconds; local play and the tests that never touch Telegram
should not pay for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aiogram import Bot, Dispatcher
    from litestar.handlers import HTTPRouteHandler

    from noitu.adapters.noitu.telegram.high_scores import TelegramHighScores
    from noitu.adapters.noitu.telegram.links import GameLinks
    from noitu.adapters.noitu.telegram.reporter import TelegramScoreReporter
    from noitu.adapters.noitu.telegram.rooms import TelegramRoomAnnouncer
    from noitu.adapters.noitu.telegram.runner import TelegramRunner
    from noitu.adapters.noitu.telegram.webhook import SeenUpdates
    from noitu.adapters.noitu.telegram.words import TelegramReviewChat
    from noitu.adapters.noitu.telegram.words_bot import WordsBot
    from noitu.application.noitu.rooms.ports import ChatLeaderboard, RoomCards
    from noitu.application.noitu.words.change_words import ChangeWords
    from noitu.application.noitu.words.file_report import FileReport
    from noitu.application.noitu.words.look_up_word import LookUpWord
    from noitu.application.noitu.words.reject_words import RejectWords
    from noitu.application.ports import Clock


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
    from noitu.adapters.noitu.telegram.reporter import TelegramScoreReporter

    return TelegramScoreReporter(bot)


def make_dispatcher(
    links: GameLinks,
    cards: RoomCards | None = None,
    leaderboard: ChatLeaderboard | None = None,
    clock: Clock | None = None,
    words: WordsBot | None = None,
    daily_game: str = "",
) -> Dispatcher:
    """The Dispatcher with the /noitu handlers (and the rooms' with their ports; and
    /baotu, /tu and the review buttons with the words' use cases)."""
    from aiogram import Dispatcher

    from noitu.adapters.noitu.telegram.handlers import _say, noitu_router

    dispatcher = Dispatcher()
    dispatcher.include_router(noitu_router(links, cards, leaderboard, clock, daily_game))
    if words is not None:
        from noitu.adapters.noitu.telegram.words import words_router

        dispatcher.include_router(words_router(words, _say))
    return dispatcher


def make_words_bot(
    file_report: FileReport,
    look_up: LookUpWord,
    change_words: ChangeWords,
    reject_words: RejectWords,
    admin_chat: int | None,
) -> WordsBot:
    from noitu.adapters.noitu.telegram.words_bot import WordsBot

    return WordsBot(file_report, look_up, change_words, reject_words, admin_chat)


def make_review_chat(bot: Bot, chat_id: int) -> TelegramReviewChat:
    from noitu.adapters.noitu.telegram.words import TelegramReviewChat

    return TelegramReviewChat(bot, chat_id)


def make_room_announcer(bot: Bot) -> TelegramRoomAnnouncer:
    from noitu.adapters.noitu.telegram.rooms import TelegramRoomAnnouncer

    return TelegramRoomAnnouncer(bot)


def make_runner(
    bot: Bot, dispatcher: Dispatcher, mode: str, webhook_url: str, webhook_secret: str
) -> TelegramRunner:
    from noitu.adapters.noitu.telegram.runner import TelegramRunner

    return TelegramRunner(
        bot, dispatcher, mode, webhook_url=webhook_url, webhook_secret=webhook_secret
    )


def make_webhook_route(
    bot: Bot, dispatcher: Dispatcher, secret: str, seen: SeenUpdates
) -> HTTPRouteHandler:
    from noitu.adapters.noitu.telegram.webhook import webhook_route

    return webhook_route(bot, dispatcher, secret, seen)


def make_process_seen_updates() -> SeenUpdates:
    from noitu.adapters.noitu.telegram.webhook import RecentUpdates

    return RecentUpdates()


def webhook_secret_of(bot_token: str) -> str:
    from noitu.adapters.noitu.telegram.webhook import webhook_secret

    return webhook_secret(bot_token)


def make_high_scores(bot: Bot) -> TelegramHighScores:
    from noitu.adapters.noitu.telegram.high_scores import TelegramHighScores
    from noitu.application.noitu.get_record import RECORD_WAIT_S

    return TelegramHighScores(bot, RECORD_WAIT_S)
