"""What every part shares: the settings and the process's role, the clock and random sources, the operator's key,
the Redis link (opened by the store's part when NOITU_STORE=redis), nối từ's dictionary
and limits (its stores read them) and the Telegram bot (built only when used).
"""

from __future__ import annotations

import random

from dependency_injector import containers, providers

from noitu.adapters.background import AsyncioBackground
from noitu.adapters.noitu.dictionary_file import load_lexicon
from noitu.adapters.noitu.telegram import factories as telegram
from noitu.adapters.noitu.token_signer import (
    HmacTokenSigner,
)
from noitu.adapters.system_clock import SystemClock
from noitu.domain.noitu.daily import DailyPuzzle
from noitu.domain.noitu.room import RoomLimits
from noitu.entrypoints.containers.support import (
    redis_link,
    signing_key,
)
from noitu.entrypoints.role import Role
from noitu.entrypoints.settings import Settings


class Core(containers.DeclarativeContainer):
    settings = providers.Dependency(instance_of=Settings)
    # The process's role (`entrypoints/role.py`), given by its entry point.
    role = providers.Dependency(instance_of=Role)

    # --- shared adapters --------------------------------------------------------------
    clock = providers.Singleton(SystemClock)
    rng = providers.Singleton(random.Random)
    id_source = providers.Singleton(random.SystemRandom)
    background = providers.Singleton(AsyncioBackground)
    # The operator's key, one home: it signs the game links and seeds the daily games.
    operator_key = providers.Singleton(signing_key, settings)
    token_signer = providers.Singleton(HmacTokenSigner, operator_key)
    daily_puzzle = providers.Singleton(DailyPuzzle, operator_key)

    # The Redis link, built only when used (NOITU_STORE=redis, the arena's cluster).
    redis = providers.Singleton(redis_link, settings.provided.redis_url)

    # --- nối từ's dictionary, turn clock and limits: the stores read them too ----------
    lexicon = providers.Singleton(
        load_lexicon,
        providers.Callable(lambda s: s.dictionary or None, settings),
        settings.provided.cache_dir,
    )
    turn_clock = providers.Singleton(lambda s: s.turn_clock, settings)
    limits = providers.Singleton(lambda s: s.session_limits, settings)
    group_limits = providers.Singleton(RoomLimits)

    # --- Telegram (aiogram is imported only when one of these is built) ----------------
    telegram_bot = providers.Singleton(
        telegram.make_bot, settings.provided.bot_token, settings.provided.telegram_api_base
    )
