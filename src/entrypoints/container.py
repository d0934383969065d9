"""The composition root: the one place that names concrete adapters.

Settings pick adapters through `Selector`s (NOITU_STORE picks the store; a bot token
makes Telegram the score reporter). Tests build the same container and override
providers with fakes (a clock they can advance, a recording score reporter, a seeded
random source). Adapters that import heavy libraries (aiogram, redis-py) are built by
factories that import them on first use.
"""

from __future__ import annotations

import random
import secrets
from typing import TYPE_CHECKING

from dependency_injector import containers, providers

from noitu.adapters.arena.bubblewrap import BubblewrapLauncher, BubblewrapProbe
from noitu.adapters.arena.build import DirectBuilder, SandboxBuilder
from noitu.adapters.arena.builtin import BuiltinBots
from noitu.adapters.arena.cgroups import CgroupError, CgroupTree, find_cgroups
from noitu.adapters.arena.direct import DirectLauncher
from noitu.adapters.background import AsyncioBackground
from noitu.adapters.dictionary_file import bot_index_of, load_lexicon
from noitu.adapters.http.paths import NOITU_PATH
from noitu.adapters.logging_reporter import LoggingScoreReporter
from noitu.adapters.memory_repository import InMemorySessionRepository
from noitu.adapters.memory_start_limiter import InMemoryStartLimiter
from noitu.adapters.system_clock import SystemClock
from noitu.adapters.telegram import factories as telegram
from noitu.adapters.telegram.links import GameLinks
from noitu.adapters.token_signer import (
    MIN_SECRET_BYTES,
    HmacTokenSigner,
    key_from_bot_token,
)
from noitu.application.arena.check_bot import CheckBot
from noitu.application.arena.run_match import RunMatch
from noitu.application.noitu.get_state import GetState
from noitu.application.noitu.give_up import GiveUp
from noitu.application.noitu.play_move import PlayMove
from noitu.application.noitu.settle_expired import SettleExpired
from noitu.application.noitu.start_game import StartGame
from noitu.application.noitu.unit_of_work import Sessions
from noitu.application.noitu.view import SessionViews
from noitu.domain.noitu.bots import make_opponents
from noitu.entrypoints.settings import Settings

if TYPE_CHECKING:
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
    telegram_dispatcher = providers.Singleton(telegram.make_dispatcher, game_links)
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
    arena_builder = providers.Selector(
        arena_runner,
        sandbox=providers.Singleton(SandboxBuilder, arena_sandbox),
        direct=providers.Singleton(DirectBuilder),
    )
    builtin_bots = providers.Singleton(BuiltinBots, arena_builder, settings.provided.cache_dir)
    run_match = providers.Singleton(RunMatch, arena_launcher)
    check_bot = providers.Singleton(CheckBot, arena_launcher)
