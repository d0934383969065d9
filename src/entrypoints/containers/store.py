"""The stores (NOITU_STORE): one part in process memory, one on Redis (shared by every
instance), with the same provider names; `Store` picks one whole part with one
`Selector` and names its providers again, so the other parts read `store.<name>`
whichever was picked.

Neither part holds a Resource: what opens and closes (the Redis link, the group feed)
is a Resource in `Store` or in `Container`, given what the picked part names
(`redis_link`, `group_feed_to_close`: None in memory). A Resource inside a picked part
would be found and opened by `init_resources()` for both parts.
"""

from __future__ import annotations

from dependency_injector import containers, providers

from noitu.adapters.arena.address_limiter import InMemoryAddressLimiter
from noitu.adapters.arena.rooms import InMemoryRoomFeed
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
from noitu.adapters.noitu.words.memory import InMemoryRefusals
from noitu.entrypoints.containers.resources import redis_connection
from noitu.entrypoints.containers.support import (
    redis_additions,
    redis_address_limiter,
    redis_daily_games,
    redis_group_cards,
    redis_group_credentials,
    redis_group_feed,
    redis_group_leaderboard,
    redis_group_store,
    redis_refusals,
    redis_reports,
    redis_room_feed,
    redis_seen_updates,
    redis_sessions,
    redis_start_limiter,
    sqlite_additions,
    sqlite_reports,
)


class _StoreInputs(containers.DeclarativeContainer):
    """What either store part reads, given by `Store`."""

    settings = providers.Dependency()
    redis = providers.Dependency()
    clock = providers.Dependency()
    lexicon = providers.Dependency()
    turn_clock = providers.Dependency()
    limits = providers.Dependency()
    card_keep_ms = providers.Dependency()


class MemoryStore(_StoreInputs):
    """One process: everything in its memory; the words' additions and reports in SQLite
    files in NOITU_DATA_DIR."""

    redis_link = providers.Object(None)
    session_repository = providers.Singleton(InMemorySessionRepository)
    daily_games = providers.Singleton(InMemoryDailyGames)
    start_limiter = providers.Singleton(InMemoryStartLimiter, _StoreInputs.limits)
    group_cards = providers.Singleton(InMemoryRoomCards, _StoreInputs.card_keep_ms)
    group_leaderboard = providers.Singleton(InMemoryChatLeaderboard)
    additions_store = providers.Singleton(sqlite_additions, _StoreInputs.settings.provided.data_dir)
    reports_store = providers.Singleton(sqlite_reports, _StoreInputs.settings.provided.data_dir)
    word_refusals = providers.Singleton(InMemoryRefusals)
    group_store = providers.Singleton(InMemoryRoomStore)
    group_credentials = providers.Singleton(InMemoryMemberCredentials)
    group_feed_channel = providers.Singleton(InMemoryGroupFeed)
    group_feed_to_close = providers.Object(None)
    seen_updates = providers.Singleton(telegram.make_process_seen_updates)
    address_limiter = providers.Singleton(
        InMemoryAddressLimiter, _StoreInputs.settings.provided.address_limits
    )
    room_feed = providers.Singleton(InMemoryRoomFeed)


class RedisStore(_StoreInputs):
    """Several instances: everything on the Redis link, shared by all."""

    redis_link = _StoreInputs.redis
    session_repository = providers.Singleton(
        redis_sessions,
        _StoreInputs.redis,
        _StoreInputs.lexicon,
        _StoreInputs.turn_clock,
        _StoreInputs.limits,
        _StoreInputs.clock,
    )
    daily_games = providers.Singleton(
        redis_daily_games, _StoreInputs.redis, _StoreInputs.lexicon, _StoreInputs.turn_clock
    )
    start_limiter = providers.Singleton(
        redis_start_limiter, _StoreInputs.redis, _StoreInputs.limits
    )
    group_cards = providers.Singleton(
        redis_group_cards, _StoreInputs.redis, _StoreInputs.card_keep_ms
    )
    group_leaderboard = providers.Singleton(redis_group_leaderboard, _StoreInputs.redis)
    additions_store = providers.Singleton(redis_additions, _StoreInputs.redis)
    reports_store = providers.Singleton(redis_reports, _StoreInputs.redis)
    word_refusals = providers.Singleton(redis_refusals, _StoreInputs.redis)
    group_store = providers.Singleton(
        redis_group_store, _StoreInputs.redis, _StoreInputs.lexicon, _StoreInputs.turn_clock
    )
    group_credentials = providers.Singleton(redis_group_credentials, _StoreInputs.redis)
    group_feed_channel = providers.Singleton(redis_group_feed, _StoreInputs.redis)
    group_feed_to_close = group_feed_channel
    seen_updates = providers.Singleton(redis_seen_updates, _StoreInputs.redis)
    address_limiter = providers.Singleton(
        redis_address_limiter, _StoreInputs.redis, _StoreInputs.settings.provided.address_limits
    )
    room_feed = providers.Singleton(redis_room_feed, _StoreInputs.redis)


def _inputs_from(core: providers.DependenciesContainer) -> dict[str, providers.Provider]:
    """`_StoreInputs`, from the core part."""
    return {
        "settings": core.settings,
        "redis": core.redis,
        "clock": core.clock,
        "lexicon": core.lexicon,
        "turn_clock": core.turn_clock,
        "limits": core.limits,
        "card_keep_ms": core.group_limits.provided.card_keep_ms,
    }


class Store(containers.DeclarativeContainer):
    core = providers.DependenciesContainer()
    settings = core.settings

    in_memory = providers.Container(MemoryStore, **_inputs_from(core))
    on_redis = providers.Container(RedisStore, **_inputs_from(core))
    # NOITU_STORE picks the whole part; each name below reads the picked part's provider.
    picked = providers.Selector(settings.provided.store, memory=in_memory, redis=on_redis)

    # The Redis link (None in memory), opened first and closed last.
    redis_resource = providers.Resource(redis_connection, picked.provided.redis_link.call())

    # Nối từ's (B1-B13): sessions, daily games, start limits, group rooms, words.
    session_repository = picked.provided.session_repository.call()
    daily_games = picked.provided.daily_games.call()
    start_limiter = picked.provided.start_limiter.call()
    group_cards = picked.provided.group_cards.call()
    group_leaderboard = picked.provided.group_leaderboard.call()
    additions_store = picked.provided.additions_store.call()
    reports_store = picked.provided.reports_store.call()
    word_refusals = picked.provided.word_refusals.call()
    group_store = picked.provided.group_store.call()
    group_credentials = picked.provided.group_credentials.call()
    group_feed_channel = picked.provided.group_feed_channel.call()
    # The group feed on Redis, whichever part is picked (tests override it), and the one
    # the feed's Resource closes (None in memory).
    group_feed_on_redis = on_redis.group_feed_channel
    group_feed_to_close = picked.provided.group_feed_to_close.call()
    # Telegram's: the updates already handled.
    seen_updates = picked.provided.seen_updates.call()
    # The arena's: admission per client address (B10), the rooms' snapshots (B6).
    address_limiter = picked.provided.address_limiter.call()
    room_feed = picked.provided.room_feed.call()
