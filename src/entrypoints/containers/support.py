"""The plain functions the containers call: adapters built on first use (so the heavy
libraries are imported only then), the Resources' generators, and the small choices
the settings make."""

from __future__ import annotations

import os
import secrets
from typing import TYPE_CHECKING

import structlog

from noitu.adapters.arena.sql.engine import is_sqlite
from noitu.adapters.noitu.token_signer import (
    MIN_SECRET_BYTES,
    key_from_bot_token,
)
from noitu.application.arena.admission import AddressLimits
from noitu.application.arena.jobs import BUILD_JOB, MATCH_JOB, JobKind
from noitu.application.arena.match_queue import default_slots
from noitu.application.arena.recover_at_start import ORPHAN_MIN_AGE_MS
from noitu.application.arena.rooms.play_match import PlayMatch
from noitu.application.arena.run_build import RunBuild
from noitu.application.noitu.rooms.report_room_game import ReportRoomGame
from noitu.application.noitu.rooms.unit_of_work import Rooms
from noitu.entrypoints.role import Role
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
    from noitu.entrypoints.containers.runners import RunnerChoice


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


def sweep_holder(instance: str) -> str:
    """This process's name on the retention sweep's lease: its instance's, made unique
    (a CLI's sweep and `serve` may share an instance name on one machine)."""
    return f"{instance[:40]}/{secrets.token_hex(8)}"


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


def match_slots(settings: Settings, role: Role) -> int:
    """Matches played at once in this process (the match queue's promise of B2): a
    worker's own number (B9), else the default for this machine's cores."""
    return role.matches or default_slots(os.cpu_count() or 1)


def on_off(enabled: bool) -> str:
    """A Selector's key for a part the settings switch on or off."""
    return "on" if enabled else "off"


def runner_choice(settings: Settings, role: Role) -> RunnerChoice:
    """How this process runs bots (`runners.py`): not at all when the arena is off;
    directly, without a probe, when the CLI's author asked for it (--no-sandbox) or
    when the arena's jobs run on the workers (NOITU_ARENA_QUEUE=saq: a web instance
    plays and builds nothing, B9); else in the sandbox when the probe finds one."""
    if not settings.arena_enabled:
        return "off"
    if role.no_sandbox or (role.kind == "web" and settings.arena_queue == "saq"):
        return "direct"
    return "probe"


def recovery_runner(engine: AsyncEngine, instance: str) -> str | None:
    """Whose live matches a start-up abandons: every one in a SQLite file (it has one
    server); only this instance's on a database several instances may share."""
    return None if is_sqlite(engine) else instance


def orphan_min_age_ms(engine: AsyncEngine) -> int:
    """Orphan files are removed at any age when this server is the database's only
    user; on a shared one, young ones may be another instance's upload in flight."""
    return 0 if is_sqlite(engine) else ORPHAN_MIN_AGE_MS
