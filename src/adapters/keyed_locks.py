"""Per-key asyncio locks for one process, forgotten when nobody holds or waits for them."""

from __future__ import annotations

import asyncio
from types import TracebackType

from noitu.application.errors import Busy


class KeyedLocks:
    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}
        self._waiters: dict[str, int] = {}

    def hold(self, key: str, timeout_s: float | None = None) -> _Held:
        """Hold the lock of `key`; with `timeout_s`, give up waiting with `Busy`."""
        return _Held(self, key, timeout_s)


class _Held:
    """`async with locks.hold(key)`: a plain class rather than an async generator, as
    every request takes a lock (the generator's machinery cost more than the lock)."""

    __slots__ = ("_key", "_lock", "_locks", "_timeout_s")

    def __init__(self, locks: KeyedLocks, key: str, timeout_s: float | None) -> None:
        self._locks = locks
        self._key = key
        self._timeout_s = timeout_s

    async def __aenter__(self) -> None:
        locks, key = self._locks, self._key
        lock = locks._locks.get(key)
        if lock is None:
            lock = locks._locks[key] = asyncio.Lock()
        self._lock = lock
        locks._waiters[key] = locks._waiters.get(key, 0) + 1
        try:
            if self._timeout_s is None:
                await lock.acquire()
            else:
                async with asyncio.timeout(self._timeout_s):
                    await lock.acquire()
        except TimeoutError:
            self._forget()
            raise Busy() from None
        except BaseException:  # cancelled while waiting
            self._forget()
            raise

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._lock.release()
        self._forget()

    def _forget(self) -> None:
        """One holder or waiter fewer; the lock goes with the last of them."""
        locks, key = self._locks, self._key
        remaining = locks._waiters[key] - 1
        if remaining:
            locks._waiters[key] = remaining
        else:
            del locks._waiters[key]
            del locks._locks[key]
