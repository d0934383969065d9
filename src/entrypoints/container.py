"""The composition root: the one place that names concrete adapters.

Settings pick adapters through `Selector`s (NOITU_STORE picks the store; a bot token
makes Telegram the score reporter; the arena's runner follows the settings' `arena_runner`
and what the sandbox probe found). What opens and closes is a `Resource` (the Redis
link, the arena's database, the sandbox, the room feeds, and the process's periodic
tasks): the server opens them all with `init_resources()` and closes them with
`shutdown_resources()`, in dependency order. A Resource yields None when the settings leave its part out, so opening them
all is right for any settings.

Nothing depends on a Resource but another Resource: an async Resource turns every
provider that depends on it into one that answers Futures. The adapters are plain
Singletons, and each Resource takes the adapter whose life it runs.

Tests build the same container and override providers with fakes (a clock they can
advance, a recording score reporter, a seeded random source). Adapters that import
heavy libraries (aiogram, redis-py) are built by factories that import them on first
use.
"""

from __future__ import annotations

import os
import random
import secrets
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import structlog
from dependency_injector import containers, providers

from noitu.adapters.arena.address_limiter import InMemoryAddressLimiter
from noitu.adapters.arena.bubblewrap import BubblewrapLauncher, BubblewrapProbe
from noitu.adapters.arena.build import DirectBuilder, SandboxBuilder
from noitu.adapters.arena.builtin import BuiltinBots
from noitu.adapters.arena.cgroups.mounts import find_cgroups
from noitu.adapters.arena.cgroups.tree import CgroupError, CgroupTree
from noitu.adapters.arena.direct import DirectLauncher
from noitu.adapters.arena.files import DataDirFiles
from noitu.adapters.arena.local_jobs import local_builds
from noitu.adapters.arena.rooms import InMemoryRoomFeed, InMemoryRoomRegistry, LoopTimer
from noitu.adapters.arena.sql.engine import create_engine, is_sqlite
from noitu.adapters.arena.sql.files import DatabaseFiles
from noitu.adapters.arena.sql.ladder import SqlLadder
from noitu.adapters.arena.sql.migrations import upgrade
from noitu.adapters.arena.sql.repository import SqlArenaRepository
from noitu.adapters.background import AsyncioBackground
from noitu.adapters.http.client_address import ClientAddresses
from noitu.adapters.http.paths import NOITU_PATH
from noitu.adapters.noitu.dictionary_file import bot_index_of, load_lexicon
from noitu.adapters.noitu.local_scores import LocalScoreTable
from noitu.adapters.noitu.logging_announcer import LoggingRoomAnnouncer
from noitu.adapters.noitu.memory_daily import InMemoryDailyGames
from noitu.adapters.noitu.memory_repository import InMemorySessionRepository
from noitu.adapters.noitu.memory_rooms import (
    InMemoryChatLeaderboard,
    InMemoryMemberCredentials,
    InMemoryRoomCards,
    InMemoryRoomStore,
)
from noitu.adapters.noitu.memory_rooms import InMemoryRoomFeed as InMemoryGroupFeed
from noitu.adapters.noitu.memory_start_limiter import InMemoryStartLimiter
from noitu.adapters.noitu.telegram import factories as telegram
from noitu.adapters.noitu.telegram.links import GameLinks
from noitu.adapters.noitu.token_signer import (
    MIN_SECRET_BYTES,
    HmacTokenSigner,
    key_from_bot_token,
)
from noitu.adapters.noitu.words.memory import InMemoryRefusals
from noitu.adapters.periodic import Periodic
from noitu.adapters.system_clock import SystemClock
from noitu.adapters.time_limit import AsyncioTimeLimit
from noitu.application.arena.admission import AddressLimits, Admission
from noitu.application.arena.bot_details import BotDetails
from noitu.application.arena.bot_figures import BotFiguresOf
from noitu.application.arena.bot_matches import BotMatches
from noitu.application.arena.bot_source import BotSource
from noitu.application.arena.build_queue import BuildQueue
from noitu.application.arena.check_bot import CheckBot
from noitu.application.arena.delete_bot import DeleteBot
from noitu.application.arena.jobs import BUILD_JOB, MATCH_JOB, JobKind
from noitu.application.arena.ladder.ladder_bot import LadderBotOf
from noitu.application.arena.ladder.ladder_matches import LadderMatches
from noitu.application.arena.ladder.list_ladder import ListLadder
from noitu.application.arena.ladder.play_ladder import PlayLadder
from noitu.application.arena.ladder.rank_bot import RankBot
from noitu.application.arena.ladder.rebuild_ladder import RebuildLadder
from noitu.application.arena.ladder.record_ladder_result import RecordLadderResult
from noitu.application.arena.ladder.resume_bot import ResumeBot
from noitu.application.arena.ladder.schedule_pairing import SchedulePairing
from noitu.application.arena.ladder.show_ladder import ShowLadder
from noitu.application.arena.ladder.unrank_bot import UnrankBot
from noitu.application.arena.match_queue import MatchQueue, default_slots
from noitu.application.arena.my_bots import MyBots
from noitu.application.arena.patience import Patience
from noitu.application.arena.ports import SandboxStatus
from noitu.application.arena.public_bots import PublicBots
from noitu.application.arena.publish_bot import PublishBot
from noitu.application.arena.recover_at_start import ORPHAN_MIN_AGE_MS, RecoverAtStart
from noitu.application.arena.rooms.abandon_lost_matches import AbandonLostMatches
from noitu.application.arena.rooms.board_rooms import BoardRooms, OnTheBoard
from noitu.application.arena.rooms.close_rooms import CloseRooms
from noitu.application.arena.rooms.create_room import CreateRoom
from noitu.application.arena.rooms.failure_details import FailureDetails
from noitu.application.arena.rooms.forward_room_call import (
    ACT,
    GET,
    LEAVE,
    PLACE,
    SURRENDER,
    ForwardRoomCall,
)
from noitu.application.arena.rooms.get_replay import GetReplay
from noitu.application.arena.rooms.get_room import GetRoom, GetRoomCommand
from noitu.application.arena.rooms.hand_over_match import HandOverMatch
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.join_room import JoinRoom
from noitu.application.arena.rooms.ladder_slots import BoardSlots, QueueSlots
from noitu.application.arena.rooms.leave_room import LeaveRoom, LeaveRoomCommand
from noitu.application.arena.rooms.open_rooms import OpenRooms
from noitu.application.arena.rooms.owner_keys import OwnerKeys
from noitu.application.arena.rooms.place_pieces import PlacePieces, PlacePiecesCommand
from noitu.application.arena.rooms.play_action import PlayAction, PlayActionCommand
from noitu.application.arena.rooms.play_match import DeskUseCase, PlayMatch
from noitu.application.arena.rooms.ports import RoomFeed
from noitu.application.arena.rooms.seating import Seating
from noitu.application.arena.rooms.start_match import StartMatch
from noitu.application.arena.rooms.surrender import Surrender, SurrenderCommand
from noitu.application.arena.rooms.watch_room import WatchRoom
from noitu.application.arena.run_build import RunBuild
from noitu.application.arena.run_match import RunMatch
from noitu.application.arena.sweep_failed_builds import SweepFailedBuilds
from noitu.application.arena.upload_bot import UploadBot
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
from noitu.domain.noitu.daily import DailyPuzzle
from noitu.domain.noitu.room import BotSeat, RoomLimits
from noitu.entrypoints.periodic_tasks import periodic_of
from noitu.entrypoints.settings import Settings

if TYPE_CHECKING:
    from pathlib import Path

    from saq import Queue
    from sqlalchemy.ext.asyncio import AsyncEngine

    from noitu.adapters.arena.redis_address_limiter import RedisAddressLimiter
    from noitu.adapters.arena.redis_feed import RedisRoomFeed
    from noitu.adapters.arena.redis_replay_journal import RedisReplayJournal
    from noitu.adapters.arena.redis_room_board import RedisRoomBoard
    from noitu.adapters.arena.redis_room_desk import RedisRoomDesk
    from noitu.adapters.arena.saq_jobs import SaqJobRunner, SaqJobs
    from noitu.adapters.noitu.redis.daily import RedisDailyGames
    from noitu.adapters.noitu.redis.limiter import RedisStartRateLimiter
    from noitu.adapters.noitu.redis.repository import RedisSessionRepository
    from noitu.adapters.noitu.redis.rooms import (
        RedisChatLeaderboard,
        RedisMemberCredentials,
        RedisRoomCards,
        RedisRoomStore,
    )
    from noitu.adapters.noitu.redis.rooms import RedisRoomFeed as RedisGroupFeed
    from noitu.adapters.noitu.redis.update_memory import RedisRecentUpdates
    from noitu.adapters.noitu.words.redis import RedisAdditions, RedisRefusals, RedisReports
    from noitu.adapters.noitu.words.sqlite import SqliteAdditions, SqliteReports
    from noitu.adapters.redis.client import RedisLink


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
    from noitu.adapters.noitu.redis.repository import RedisSessionRepository

    return RedisSessionRepository(link, *args)  # type: ignore[arg-type]


def redis_daily_games(link: RedisLink, *args: object) -> RedisDailyGames:
    from noitu.adapters.noitu.redis.daily import RedisDailyGames

    return RedisDailyGames(link, *args)  # type: ignore[arg-type]


def redis_start_limiter(link: RedisLink, *args: object) -> RedisStartRateLimiter:
    from noitu.adapters.noitu.redis.limiter import RedisStartRateLimiter

    return RedisStartRateLimiter(link, *args)  # type: ignore[arg-type]


def redis_seen_updates(link: RedisLink) -> RedisRecentUpdates:
    from noitu.adapters.noitu.redis.update_memory import RedisRecentUpdates

    return RedisRecentUpdates(link)


def redis_room_feed(link: RedisLink) -> RedisRoomFeed:
    from noitu.adapters.arena.redis_feed import RedisRoomFeed

    return RedisRoomFeed(link)


def redis_room_board(link: RedisLink) -> RedisRoomBoard:
    from noitu.adapters.arena.redis_room_board import RedisRoomBoard

    return RedisRoomBoard(link)


def redis_room_desk(link: RedisLink) -> RedisRoomDesk:
    from noitu.adapters.arena.redis_room_desk import RedisRoomDesk

    return RedisRoomDesk(link)


def redis_replay_journal(link: RedisLink) -> RedisReplayJournal:
    from noitu.adapters.arena.redis_replay_journal import RedisReplayJournal

    return RedisReplayJournal(link)


def redis_address_limiter(link: RedisLink, limits: AddressLimits) -> RedisAddressLimiter:
    from noitu.adapters.arena.redis_address_limiter import RedisAddressLimiter

    return RedisAddressLimiter(link, limits)


def ladder_pass_failed(error: Exception) -> None:
    """The ladder's driver tells a failed pass (a store down) here and tries again at its
    next wake."""
    structlog.get_logger("noitu.arena").error(
        "ladder_pass_failed", error=type(error).__name__, exc_info=error
    )


def tell_waiting_write(
    what: str, *, tries: int, waited_ms: int, error: BaseException | None
) -> None:
    """What waits for Redis or the arena's database to come back, and when it went
    through (`Patience`)."""
    log = structlog.get_logger("noitu.arena")
    if error is None:
        log.info("arena_write_done", what=what, tries=tries, waited_ms=waited_ms)
    else:
        log.warning(
            "arena_write_waiting", what=what, tries=tries, waited_ms=waited_ms,
            error=type(error).__name__,
        )


def build_slots() -> int:
    """Builds at once on this machine: one per core (spec B10)."""
    return os.cpu_count() or 1


def worker_slots() -> int:
    """Jobs at once in `noitu arena worker` by default: one per core it may use."""
    return len(os.sched_getaffinity(0)) or 1


def queue_kind_of(settings: Settings) -> str:
    """"local" or "saq" (NOITU_ARENA_QUEUE); "local" when the arena is off (nothing
    to connect to)."""
    return settings.arena_queue if settings.arena_enabled else "local"


# NOITU_ARENA_QUEUE=saq. Imported when first used: the local queue does not need saq.
def saq_queues(url: str) -> dict[JobKind, Queue]:
    from noitu.adapters.arena.saq_jobs import saq_queues

    return saq_queues(url)


def saq_jobs(queues: dict[JobKind, Queue], take_within_s: float) -> SaqJobs:
    from noitu.adapters.arena.saq_jobs import SaqJobs

    return SaqJobs(queues, take_within_s)


def saq_runner(
    queues: dict[JobKind, Queue],
    name: str,
    build: RunBuild,
    play_match: PlayMatch,
    matches: int,
    builds: int,
) -> SaqJobRunner:
    """A worker's runner of the arena's jobs: matches (rooms' and the ladder's),
    `matches` at once (as
    many as its match queue's slots), and builds, `builds` at once, each kind from its
    own queue with its own slots (B14: waiting matches never delay a build)."""
    from noitu.adapters.arena.saq_jobs import SaqJobRunner

    # A stop lets a build finish; a match still running after that is abandoned (the
    # worker's matches may last hours with a person in them).
    runner = SaqJobRunner(
        queues, {JobKind.MATCH: matches, JobKind.BUILD: builds}, name,
        grace_s=BUILD_JOB.timeout_s,
    )
    runner.handle(BUILD_JOB, build)
    runner.handle(MATCH_JOB, play_match)
    return runner


def redis_group_store(link: RedisLink, *args: object) -> RedisRoomStore:
    from noitu.adapters.noitu.redis.rooms import RedisRoomStore

    return RedisRoomStore(link, *args)  # type: ignore[arg-type]


def redis_group_cards(link: RedisLink, keep_ms: int) -> RedisRoomCards:
    from noitu.adapters.noitu.redis.rooms import RedisRoomCards

    return RedisRoomCards(link, keep_ms)


def sqlite_additions(data_dir: Path) -> SqliteAdditions:
    from noitu.adapters.noitu.words.sqlite import SqliteAdditions

    return SqliteAdditions.in_data_dir(data_dir)


def redis_additions(link: RedisLink) -> RedisAdditions:
    from noitu.adapters.noitu.words.redis import RedisAdditions

    return RedisAdditions(link)


def sqlite_reports(data_dir: Path) -> SqliteReports:
    from noitu.adapters.noitu.words.sqlite import SqliteReports

    return SqliteReports.in_data_dir(data_dir)


def redis_reports(link: RedisLink) -> RedisReports:
    from noitu.adapters.noitu.words.redis import RedisReports

    return RedisReports(link)


def redis_refusals(link: RedisLink) -> RedisRefusals:
    from noitu.adapters.noitu.words.redis import RedisRefusals

    return RedisRefusals(link)


def redis_group_leaderboard(link: RedisLink) -> RedisChatLeaderboard:
    from noitu.adapters.noitu.redis.rooms import RedisChatLeaderboard

    return RedisChatLeaderboard(link)


def redis_group_credentials(link: RedisLink) -> RedisMemberCredentials:
    from noitu.adapters.noitu.redis.rooms import RedisMemberCredentials

    return RedisMemberCredentials(link)


def redis_group_feed(link: RedisLink) -> RedisGroupFeed:
    from noitu.adapters.noitu.redis.rooms import RedisRoomFeed

    return RedisRoomFeed(link)


def make_group_rooms(rooms: Rooms, report: ReportRoomGame) -> Rooms:
    rooms.on_game_end(report)
    return rooms


def match_slots(settings: Settings) -> int:
    """Matches played at once in this process (the match queue's promise of B2): the
    worker's own number (B9), else the default for this machine's cores."""
    return settings.arena_matches or default_slots(os.cpu_count() or 1)


def arena_cgroups() -> CgroupTree | None:
    """Cgroups for bots run without bubblewrap (trusted code), when the host allows."""
    try:
        return find_cgroups()
    except CgroupError:
        return None


def on_off(enabled: bool) -> str:
    """A Selector's key for a part the settings switch on or off."""
    return "on" if enabled else "off"


def runner_kind(requested: str, found: SandboxStatus | None, wanted: bool = True) -> str:
    """"sandbox" or "direct": direct when asked for (the CLI's --no-sandbox), when the
    probe found no sandbox (then only trusted code runs: the built-in bots), or when
    none is wanted here (a web instance of several machines runs no bot). Before the
    probe, "sandbox": whatever tries to run then fails for want of a sandbox, rather
    than running without one."""
    if requested == "direct" or not wanted or (found is not None and not found.available):
        return "direct"
    return "sandbox"


def uploads_kind(found: SandboxStatus | None) -> str:
    """Uploads are built only in a sandbox the probe found, never directly."""
    return "sandbox" if found is not None and found.available else "none"


def sandbox_wanted(settings: Settings) -> bool:
    """Probe the sandbox when the arena runs here and the direct runner was not asked
    for: with NOITU_ARENA_QUEUE=saq a web instance plays and builds nothing (B9), only
    the workers do."""
    plays_here = settings.arena_queue != "saq" or settings.arena_worker
    return settings.arena_enabled and settings.arena_runner != "direct" and plays_here


def recovery_runner(engine: AsyncEngine, instance: str) -> str | None:
    """Whose live matches a start-up abandons: every one in a SQLite file (it has one
    server); only this instance's on a database several instances may share."""
    return None if is_sqlite(engine) else instance


def orphan_min_age_ms(engine: AsyncEngine) -> int:
    """Orphan files are removed at any age when this server is the database's only
    user; on a shared one, young ones may be another instance's upload in flight."""
    return 0 if is_sqlite(engine) else ORPHAN_MIN_AGE_MS


# --- the Resources: what opens and closes (see the module's docstring) -------------------


async def redis_connection(link: RedisLink | None) -> AsyncIterator[RedisLink | None]:
    """The Redis link (NOITU_STORE=redis; None with the memory store), closed last."""
    try:
        yield link
    finally:
        if link is not None:
            await link.aclose()


async def job_queue_connection(
    queues: dict[JobKind, Queue] | None,
) -> AsyncIterator[dict[JobKind, Queue] | None]:
    """The SAQ job queues' connections (NOITU_ARENA_QUEUE=saq: one queue per job kind;
    None with the local queue, which holds nothing open)."""
    if queues is None:
        yield None
        return
    from noitu.adapters.arena.saq_jobs import close_queues, connect_queues

    try:
        await connect_queues(queues)
        yield queues
    finally:
        await close_queues(queues)


async def arena_database(engine: AsyncEngine | None) -> AsyncIterator[AsyncEngine | None]:
    """The arena's database, migrated to the latest schema before anything reads it;
    its engine disposed at the end. None when the arena is off."""
    if engine is None:
        yield None
        return
    try:
        await upgrade(engine)
        yield engine
    finally:
        await engine.dispose()


async def probed_sandbox(
    probe: BubblewrapProbe, wanted: bool
) -> AsyncIterator[SandboxStatus | None]:
    """The sandbox, probed once (not when the arena is off or runs directly by
    request): uploads and the runner follow what it found. Its staging folder goes at
    the end."""
    if not wanted:
        yield None
        return
    found = await probe.probe()
    try:
        yield found
    finally:
        if found.available:
            probe.make_sandbox().close()


async def open_group_feed(
    feed: RedisGroupFeed | None, link: RedisLink | None
) -> AsyncIterator[None]:
    """Nối từ's group feed on Redis (None with the memory store, which holds nothing
    open), closed at the end. `link` is the Redis connection's Resource, named so that
    it closes after the feed."""
    try:
        yield
    finally:
        if feed is not None:
            await feed.aclose()


async def run_periodic(periodic: Periodic, *opened: object) -> AsyncIterator[Periodic]:
    """The process's periodic tasks (`entrypoints/periodic_tasks.py`: which ones is the
    process's role's choice), started with it and stopped, every run in progress
    cancelled, before the Resources they use close (`opened` names them)."""
    periodic.start()
    try:
        yield periodic
    finally:
        await periodic.stop()


async def open_room_feed(feed: RoomFeed | None, link: RedisLink | None) -> AsyncIterator[None]:
    """The arena's room feed (None when the arena is off), stopped at the end, before
    the Redis connection (`link`) closes."""
    try:
        yield
    finally:
        if feed is not None:
            await feed.stop()


class Container(containers.DeclarativeContainer):
    __self__ = providers.Self()
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
    # The operator's key, one home: it signs the game links and seeds the daily games.
    operator_key = providers.Singleton(signing_key, settings)
    token_signer = providers.Singleton(HmacTokenSigner, operator_key)
    daily_puzzle = providers.Singleton(DailyPuzzle, operator_key)

    # NOITU_STORE: memory (one process) or redis (shared by every instance).
    redis = providers.Singleton(redis_link, settings.provided.redis_url)
    redis_resource = providers.Resource(
        redis_connection,
        providers.Selector(settings.provided.store, memory=providers.Object(None), redis=redis),
    )
    session_repository = providers.Selector(
        settings.provided.store,
        memory=providers.Singleton(InMemorySessionRepository),
        redis=providers.Singleton(redis_sessions, redis, lexicon, turn_clock, limits, clock),
    )
    # Each player's daily game and streak (B13).
    daily_games = providers.Selector(
        settings.provided.store,
        memory=providers.Singleton(InMemoryDailyGames),
        redis=providers.Singleton(redis_daily_games, redis, lexicon, turn_clock),
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
        redis=providers.Singleton(redis_group_cards, redis, group_limits.provided.card_keep_ms),
    )
    group_leaderboard = providers.Selector(
        settings.provided.store,
        memory=providers.Singleton(InMemoryChatLeaderboard),
        redis=providers.Singleton(redis_group_leaderboard, redis),
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
        telegram.make_dispatcher, game_links, group_cards, group_leaderboard, clock,
        daily_game=settings.provided.daily_game,
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
    # With a bot token, scores go to the chat's high-score table; else to the log and
    # the server's own tables of local play, which the record block then reads (B12).
    local_scores = providers.Singleton(LocalScoreTable)
    score_reporter = providers.Selector(
        settings.provided.score_reports,
        log=local_scores,
        telegram=providers.Singleton(telegram.make_score_reporter, telegram_bot),
    )
    high_scores = providers.Selector(
        settings.provided.score_reports,
        log=local_scores,
        telegram=providers.Singleton(telegram.make_high_scores, telegram_bot),
    )
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
    additions_store = providers.Selector(
        settings.provided.store,
        memory=providers.Singleton(sqlite_additions, settings.provided.data_dir),
        redis=providers.Singleton(redis_additions, redis),
    )
    word_overlay = providers.Singleton(Overlay, lexicon)
    follow_additions = providers.Singleton(FollowAdditions, additions_store, word_overlay, bot_index)
    reports_store = providers.Selector(
        settings.provided.store,
        memory=providers.Singleton(sqlite_reports, settings.provided.data_dir),
        redis=providers.Singleton(redis_reports, redis),
    )
    word_refusals = providers.Selector(
        settings.provided.store,
        memory=providers.Singleton(InMemoryRefusals),
        redis=providers.Singleton(redis_refusals, redis),
    )
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
    # /baotu, /tu and the review buttons join the bot's handlers.
    words_bot = providers.Singleton(
        telegram.make_words_bot, file_report, look_up_word, change_words, reject_words,
        settings.provided.admin_chat,
    )
    telegram_dispatcher.add_kwargs(words=words_bot)

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
        redis=providers.Singleton(redis_group_credentials, redis),
    )
    group_feed_on_redis = providers.Singleton(redis_group_feed, redis)
    group_feed_channel = providers.Selector(
        settings.provided.store,
        memory=providers.Singleton(InMemoryGroupFeed),
        redis=group_feed_on_redis,
    )
    group_feed_resource = providers.Resource(
        open_group_feed,
        providers.Selector(
            settings.provided.store, memory=providers.Object(None), redis=group_feed_on_redis
        ),
        redis_resource,
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

    # --- the bot arena ----------------------------------------------------------------
    # "on" when the settings run the arena; the arena's Resources open nothing when "off".
    arena_part = providers.Callable(on_off, settings.provided.arena_enabled)
    # The probe runs once, as a Resource, unless the settings ask for the direct runner.
    arena_probe = providers.Singleton(BubblewrapProbe)
    arena_sandbox_resource = providers.Resource(
        probed_sandbox,
        arena_probe,
        providers.Callable(sandbox_wanted, settings),
    )
    # What the probe found (None before it ran, or when it was not wanted).
    arena_sandbox_status = arena_probe.provided.status
    # "sandbox" (bubblewrap + cgroups) or "direct" (trusted code only: the built-in bots
    # when no sandbox can run here, and the CLI's explicit --no-sandbox).
    arena_runner = providers.Callable(
        runner_kind,
        settings.provided.arena_runner,
        arena_sandbox_status,
        providers.Callable(sandbox_wanted, settings),
    )
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

    # Uploads are built only in the sandbox, never directly: without one, the upload
    # builder is None and uploads are refused.
    upload_builder = providers.Selector(
        providers.Callable(uploads_kind, arena_sandbox_status),
        sandbox=arena_sandbox_builder,
        none=providers.Object(None),
    )

    # --- the arena's storage (spec B4, B9): metadata in SQL; files in the data directory,
    # or (NOITU_ARENA_FILES=database) in the same database with the directory as a cache
    arena_engine = providers.Singleton(create_engine, settings.provided.arena_database_url)
    arena_database_resource = providers.Resource(
        arena_database,
        providers.Selector(arena_part, on=arena_engine, off=providers.Object(None)),
    )
    arena_repository = providers.Singleton(SqlArenaRepository, arena_engine)
    arena_files = providers.Selector(
        settings.provided.arena_files,
        directory=providers.Singleton(
            DataDirFiles, settings.provided.data_dir, settings.provided.arena_uploads_max_bytes
        ),
        database=providers.Singleton(
            DatabaseFiles,
            arena_engine,
            settings.provided.data_dir,
            clock,
            settings.provided.arena_uploads_max_bytes,
        ),
    )

    # --- the ladder (B8): its stores in the arena's database, on the same engine ------
    ladder_stores = providers.Singleton(SqlLadder, arena_engine)
    ladder_results = ladder_stores.provided.results
    ladder_standings = ladder_stores.provided.standings
    ladder_members = ladder_stores.provided.members
    ladder_pairings = ladder_stores.provided.pairings
    ladder_lease = ladder_stores.provided.lease
    # The built-ins' names are the class's (static): no builder or probe is needed to list
    # them, so the CLI's rebuild can name them too.
    ladder_roster = providers.Object(BuiltinBots)
    ladder_history = ladder_stores.provided.history
    ladder_listing = ladder_stores.provided.listing
    resume_bot = providers.Singleton(ResumeBot, arena_repository, ladder_members)
    show_ladder = providers.Singleton(ShowLadder, ladder_members, ladder_standings, ladder_roster)
    list_ladder = providers.Singleton(ListLadder, ladder_listing, ladder_roster)
    ladder_bot = providers.Singleton(
        LadderBotOf, ladder_listing, ladder_history, ladder_roster, arena_repository
    )
    ladder_matches = providers.Singleton(
        LadderMatches, arena_repository, arena_repository, ladder_results, ladder_listing
    )
    # Each bot's history (B8): its matches and figures, built-ins by their names.
    bot_matches = providers.Singleton(
        BotMatches, arena_repository, arena_repository, ladder_roster, clock
    )
    bot_figures = providers.Singleton(
        BotFiguresOf, arena_repository, arena_repository, arena_files, ladder_roster
    )
    rebuild_ladder = providers.Singleton(
        RebuildLadder, ladder_lease, ladder_results, ladder_standings, ladder_members,
        ladder_roster, clock,
    )
    record_ladder_result = providers.Singleton(
        RecordLadderResult, ladder_results, ladder_standings, ladder_members, ladder_pairings,
        ladder_roster, clock, rng,
    )
    schedule_pairing = providers.Singleton(
        SchedulePairing, ladder_lease, ladder_members, ladder_standings, ladder_pairings,
        ladder_roster, clock, rng,
    )

    # --- admission control (B10): per client address, and builds at once ---------------
    client_addresses = providers.Singleton(ClientAddresses, settings.provided.trusted_proxies)
    address_limiter = providers.Selector(
        settings.provided.store,
        memory=providers.Singleton(InMemoryAddressLimiter, settings.provided.address_limits),
        redis=providers.Singleton(redis_address_limiter, redis, settings.provided.address_limits),
    )
    admission = providers.Singleton(Admission, address_limiter, clock)
    # Ranking counts toward the address's uploads (B10).
    rank_bot = providers.Singleton(
        RankBot, arena_repository, ladder_members, ladder_standings, admission
    )
    build_queue = providers.Singleton(BuildQueue, providers.Callable(build_slots), clock)

    # --- the arena's jobs (B9): builds in this process, or on workers through SAQ ------
    job_queue_kind = providers.Callable(queue_kind_of, settings)
    job_queue = providers.Singleton(saq_queues, settings.provided.redis_url)
    job_queue_resource = providers.Resource(
        job_queue_connection,
        providers.Selector(job_queue_kind, local=providers.Object(None), saq=job_queue),
    )
    # What builds uploads: this process's sandbox (a Factory, as the builder is known
    # after the start-up probe; None without one), or the workers.
    cluster_jobs = providers.Singleton(saq_jobs, job_queue, settings.provided.arena_job_take_s)
    upload_builds = providers.Selector(
        job_queue_kind,
        local=providers.Factory(local_builds, upload_builder, arena_files, build_queue),
        saq=cluster_jobs,
    )
    # `noitu arena worker`'s side: the builds run in its own sandbox.
    run_build = providers.Factory(RunBuild, arena_files, arena_sandbox_builder)

    # --- the arena's uploaded bots (B5) ---------------------------------------------
    # A Factory: what builds is picked per upload, after the start-up probe.
    upload_bot = providers.Factory(
        UploadBot,
        catalogue=arena_repository,
        files=arena_files,
        builds=upload_builds,
        clock=clock,
        rng=id_source,
        admission=admission,
    )
    my_bots = providers.Singleton(MyBots, arena_repository)
    public_bots = providers.Singleton(PublicBots, arena_repository)
    bot_details = providers.Singleton(BotDetails, arena_repository)
    bot_source = providers.Singleton(BotSource, arena_repository, arena_files)
    publish_bot = providers.Singleton(PublishBot, arena_repository, ladder_members)
    delete_bot = providers.Singleton(
        DeleteBot, arena_repository, arena_repository, arena_files, ladder_members
    )
    sweep_failed_builds = providers.Singleton(
        SweepFailedBuilds, arena_repository, arena_files, clock
    )
    # At start-up: what a previous run left (the stale cgroups are the sandbox's).
    recover_at_start = providers.Singleton(
        RecoverAtStart,
        matches=arena_repository,
        pairings=ladder_pairings,
        bots=arena_repository,
        files=arena_files,
        failed_builds=sweep_failed_builds,
        cgroups=providers.Selector(
            arena_runner, sandbox=arena_sandbox.provided.cgroups, direct=providers.Object(None)
        ),
        clock=clock,
        runner=providers.Callable(recovery_runner, arena_engine, settings.provided.instance),
        orphan_min_age_ms=providers.Callable(orphan_min_age_ms, arena_engine),
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
    room_feed_resource = providers.Resource(
        open_room_feed,
        providers.Selector(arena_part, on=room_feed, off=providers.Object(None)),
        redis_resource,
    )
    arena_timer = providers.Singleton(LoopTimer, clock)
    # Writes tried again while Redis or the database is away (B9 "Faults").
    arena_patience = providers.Singleton(Patience, clock, arena_timer, tell_waiting_write)
    match_queue = providers.Singleton(MatchQueue, providers.Callable(match_slots, settings))
    # The host listens to the queue once: one per process.
    room_host = providers.Singleton(
        RoomHost, room_registry, room_feed, match_queue, clock, background, arena_patience
    )
    # Several machines: a match's replay events as they happen, for whoever abandons
    # the match when its worker dies (B9).
    replay_journal = providers.Singleton(redis_replay_journal, redis)
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
        patience=arena_patience,
        journal=providers.Selector(
            job_queue_kind, local=providers.Object(None), saq=replay_journal
        ),
    )
    owner_keys = providers.Singleton(OwnerKeys, id_source, admission)
    failure_details = providers.Singleton(FailureDetails, room_host, arena_repository)
    get_replay = providers.Singleton(GetReplay, arena_repository, arena_files)
    close_rooms = providers.Singleton(CloseRooms, room_host)

    # One machine: the room use cases on this process's rooms. Several (B9,
    # NOITU_ARENA_QUEUE=saq): a web instance runs them on a copy of the board and hands
    # full rooms' matches to the queue, and forwards a person's requests to the worker
    # running the match; the worker runs them on its own rooms (`worker_play_match`).
    room_board = providers.Singleton(redis_room_board, redis)
    room_desk = providers.Singleton(redis_room_desk, redis)
    board_rooms = providers.Singleton(BoardRooms, room_board, room_host, cluster_jobs)
    match_starter = providers.Selector(
        job_queue_kind,
        local=start_match,
        saq=providers.Singleton(HandOverMatch, room_host),
    )
    room_create = providers.Singleton(
        CreateRoom, room_host, seating, match_starter, id_source, admission
    )
    room_join = providers.Singleton(JoinRoom, room_host, seating, match_starter)
    room_leave = providers.Singleton(LeaveRoom, room_host)
    room_place = providers.Singleton(PlacePieces, room_host)
    room_act = providers.Singleton(PlayAction, room_host)
    room_surrender = providers.Singleton(Surrender, room_host)
    room_get = providers.Singleton(GetRoom, room_host)
    room_lobby = providers.Singleton(OpenRooms, room_host)

    create_room = providers.Selector(
        job_queue_kind,
        local=room_create,
        saq=providers.Singleton(OnTheBoard, room_create, board_rooms, counted=True),
    )
    join_room = providers.Selector(
        job_queue_kind,
        local=room_join,
        saq=providers.Singleton(OnTheBoard, room_join, board_rooms, counted=True),
    )
    open_rooms = providers.Selector(
        job_queue_kind, local=room_lobby, saq=providers.Singleton(OnTheBoard, room_lobby, board_rooms)
    )
    leave_room = providers.Selector(
        job_queue_kind,
        local=room_leave,
        saq=providers.Singleton(ForwardRoomCall, LEAVE, room_leave, board_rooms, room_desk),
    )
    place_pieces = providers.Selector(
        job_queue_kind,
        local=room_place,
        saq=providers.Singleton(ForwardRoomCall, PLACE, room_place, board_rooms, room_desk),
    )
    play_action = providers.Selector(
        job_queue_kind,
        local=room_act,
        saq=providers.Singleton(ForwardRoomCall, ACT, room_act, board_rooms, room_desk),
    )
    surrender = providers.Selector(
        job_queue_kind,
        local=room_surrender,
        saq=providers.Singleton(ForwardRoomCall, SURRENDER, room_surrender, board_rooms, room_desk),
    )
    get_room = providers.Selector(
        job_queue_kind,
        local=room_get,
        saq=providers.Singleton(ForwardRoomCall, GET, room_get, board_rooms, room_desk),
    )
    watch_room = providers.Selector(
        job_queue_kind,
        local=providers.Singleton(WatchRoom, room_host),
        saq=providers.Singleton(WatchRoom, room_host, get_room),
    )
    # A match job (issue 31): on one machine the ladder's, played in this process; on
    # a worker every match, its room taken from the board and its requests answered
    # with the same use cases as one machine.
    play_match_here = providers.Singleton(PlayMatch, room_host, start_match)
    worker_play_match = providers.Singleton(
        PlayMatch,
        room_host,
        start_match,
        room_board,
        room_desk,
        providers.Dict(
            get=providers.Factory(DeskUseCase, GetRoomCommand, room_get),
            place=providers.Factory(DeskUseCase, PlacePiecesCommand, room_place),
            act=providers.Factory(DeskUseCase, PlayActionCommand, room_act),
            surrender=providers.Factory(DeskUseCase, SurrenderCommand, room_surrender),
            leave=providers.Factory(DeskUseCase, LeaveRoomCommand, room_leave),
        ),
        settings.provided.instance,
    )
    abandon_lost_matches = providers.Singleton(
        AbandonLostMatches, board_rooms, arena_repository, arena_files, replay_journal
    )
    job_runner = providers.Factory(
        saq_runner,
        job_queue,
        settings.provided.instance,
        run_build,
        worker_play_match,
        matches=providers.Callable(match_slots, settings),
        builds=providers.Callable(worker_slots),
    )
    # The slots the ladder fills. One machine: this process's match queue; several (B9):
    # the workers', as the board shows them.
    ladder_slots = providers.Selector(
        job_queue_kind,
        local=providers.Singleton(QueueSlots, room_host),
        saq=providers.Singleton(BoardSlots, board_rooms, arena_repository, arena_timer),
    )
    # Where the ladder hands its matches: `PlayMatch` here, or the workers' queue.
    ladder_match_jobs = providers.Selector(
        job_queue_kind, local=play_match_here, saq=ladder_slots.provided.play
    )
    # Unranking ends the bot's ladder matches that wait for a slot or a worker.
    unrank_bot = providers.Singleton(UnrankBot, arena_repository, ladder_members, ladder_slots)
    # The ladder's matches on the slots the rooms leave idle (NOITU_ARENA_LADDER).
    play_ladder = providers.Singleton(
        PlayLadder,
        schedule_pairing,
        record_ladder_result,
        ladder_match_jobs,
        ladder_slots,
        arena_repository,
        ladder_members,
        ladder_pairings,
        builtin_bots,
        clock,
        background,
        arena_timer,
        id_source,
        on_error=providers.Object(ladder_pass_failed),
    )

    # --- what the process does by itself, every so often ------------------------------
    # The tasks of this process's role (web or worker), built when the Resource starts.
    periodic = providers.Singleton(periodic_of, __self__)
    periodic_resource = providers.Resource(
        run_periodic,
        periodic,
        redis_resource,
        room_feed_resource,
        arena_database_resource,
    )
