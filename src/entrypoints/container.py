"""The composition root: the one place that names concrete adapters.

Tests build the same container and override providers with fakes (a clock they can
advance, a recording score reporter, a seeded random source).
"""

from __future__ import annotations

import random
import secrets

from dependency_injector import containers, providers

from ..adapters.background import AsyncioBackground
from ..adapters.dictionary_file import load_lexicon
from ..adapters.logging_reporter import LoggingScoreReporter
from ..adapters.memory_repository import InMemorySessionRepository
from ..adapters.memory_start_limiter import InMemoryStartLimiter
from ..adapters.system_clock import SystemClock
from ..adapters.token_signer import MIN_SECRET_BYTES, HmacTokenSigner, key_from_bot_token
from ..application.get_state import GetState
from ..application.give_up import GiveUp
from ..application.limits import SessionLimits
from ..application.play_move import PlayMove
from ..application.score_keeping import ScoreKeeper
from ..application.settle_expired import SettleExpired
from ..application.start_game import StartGame
from ..domain.game import TurnRules
from ..domain.opponents import OPPONENTS, Difficulty, Opponent
from .settings import Settings


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


class Container(containers.DeclarativeContainer):
    settings = providers.Dependency(instance_of=Settings)

    lexicon = providers.Singleton(
        load_lexicon, providers.Callable(lambda s: s.dictionary or None, settings)
    )
    rules = providers.Singleton(turn_rules, settings)
    limits = providers.Singleton(SessionLimits)
    clock = providers.Singleton(SystemClock)
    rng = providers.Singleton(random.Random)
    id_source = providers.Singleton(random.SystemRandom)
    opponents = providers.Singleton(opponents)

    token_signer = providers.Singleton(HmacTokenSigner, providers.Singleton(signing_key, settings))
    sessions = providers.Singleton(InMemorySessionRepository)
    start_limiter = providers.Singleton(InMemoryStartLimiter)
    score_reporter = providers.Singleton(LoggingScoreReporter)
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
