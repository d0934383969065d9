"""Nối từ: the dictionary and its bots, the sessions' and group rooms' stores
(NOITU_STORE), the score reporters, and the game's use cases (spec B1-B13).
"""

from __future__ import annotations

from dependency_injector import containers, providers

from noitu.adapters.noitu.dictionary_file import bot_index_of
from noitu.adapters.noitu.local_scores import LocalScoreTable
from noitu.adapters.noitu.logging_announcer import LoggingRoomAnnouncer
from noitu.adapters.noitu.telegram import factories as telegram
from noitu.adapters.time_limit import AsyncioTimeLimit
from noitu.application.noitu.get_daily import GetDaily
from noitu.application.noitu.get_record import GetRecord
from noitu.application.noitu.get_state import GetState
from noitu.application.noitu.give_up import GiveUp
from noitu.application.noitu.play_move import PlayMove
from noitu.application.noitu.rooms.add_room_bot import AddRoomBot
from noitu.application.noitu.rooms.follow_room import FollowRoom
from noitu.application.noitu.rooms.give_up_in_room import GiveUpInRoom
from noitu.application.noitu.rooms.join_room import JoinRoom as JoinGroupRoom
from noitu.application.noitu.rooms.leave_room import LeaveRoom as LeaveGroupRoom
from noitu.application.noitu.rooms.pages import LivePages
from noitu.application.noitu.rooms.play_room_move import PlayRoomMove
from noitu.application.noitu.rooms.renew_room_pages import RenewRoomPages
from noitu.application.noitu.rooms.report_room_game import ReportRoomGame
from noitu.application.noitu.rooms.settle_room_turns import CloseIdleRooms, SettleRoomTurns
from noitu.application.noitu.rooms.start_room_game import StartRoomGame
from noitu.application.noitu.rooms.unit_of_work import Rooms
from noitu.application.noitu.rooms.view import RoomViews
from noitu.application.noitu.settle_expired import SettleExpired
from noitu.application.noitu.start_game import StartGame
from noitu.application.noitu.unit_of_work import Sessions
from noitu.application.noitu.view import SessionViews
from noitu.application.noitu.words.change_words import ChangeWords
from noitu.application.noitu.words.file_report import FileReport
from noitu.application.noitu.words.follow_additions import FollowAdditions
from noitu.application.noitu.words.look_up_word import LookUpWord
from noitu.application.noitu.words.pending_words import PendingWords
from noitu.application.noitu.words.recent_additions import RecentAdditions
from noitu.application.noitu.words.reject_words import RejectWords
from noitu.application.noitu.words.report_refused_word import ReportRefusedWord
from noitu.application.noitu.words.report_room_word import RememberRoomRefusals, ReportRoomWord
from noitu.domain.noitu.additions import Overlay
from noitu.domain.noitu.bots import make_opponents
from noitu.domain.noitu.room_game import BotSeat
from noitu.entrypoints.containers.support import (
    make_group_rooms,
)


class LogReports(containers.DeclarativeContainer):
    """No bot: scores go to the log and the server's own tables of local play (B12)."""

    local_scores = providers.Dependency()
    score_reporter = local_scores
    high_scores = local_scores
    group_announcer = providers.Singleton(LoggingRoomAnnouncer)


class TelegramReports(containers.DeclarativeContainer):
    """With a bot: scores go to the chat's high-score table, rooms' news to the chat."""

    telegram_bot = providers.Dependency()
    score_reporter = providers.Singleton(telegram.make_score_reporter, telegram_bot)
    high_scores = providers.Singleton(telegram.make_high_scores, telegram_bot)
    group_announcer = providers.Singleton(telegram.make_room_announcer, telegram_bot)

class Noitu(containers.DeclarativeContainer):
    core = providers.DependenciesContainer()
    store = providers.DependenciesContainer()
    settings = core.settings
    clock = core.clock
    telegram_bot = core.telegram_bot
    background = core.background
    token_signer = core.token_signer
    rng = core.rng
    id_source = core.id_source
    daily_puzzle = core.daily_puzzle
    lexicon = core.lexicon
    turn_clock = core.turn_clock
    limits = core.limits
    group_limits = core.group_limits
    # NOITU_STORE's part (`containers/store.py`): nối từ's stores
    session_repository = store.session_repository
    daily_games = store.daily_games
    start_limiter = store.start_limiter
    group_cards = store.group_cards
    group_leaderboard = store.group_leaderboard
    additions_store = store.additions_store
    reports_store = store.reports_store
    word_refusals = store.word_refusals
    group_store = store.group_store
    group_credentials = store.group_credentials
    group_feed_channel = store.group_feed_channel

    # --- nối từ's domain ---------------------------------------------------------------
    bot_index = providers.Singleton(bot_index_of, lexicon)
    opponents = providers.Singleton(make_opponents, bot_index)


    # Each player's daily game and streak (B13).

    # The group rooms' cards and leaderboard: the bot records and reads them too (B10).

    # With a bot token, scores go to the chat's high-score table; else to the log and
    # the server's own tables of local play, which the record block then reads (B12).
    local_scores = providers.Singleton(LocalScoreTable)
    # Where scores go (Telegram with a bot, else the log) picks the whole part; each
    # name below reads the picked part's provider.
    score_reports = providers.Selector(
        settings.provided.score_reports,
        log=providers.Container(LogReports, local_scores=local_scores),
        telegram=providers.Container(TelegramReports, telegram_bot=telegram_bot),
    )
    score_reporter = score_reports.provided.score_reporter.call()
    high_scores = score_reports.provided.high_scores.call()
    time_limit = providers.Singleton(AsyncioTimeLimit)

    # --- nối từ's use cases -----------------------------------------------------------
    sessions = providers.Singleton(
        Sessions, session_repository, score_reporter, background, clock, daily=daily_games
    )
    views = providers.Singleton(SessionViews)
    start_game = providers.Singleton(
        StartGame,
        lexicon=lexicon,
        turn_clock=turn_clock,
        limits=limits,
        sessions=sessions,
        views=views,
        tokens=token_signer,
        start_limiter=start_limiter,
        clock=clock,
        rng=rng,
        id_source=id_source,
        puzzle=daily_puzzle,
        daily_games=daily_games,
    )
    play_move = providers.Singleton(
        PlayMove, sessions=sessions, views=views, opponents=opponents, limits=limits, rng=rng,
        puzzle=daily_puzzle,
    )
    get_state = providers.Singleton(GetState, sessions, views)
    give_up = providers.Singleton(GiveUp, sessions, views)
    get_record = providers.Singleton(GetRecord, sessions, high_scores, time_limit)
    get_daily = providers.Singleton(GetDaily, sessions, daily_games)
    settle_expired = providers.Singleton(SettleExpired, sessions, limits)

    # --- the words the players bring (spec B11) ---------------------------------------
    # The operators' additions: a SQLite file in NOITU_DATA_DIR, or Redis with
    # NOITU_STORE=redis (shared by every instance); applied over the Lexicon in place.
    word_overlay = providers.Singleton(Overlay, lexicon)
    follow_additions = providers.Singleton(FollowAdditions, additions_store, word_overlay, bot_index)
    change_words = providers.Singleton(
        ChangeWords, additions_store, reports_store, follow_additions, clock
    )
    reject_words = providers.Singleton(RejectWords, reports_store)
    pending_words = providers.Singleton(PendingWords, reports_store)
    # With a bot and NOITU_ADMIN_CHAT, each newly reported word goes to that chat.
    review_chat = providers.Selector(
        providers.Callable(
            lambda s: "telegram" if s.telegram_enabled and s.admin_chat is not None else "none",
            settings,
        ),
        telegram=providers.Singleton(
            telegram.make_review_chat, telegram_bot, settings.provided.admin_chat
        ),
        none=providers.Object(None),
    )
    look_up_word = providers.Singleton(LookUpWord, word_overlay)
    recent_additions = providers.Singleton(RecentAdditions, word_overlay)
    file_report = providers.Singleton(
        FileReport, reports_store, word_overlay, review_chat, background, clock
    )
    report_refused_word = providers.Singleton(ReportRefusedWord, sessions, file_report)


    # --- nối từ's group rooms (spec B10) -----------------------------------------------
    group_bots = providers.Singleton(BotSeat, opponents, rng)
    group_announcer = score_reports.provided.group_announcer.call()
    group_unit_of_work = providers.Singleton(
        Rooms, group_store, group_credentials, group_feed_channel, background, clock,
        group_limits, turn_clock,
    )
    group_report = providers.Singleton(
        ReportRoomGame, group_unit_of_work, score_reporter, group_announcer, group_leaderboard
    )
    # The unit of work with the after-game reporting hooked on (they need each other).
    group_rooms = providers.Singleton(make_group_rooms, group_unit_of_work, group_report)
    group_views = providers.Singleton(RoomViews, group_limits, turn_clock)
    group_join = providers.Singleton(
        JoinGroupRoom, group_rooms, group_views, token_signer, start_limiter, limits, id_source
    )
    group_start = providers.Singleton(
        StartRoomGame, group_rooms, group_views, lexicon, group_bots, start_limiter, limits
    )
    group_add_bot = providers.Singleton(AddRoomBot, group_rooms, group_views)
    group_move = providers.Singleton(
        RememberRoomRefusals,
        providers.Singleton(PlayRoomMove, group_rooms, group_views, group_bots),
        word_refusals,
    )
    report_room_word = providers.Singleton(ReportRoomWord, group_rooms, word_refusals, file_report)
    group_give_up = providers.Singleton(GiveUpInRoom, group_rooms, group_views, group_bots)
    group_leave = providers.Singleton(LeaveGroupRoom, group_rooms, group_views, group_bots)
    group_pages = providers.Singleton(LivePages)  # the feeds this process serves
    group_feed = providers.Singleton(
        FollowRoom, group_rooms, group_views, group_feed_channel, group_pages, id_source
    )
    group_settle = providers.Singleton(SettleRoomTurns, group_rooms, group_bots)
    group_close_idle = providers.Singleton(CloseIdleRooms, group_rooms, group_bots)
    group_renew_pages = providers.Singleton(RenewRoomPages, group_rooms, group_pages)
