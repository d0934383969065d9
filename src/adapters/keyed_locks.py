"""Per-key asyncio locks for one process, forgotten when nobody holds or waits for them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from noitu.application.errors import Busy


class KeyedLocks:
    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}
        self._waiters: dict[str, int] = {}

    @asynccontextmanager
    async def hold(self, key: str, timeout_s: float | None = None) -> AsyncIterator[None]:
        """Hold the lock of `key`; with `timeout_s`, give up waiting with `Busy`."""
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        self._waiters[key] = self._waiters.get(key, 0) + 1
        try:
            try:
                async with asyncio.timeout(timeout_s):
                    await lock.acquire()
            except TimeoutError:
                raise Busy() from None
            try:
                yield
            finally:
                lock.release()
        finally:
            remaining = self._waiters[key] - 1
            if remaining:
                self._waiters[key] = remaining
            else:
                del self._waiters[key]
                del self._locks[key]
