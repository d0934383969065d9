"""Fixtures for the contract tests: every adapter of a port, and a real redis-server.

The Redis server is started once per test session on a free loopback port and flushed
before each test. The tests that need it skip only when `redis-server` is not installed.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from noitu.adapters.noitu.memory_repository import InMemorySessionRepository
from noitu.adapters.noitu.memory_start_limiter import InMemoryStartLimiter
from noitu.adapters.noitu.redis.limiter import RedisStartRateLimiter
from noitu.adapters.noitu.redis.repository import RedisSessionRepository
from noitu.adapters.redis.client import RedisLink
from noitu.application.noitu.session import GameMessage, Session, Ticket
from noitu.bench.redis_server import MISSING_REASON, REDIS_SERVER, RedisServer
from noitu.domain.noitu.game import Game
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.opponent import Difficulty
from noitu.domain.noitu.rules import SessionLimits, TurnClock
from support.arena_databases import (  # noqa: F401 (fixtures of the arena's storage contract)
    engines,
    new_url,
    postgres,
    sqlite_template,
)
from support.fakes import FakeClock

ADAPTERS = ["memory", "redis"]


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    if REDIS_SERVER is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must test the Redis adapter: {MISSING_REASON}")
        pytest.skip(MISSING_REASON)
    server = RedisServer(Path(tmp_path_factory.mktemp("redis")))
    server.start()
    yield server
    server.kill()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    with redis.Redis.from_url(redis_server.url) as client:
        client.flushall()
    return redis_server.url


@pytest.fixture
async def redis_links(request: pytest.FixtureRequest) -> AsyncIterator[Callable[..., RedisLink]]:
    """Makes RedisLinks (one per "server instance"); closes them after the test."""
    links: list[RedisLink] = []

    def make(url: str | None = None) -> RedisLink:
        link = RedisLink.from_url(url or request.getfixturevalue("redis_url"))
        links.append(link)
        return link

    yield make
    for link in links:
        await link.aclose()


@pytest.fixture
def limits() -> SessionLimits:
    return SessionLimits()


@pytest.fixture
def rules() -> TurnClock:
    return TurnClock()


@pytest.fixture(params=ADAPTERS)
def kind(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def elapse(kind: str, clock: FakeClock) -> Callable[[int], Awaitable[None]]:
    """Let `ms` pass: the fake clock for memory, real time for Redis (its own clock)."""

    async def wait(ms: int) -> None:
        if kind == "memory":
            clock.advance(ms)
        else:
            await asyncio.sleep(ms / 1000)

    return wait


@pytest.fixture
def make_repository(
    kind: str, request: pytest.FixtureRequest, little: Lexicon, rules: TurnClock,
    limits: SessionLimits, clock: FakeClock,
) -> Callable[..., Any]:
    """A repository of the parametrised kind. For Redis, each call is another "server
    instance" (its own client) on the same store; for memory, the same repository."""
    if kind == "memory":
        shared = InMemorySessionRepository()
        return lambda **_: shared
    make_link = request.getfixturevalue("redis_links")

    def make(**options: Any) -> RedisSessionRepository:
        return RedisSessionRepository(
            make_link(), little, options.pop("rules", rules), options.pop("limits", limits),
            clock, **options,
        )

    return make


@pytest.fixture
def repository(make_repository: Callable[..., Any]) -> Any:
    return make_repository()


@pytest.fixture
def start_limiter(kind: str, request: pytest.FixtureRequest, limits: SessionLimits) -> Any:
    if kind == "memory":
        return InMemoryStartLimiter(limits)
    return RedisStartRateLimiter(request.getfixturevalue("redis_links")(), limits)


@pytest.fixture
def new_session(little: Lexicon, rules: TurnClock, clock: FakeClock) -> Callable[..., Session]:
    """A fresh session of a real game; each call a new id and, by default, a new message."""
    counter = itertools.count(1)
    rng = random.Random(11)

    def make(user: int = 1, message: int | None = None, inline: str | None = None,
             difficulty: Difficulty = Difficulty.MEDIUM) -> Session:
        n = next(counter)
        if inline is None:
            game_message = GameMessage(chat_id=-100, message_id=message or n, topic_id=None)
        else:
            game_message = GameMessage(inline_message_id=inline)
        now = clock.now_ms()
        return Session(
            id=f"{rng.getrandbits(128):032x}",
            ticket=Ticket(user_id=user, first_name="An", message=game_message,
                          expires_at=now // 1000 + 3600),
            game=Game.start(little, rules, difficulty, rng, now),
            created_ms=now,
            last_active_ms=now,
        )

    return make
