"""The composition root: the one place that names concrete adapters.

Settings pick adapters through `Selector`s (NOITU_STORE picks the store; a bot token
makes Telegram the score reporter). Tests build the same container and override
providers with fakes (a clock they can advance, a recording score reporter, a seeded
random source). Adapters that import heavy libraries (aiogram, redis-py) are built by
factories that import them on first use.
"""

from __future__ import annotations

import os
import random
import secrets
from typing import TYPE_CHECKING

from dependency_injector import containers, providers

from noitu.adapters.arena.address_limiter import InMemoryAddressLimiter
from noitu.adapters.arena.bubblewrap import BubblewrapLauncher, BubblewrapProbe
from noitu.adapters.arena.build import DirectBuilder, SandboxBuilder
from noitu.adapters.arena.builtin import BuiltinBots
from noitu.adapters.arena.cgroups import CgroupError, CgroupTree, find_cgroups
from noitu.adapters.arena.direct import DirectLauncher
from noitu.adapters.arena.files import DataDirFiles
from noitu.adapters.arena.rooms import InMemoryRoomFeed, InMemoryRoomRegistry, LoopTimer
from noitu.adapters.arena.sql.engine import create_engine
from noitu.adapters.arena.sql.repository import SqlArenaRepository
from noitu.adapters.background import AsyncioBackground
from noitu.adapters.dictionary_file import bot_index_of, load_lexicon
from noitu.adapters.http.client_address import ClientAddresses
from noitu.adapters.http.paths import NOITU_PATH
from noitu.adapters.logging_announcer import LoggingRoomAnnouncer
from noitu.adapters.logging_reporter import LoggingScoreReporter
from noitu.adapters.memory_repository import InMemorySessionRepository
from noitu.adapters.memory_rooms import (
    InMemoryChatLeaderboard,
    InMemoryMemberCredentials,
    InMemoryRoomCards,
    InMemoryRoomStore,
)
from noitu.adapters.memory_rooms import InMemoryRoomFeed as InMemoryGroupFeed
from noitu.adapters.memory_start_limiter import InMemoryStartLimiter
from noitu.adapters.system_clock import SystemClock
from noitu.adapters.telegram import factories as telegram
from noitu.adapters.telegram.links import GameLinks
from noitu.adapters.token_signer import (
    MIN_SECRET_BYTES,
    HmacTokenSigner,
    key_from_bot_token,
)
from noitu.application.arena.admission import AddressLimits, Admission
from noitu.application.arena.bot_details import BotDetails
from noitu.application.arena.bot_source import BotSource
from noitu.application.arena.build_queue import BuildQueue
from noitu.application.arena.check_bot import CheckBot
from noitu.application.arena.delete_bot import DeleteBot
from noitu.application.arena.match_queue import MatchQueue, default_slots
from noitu.application.arena.my_bots import MyBots
from noitu.application.arena.ports import SandboxStatus
from noitu.application.arena.public_bots import PublicBots
from noitu.application.arena.publish_bot import PublishBot
from noitu.application.arena.rooms.close_rooms import CloseRooms
from noitu.application.arena.rooms.create_room import CreateRoom
from noitu.application.arena.rooms.failure_details import FailureDetails
from noitu.application.arena.rooms.get_replay import GetReplay
from noitu.application.arena.rooms.get_room import GetRoom
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.join_room import JoinRoom
from noitu.application.arena.rooms.leave_room import LeaveRoom
from noitu.application.arena.rooms.open_rooms import OpenRooms
from noitu.application.arena.rooms.owner_keys import OwnerKeys
from noitu.application.arena.rooms.place_pieces import PlacePieces
from noitu.application.arena.rooms.play_action import PlayAction
from noitu.application.arena.rooms.seating import Seating
from noitu.application.arena.rooms.start_match import StartMatch
from noitu.application.arena.rooms.surrender import Surrender
from noitu.application.arena.rooms.watch_room import WatchRoom
from noitu.application.arena.run_match import RunMatch
from noitu.application.arena.sweep_failed_builds import SweepFailedBuilds
from noitu.application.arena.upload_bot import UploadBot
from noitu.application.noitu.get_state import GetState
from noitu.application.noitu.give_up import GiveUp
from noitu.application.noitu.play_move import PlayMove
from noitu.application.noitu.rooms.add_room_bot import AddRoomBot
from noitu.application.noitu.rooms.follow_room import FollowRoom
from noitu.application.noitu.rooms.give_up_in_room import GiveUpInRoom
from noitu.application.noitu.rooms.join_room import JoinRoom as JoinGroupRoom
from noitu.application.noitu.rooms.leave_room import LeaveRoom as LeaveGroupRoom
from noitu.application.noitu.rooms.play_room_move import PlayRoomMove
from noitu.application.noitu.rooms.report_room_game import ReportRoomGame
from noitu.application.noitu.rooms.settle_room_turns import CloseIdleRooms, SettleRoomTurns
from noitu.application.noitu.rooms.start_room_game import StartRoomGame
from noitu.application.noitu.rooms.unit_of_work import Rooms
from noitu.application.noitu.rooms.view import RoomViews
from noitu.application.noitu.settle_expired import SettleExpired
from noitu.application.noitu.start_game import StartGame
from noitu.application.noitu.unit_of_work import Sessions
from noitu.application.noitu.view import SessionViews
from noitu.domain.noitu.bots import make_opponents
from noitu.domain.noitu.room import BotSeat, RoomLimits
from noitu.entrypoints.settings import Settings

if TYPE_CHECKING:
    from noitu.adapters.arena.redis_address_limiter import RedisAddressLimiter
    from noitu.adapters.arena.redis_feed import RedisRoomFeed
    from noitu.adapters.redis.client import RedisLink
    from noitu.adapters.redis.limiter import RedisStartRateLimiter
    from noitu.adapters.redis.repository import RedisSessionRepository
    from noitu.adapters.redis.update_memory import RedisRecentUpdates


def signing_key(settings: Settings) -> bytes:
    """NOITU_GAME_SECRET; else derived from the bot token; else (local play) random."""
    if len(settings.game_secret) >= MIN_SECRET_BYTES:
        return settings.game_secret
    if settings.bot_token:
        return key_from_bot_token(settings.bot_token)
    return secrets.token_bytes(MIN_SECRET_BYTES)


# NOITU_STORE=redis. Imported when first used: the memory store does not need redis-py.
def redis_link(url: str) -> RedisLink:
    from noitu.adapters.redis.client import RedisLink

    return RedisLink.from_url(url)


def redis_sessions(link: RedisLink, *args: object) -> RedisSessionRepository:
    from noitu.adapters.redis.repository import RedisSessionRepository

    return RedisSessionRepository(link, *args)  # type: ignore[arg-type]


def redis_start_limiter(link: RedisLink, *args: object) -> RedisStartRateLimiter:
    from noitu.adapters.redis.limiter import RedisStartRateLimiter

    return RedisStartRateLimiter(link, *args)  # type: ignore[arg-type]


def redis_seen_updates(link: RedisLink) -> RedisRecentUpdates:
    from noitu.adapters.redis.update_memory import RedisRecentUpdates

    return RedisRecentUpdates(link)


def redis_room_feed(link: RedisLink) -> RedisRoomFeed:
    from noitu.adapters.arena.redis_feed import RedisRoomFeed

    return RedisRoomFeed(link)


def redis_address_limiter(link: RedisLink, limits: AddressLimits) -> RedisAddressLimiter:
    from noitu.adapters.arena.redis_address_limiter import RedisAddressLimiter

    return RedisAddressLimiter(link, limits)


def build_slots() -> int:
    """Builds at once on this machine: one per core (spec B10)."""
    return os.cpu_count() or 1


def redis_group_store(link: RedisLink, *args: object) -> object:
    from noitu.adapters.redis.rooms import RedisRoomStore

    return RedisRoomStore(link, *args)  # type: ignore[arg-type]


def redis_group_adapter(name: str, link: RedisLink, *args: object) -> object:
    """One of the group rooms' Redis adapters (credentials, cards, leaderboard, feed)."""
    from noitu.adapters.redis import rooms

    return getattr(rooms, name)(link, *args)


def make_group_rooms(rooms: Rooms, report: ReportRoomGame) -> Rooms:
    rooms.on_game_end(report)
    return rooms


def match_slots() -> int:
    """Matches played at once on this machine (the match queue's promise of B2)."""
    return default_slots(os.cpu_count() or 1)


def arena_cgroups() -> CgroupTree | None:
    """Cgroups for bots run without bubblewrap (trusted code), when the host allows."""
    try:
        return find_cgroups()
    except CgroupError:
        return None


class Container(containers.DeclarativeContainer):
    settings = providers.Dependency(instance_of=Settings)

    # --- nối từ's domain ---------------------------------------------------------------
    lexicon = providers.Singleton(
        load_lexicon,
        providers.Callable(lambda s: s.dictionary or None, settings),
        settings.provided.cache_dir,
    )
    bot_index = providers.Singleton(bot_index_of, lexicon)
    opponents = providers.Singleton(make_opponents, bot_index)
    turn_clock = providers.Singleton(lambda s: s.turn_clock, settings)
    limits = providers.Singleton(lambda s: s.session_limits, settings)

    # --- shared adapters --------------------------------------------------------------
    clock = providers.Singleton(SystemClock)
    rng = providers.Singleton(random.Random)
    id_source = providers.Singleton(random.SystemRandom)
    background = providers.Singleton(AsyncioBackground)
    token_signer = providers.Singleton(HmacTokenSigner, providers.Singleton(signing_key, settings))

    # NOITU_STORE: memory (one process) or redis (shared by every instance).
    redis = providers.Singleton(redis_link, settings.provided.redis_url)
    session_repository = providers.Selector(
        settings.provided.store,
        memory=providers.Singleton(InMemorySessionRepository),
        redis=providers.Singleton(redis_sessions, redis, lexicon, turn_clock, limits, clock),
    )
    start_limiter = providers.Selector(
        settings.provided.store,
        memory=providers.Singleton(InMemoryStartLimiter, limits),
        redis=providers.Singleton(redis_start_limiter, redis, limits),
    )

    # The group rooms' cards and leaderboard: the bot records and reads them too (B10).
    group_limits = providers.Singleton(RoomLimits)
    group_cards = providers.Selector(
        settings.provided.store,
        memory=providers.Singleton(InMemoryRoomCards, group_limits.provided.card_keep_ms),
        redis=providers.Singleton(
            redis_group_adapter, "RedisRoomCards", redis, group_limits.provided.card_keep_ms
        ),
    )
    group_leaderboard = providers.Selector(
        settings.provided.store,
        memory=providers.Singleton(InMemoryChatLeaderboard),
        redis=providers.Singleton(redis_group_adapter, "RedisChatLeaderboard", redis),
    )

    # --- Telegram (aiogram is imported only when one of these is built) ----------------
    telegram_bot = providers.Singleton(
        telegram.make_bot, settings.provided.bot_token, settings.provided.telegram_api_base
    )
    game_links = providers.Singleton(
        GameLinks,
        base_url=settings.provided.game_base_url,
        issuer=providers.Callable(
            lambda s, signer: signer if s.game_enabled else None, settings, token_signer
        ),
        clock=clock,
        page_path=f"{NOITU_PATH}/",
    )
    telegram_dispatcher = providers.Singleton(
        telegram.make_dispatcher, game_links, group_cards, group_leaderboard, clock
    )
    webhook_secret = providers.Singleton(telegram.webhook_secret_of, settings.provided.bot_token)
    seen_updates = providers.Selector(
        settings.provided.store,
        memory=providers.Singleton(telegram.make_process_seen_updates),
        redis=providers.Singleton(redis_seen_updates, redis),
    )
    webhook_route = providers.Singleton(
        telegram.make_webhook_route, telegram_bot, telegram_dispatcher, webhook_secret, seen_updates
    )
    telegram_runner = providers.Singleton(
        telegram.make_runner,
        telegram_bot,
        telegram_dispatcher,
        settings.provided.effective_telegram_mode,
        settings.provided.webhook_url,
        webhook_secret,
    )
    # With a bot token, scores go to the chat's high-score table; else to the log.
    score_reporter = providers.Selector(
        settings.provided.score_reports,
        log=providers.Singleton(LoggingScoreReporter),
        telegram=providers.Singleton(telegram.make_score_reporter, telegram_bot),
    )

    # --- nối từ's use cases -----------------------------------------------------------
    sessions = providers.Singleton(Sessions, session_repository, score_reporter, background, clock)
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
    )
    play_move = providers.Singleton(
        PlayMove, sessions=sessions, views=views, opponents=opponents, limits=limits, rng=rng
    )
    get_state = providers.Singleton(GetState, sessions, views)
    give_up = providers.Singleton(GiveUp, sessions, views)
    settle_expired = providers.Singleton(SettleExpired, sessions, limits)

    # --- nối từ's group rooms (spec B10) -----------------------------------------------
    group_bots = providers.Singleton(BotSeat, opponents, rng)
    group_store = providers.Selector(
        settings.provided.store,
        memory=providers.Singleton(InMemoryRoomStore),
        redis=providers.Singleton(redis_group_store, redis, lexicon, turn_clock),
    )
    group_credentials = providers.Selector(
        settings.provided.store,
        memory=providers.Singleton(InMemoryMemberCredentials),
        redis=providers.Singleton(redis_group_adapter, "RedisMemberCredentials", redis),
    )
    group_feed_channel = providers.Selector(
        settings.provided.store,
        memory=providers.Singleton(InMemoryGroupFeed),
        redis=providers.Singleton(redis_group_adapter, "RedisRoomFeed", redis),
    )
    group_announcer = providers.Selector(
        settings.provided.score_reports,
        log=providers.Singleton(LoggingRoomAnnouncer),
        telegram=providers.Singleton(telegram.make_room_announcer, telegram_bot),
    )
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
    group_move = providers.Singleton(PlayRoomMove, group_rooms, group_views, group_bots)
    group_give_up = providers.Singleton(GiveUpInRoom, group_rooms, group_views, group_bots)
    group_leave = providers.Singleton(LeaveGroupRoom, group_rooms, group_views, group_bots)
    group_feed = providers.Singleton(FollowRoom, group_rooms, group_views, group_feed_channel)
    group_settle = providers.Singleton(SettleRoomTurns, group_rooms, group_bots)
    group_close_idle = providers.Singleton(CloseIdleRooms, group_rooms)

    # --- the bot arena ----------------------------------------------------------------
    # "sandbox" (bubblewrap + cgroups) or "direct" (trusted code only: the built-in bots
    # when no sandbox can run here, and the CLI's explicit --no-sandbox). The CLI and
    # the server set it after probing the sandbox.
    arena_runner = providers.Object("sandbox")
    arena_probe = providers.Singleton(BubblewrapProbe)
    arena_sandbox = arena_probe.provided.make_sandbox.call()
    arena_launcher = providers.Selector(
        arena_runner,
        sandbox=providers.Singleton(BubblewrapLauncher, arena_sandbox),
        direct=providers.Singleton(DirectLauncher, cgroups=providers.Singleton(arena_cgroups)),
    )
    arena_sandbox_builder = providers.Singleton(SandboxBuilder, arena_sandbox)
    arena_builder = providers.Selector(
        arena_runner,
        sandbox=arena_sandbox_builder,
        direct=providers.Singleton(DirectBuilder),
    )
    builtin_bots = providers.Singleton(BuiltinBots, arena_builder, settings.provided.cache_dir)
    run_match = providers.Singleton(RunMatch, arena_launcher)
    check_bot = providers.Singleton(CheckBot, arena_launcher)

    # What the server's start-up probe found (app.py sets it). Uploads are built only in
    # the sandbox, never directly: without one, the upload builder is None and uploads
    # are refused.
    arena_sandbox_status = providers.Object(SandboxStatus(False, "the sandbox was not probed"))
    upload_builder = providers.Selector(
        providers.Callable(
            lambda status: "sandbox" if status.available else "none", arena_sandbox_status
        ),
        sandbox=arena_sandbox_builder,
        none=providers.Object(None),
    )

    # --- the arena's storage (spec B4): metadata in SQL, files in the data directory ---
    arena_engine = providers.Singleton(create_engine, settings.provided.arena_database_url)
    arena_repository = providers.Singleton(SqlArenaRepository, arena_engine)
    arena_files = providers.Singleton(
        DataDirFiles, settings.provided.data_dir, settings.provided.arena_uploads_max_bytes
    )

    # --- admission control (B10): per client address, and builds at once ---------------
    client_addresses = providers.Singleton(ClientAddresses, settings.provided.trusted_proxies)
    address_limiter = providers.Selector(
        settings.provided.store,
        memory=providers.Singleton(InMemoryAddressLimiter, settings.provided.address_limits),
        redis=providers.Singleton(redis_address_limiter, redis, settings.provided.address_limits),
    )
    admission = providers.Singleton(Admission, address_limiter, clock)
    build_queue = providers.Singleton(BuildQueue, providers.Callable(build_slots), clock)

    # --- the arena's uploaded bots (B5) ---------------------------------------------
    # A Factory: the builder is picked per upload, after the start-up probe.
    upload_bot = providers.Factory(
        UploadBot,
        catalogue=arena_repository,
        files=arena_files,
        builder=upload_builder,
        clock=clock,
        rng=id_source,
        admission=admission,
        build_queue=build_queue,
    )
    my_bots = providers.Singleton(MyBots, arena_repository)
    public_bots = providers.Singleton(PublicBots, arena_repository)
    bot_details = providers.Singleton(BotDetails, arena_repository)
    bot_source = providers.Singleton(BotSource, arena_repository, arena_files)
    publish_bot = providers.Singleton(PublishBot, arena_repository)
    delete_bot = providers.Singleton(DeleteBot, arena_repository, arena_repository, arena_files)
    sweep_failed_builds = providers.Singleton(
        SweepFailedBuilds, arena_repository, arena_files, clock
    )

    # --- the arena's rooms (B4, B6) ----------------------------------------------------
    # Live rooms are this process's; their snapshots go through Redis with
    # NOITU_STORE=redis, so a viewer may watch from another instance.
    room_registry = providers.Singleton(InMemoryRoomRegistry)
    room_feed = providers.Selector(
        settings.provided.store,
        memory=providers.Singleton(InMemoryRoomFeed),
        redis=providers.Singleton(redis_room_feed, redis),
    )
    arena_timer = providers.Singleton(LoopTimer, clock)
    match_queue = providers.Singleton(MatchQueue, providers.Callable(match_slots))
    # The host listens to the queue once: one per process.
    room_host = providers.Singleton(
        RoomHost, room_registry, room_feed, match_queue, clock, background
    )
    room_run_match = providers.Singleton(RunMatch, arena_launcher, timer=arena_timer)
    seating = providers.Singleton(Seating, arena_repository, builtin_bots)
    start_match = providers.Singleton(
        StartMatch,
        room_host,
        arena_repository,
        arena_files,
        arena_repository,
        builtin_bots,
        room_run_match,
        arena_timer,
        id_source,
        runner=settings.provided.instance,
        builder=upload_builder,
        build_queue=build_queue,
    )
    owner_keys = providers.Singleton(OwnerKeys, id_source, admission)
    create_room = providers.Singleton(
        CreateRoom, room_host, seating, start_match, id_source, admission
    )
    join_room = providers.Singleton(JoinRoom, room_host, seating, start_match)
    leave_room = providers.Singleton(LeaveRoom, room_host)
    place_pieces = providers.Singleton(PlacePieces, room_host)
    play_action = providers.Singleton(PlayAction, room_host)
    surrender = providers.Singleton(Surrender, room_host)
    get_room = providers.Singleton(GetRoom, room_host)
    watch_room = providers.Singleton(WatchRoom, room_host)
    open_rooms = providers.Singleton(OpenRooms, room_host)
    failure_details = providers.Singleton(FailureDetails, room_host, arena_repository)
    get_replay = providers.Singleton(GetReplay, arena_repository, arena_files)
    close_rooms = providers.Singleton(CloseRooms, room_host)
