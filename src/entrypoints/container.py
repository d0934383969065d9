"""The composition root: the one place that names concrete adapters.

Tests build the same container and override providers with fakes (a clock they can
advance, a recording score reporter, a seeded random source).
"""

from __future__ import annotations

import random
import secrets
from typing import TYPE_CHECKING

from dependency_injector import containers, providers

from noitu.adapters.background import AsyncioBackground
from noitu.adapters.dictionary_file import load_lexicon
from noitu.adapters.logging_reporter import LoggingScoreReporter
from noitu.adapters.memory_repository import InMemorySessionRepository
from noitu.adapters.memory_start_limiter import InMemoryStartLimiter
from noitu.adapters.system_clock import SystemClock
from noitu.adapters.telegram.factories import make_bot, make_score_reporter
from noitu.adapters.token_signer import MIN_SECRET_BYTES, HmacTokenSigner, key_from_bot_token
from noitu.application.noitu.get_state import GetState
from noitu.application.noitu.give_up import GiveUp
from noitu.application.noitu.limits import SessionLimits
from noitu.application.noitu.play_move import PlayMove
from noitu.application.noitu.score_keeping import ScoreKeeper
from noitu.application.noitu.settle_expired import SettleExpired
from noitu.application.noitu.start_game import StartGame
from noitu.domain.noitu.game import TurnRules
from noitu.domain.noitu.bots.opponents import OPPONENTS, Difficulty, Opponent
from noitu.entrypoints.settings import Settings

if TYPE_CHECKING:
    from noitu.adapters.redis.store import RedisLink, RedisSessionRepository, RedisStartRateLimiter


def signing_key(settings: Settings) -> bytes:
    """NOITU_GAME_SECRET; else derived from the bot token; else (local play) random."""
    if len(settings.game_secret) >= MIN_SECRET_BYTES:
        return settings.game_secret
    if settings.bot_token:
        return key_from_bot_token(settings.bot_token)
    return secrets.token_bytes(MIN_SECRET_BYTES)


def turn_rules(settings: Settings) -> TurnRules:
    return TurnRules(turn_ms=settings.turn_ms, grace_ms=settings.grace_ms)


def opponents() -> dict[Difficulty, Opponent]:
    return {difficulty: make() for difficulty, make in OPPONENTS.items()}


def session_limits(settings: Settings) -> SessionLimits:
    return SessionLimits(max_playing=settings.max_sessions)


# NOITU_STORE=redis. Imported when first used: the memory store does not need redis-py.
def redis_link(url: str) -> RedisLink:
    from noitu.adapters.redis.store import RedisLink

    return RedisLink.from_url(url)


def redis_sessions(link: RedisLink, *args: object) -> RedisSessionRepository:
    from noitu.adapters.redis.store import RedisSessionRepository

    return RedisSessionRepository(link, *args)  # type: ignore[arg-type]


def redis_start_limiter(link: RedisLink) -> RedisStartRateLimiter:
    from noitu.adapters.redis.store import RedisStartRateLimiter

    return RedisStartRateLimiter(link)


class Container(containers.DeclarativeContainer):
    settings = providers.Dependency(instance_of=Settings)

    lexicon = providers.Singleton(
        load_lexicon, providers.Callable(lambda s: s.dictionary or None, settings)
    )
    rules = providers.Singleton(turn_rules, settings)
    limits = providers.Singleton(session_limits, settings)
    clock = providers.Singleton(SystemClock)
    rng = providers.Singleton(random.Random)
    id_source = providers.Singleton(random.SystemRandom)
    opponents = providers.Singleton(opponents)

    token_signer = providers.Singleton(HmacTokenSigner, providers.Singleton(signing_key, settings))
    # NOITU_STORE: memory (one process) or redis (shared by every instance).
    redis = providers.Singleton(redis_link, settings.provided.redis_url)
    sessions = providers.Selector(
        settings.provided.store,
        memory=providers.Singleton(InMemorySessionRepository),
        redis=providers.Singleton(redis_sessions, redis, lexicon, rules, limits, clock),
    )
    start_limiter = providers.Selector(
        settings.provided.store,
        memory=providers.Singleton(InMemoryStartLimiter),
        redis=providers.Singleton(redis_start_limiter, redis),
    )
    score_reporter = providers.Singleton(LoggingScoreReporter)
    # The Telegram side (built lazily; server.build_app makes it the score reporter when a
    # bot token is set).
    telegram_bot = providers.Singleton(
        make_bot, settings.provided.bot_token, settings.provided.telegram_api_base
    )
    telegram_reporter = providers.Singleton(make_score_reporter, telegram_bot)
    background = providers.Singleton(AsyncioBackground)
    score_keeper = providers.Singleton(ScoreKeeper, sessions, score_reporter, background)

    start_game = providers.Singleton(
        StartGame,
        lexicon=lexicon,
        rules=rules,
        limits=limits,
        sessions=sessions,
        tokens=token_signer,
        start_limiter=start_limiter,
        score_keeper=score_keeper,
        clock=clock,
        rng=rng,
        id_source=id_source,
    )
    play_move = providers.Singleton(
        PlayMove,
        sessions=sessions,
        opponents=opponents,
        limits=limits,
        score_keeper=score_keeper,
        clock=clock,
        rng=rng,
    )
    get_state = providers.Singleton(GetState, sessions, score_keeper, clock)
    give_up = providers.Singleton(GiveUp, sessions, score_keeper, clock)
    settle_expired = providers.Singleton(SettleExpired, sessions, limits, score_keeper, clock)
