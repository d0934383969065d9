"""The Redis client the adapters share, failing fast, and the outage bookkeeping."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

import structlog
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ReadOnlyError
from redis.exceptions import TimeoutError as RedisTimeoutError

from noitu.application.errors import Busy

T = TypeVar("T")

log = structlog.get_logger("noitu.redis")

DEFAULT_PREFIX = "noitu:"
SOCKET_TIMEOUT_S = 1.0
# The client's pool refuses a call outright past this many connections in use (its own
# default is 100). A request holds one at a time, and when the process stalls for a
# moment more than 100 players' requests may be waiting at once: each would be answered
# `busy` with Redis idle. This is as many as the HTTP server lets in by default.
MAX_CONNECTIONS = 1_000
UNAVAILABLE = (RedisConnectionError, RedisTimeoutError, ReadOnlyError, OSError, asyncio.TimeoutError)


def make_redis_client(url: str, timeout_s: float = SOCKET_TIMEOUT_S) -> Redis:
    """A client that fails fast: bounded connect and read times, and one immediate retry
    on a broken connection only (a pooled connection that died with a Redis restart).
    Connections are opened lazily, on the event loop that first uses them."""
    return Redis.from_url(
        url,
        decode_responses=True,
        socket_timeout=timeout_s,
        socket_connect_timeout=timeout_s,
        max_connections=MAX_CONNECTIONS,
        retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
        client_name="noitu",
    )


class RedisLink:
    """The Redis client the adapters share, and the outage bookkeeping: an operation
    that cannot reach Redis raises `Busy`; the first failure of an outage is logged, and
    so is the first success after it."""

    def __init__(self, client: Redis, prefix: str = DEFAULT_PREFIX) -> None:
        self.client = client
        self.prefix = prefix
        self._down = False

    @classmethod
    def from_url(cls, url: str, prefix: str = DEFAULT_PREFIX) -> RedisLink:
        return cls(make_redis_client(url), prefix)

    async def run(self, operation: Awaitable[T]) -> T:
        try:
            result = await operation
        except UNAVAILABLE as error:
            if not self._down:
                self._down = True
                log.error("redis_unavailable", error=f"{type(error).__name__}: {error}")
            raise Busy() from None
        if self._down:
            self._down = False
            log.info("redis_recovered")
        return result

    @property
    def down(self) -> bool:
        return self._down

    async def aclose(self) -> None:
        try:
            await self.client.aclose()
        except UNAVAILABLE:
            pass
