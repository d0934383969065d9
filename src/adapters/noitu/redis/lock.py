"""A lock on one key across every instance sharing a Redis: SET NX PX with a random
token, polled for a bounded time (then `Busy`), released by a compare-and-delete; a
holder that dies loses it after its time-to-live. Waiters of one process queue on a
local lock first, so they do not all poll Redis."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from noitu.adapters.keyed_locks import KeyedLocks
from noitu.adapters.noitu.redis.scripts import RELEASE
from noitu.adapters.redis.client import RedisLink
from noitu.application.errors import Busy


class RedisLocks:
    def __init__(self, link: RedisLink, ttl_ms: int, wait_s: float) -> None:
        self._link = link
        self._ttl_ms = ttl_ms
        self._wait_s = wait_s
        self._local = KeyedLocks()
        self._release = link.client.register_script(RELEASE)

    @asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._wait_s
        redis = self._link.client
        async with self._local.hold(key, self._wait_s):
            name = f"{self._link.prefix}lock:{key}"
            token = secrets.token_hex(16)
            delay = 0.002
            while not await self._link.run(redis.set(name, token, nx=True, px=self._ttl_ms)):
                if loop.time() + delay > deadline:
                    raise Busy()
                await asyncio.sleep(delay)
                delay = min(delay * 2, 0.025)
            try:
                yield
            finally:
                try:
                    await self._link.run(self._release(keys=[name], args=[token]))
                except Busy:
                    pass  # Redis is gone; the lock runs out by itself
