"""The global build queue (spec B10): at most one build per core at once, whoever asks.

A build (g++, javac, a JAR's check) may take a whole core for up to 60 s, and an owner
key is free, so without a global cap a few clients could hold every core. Builds past
the cap wait in the order they came; each learns how long it waited, which the upload's
answer tells its author.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from noitu.application.ports import Clock


@dataclass(slots=True)
class BuildTurn:
    #: How long this build waited for its turn (ms, by the clock).
    waited_ms: int = 0


class BuildQueue:
    def __init__(self, builds_at_once: int, clock: Clock) -> None:
        if builds_at_once < 1:
            raise ValueError("a build queue needs room for one build")
        self.builds_at_once = builds_at_once
        self._clock = clock
        self._running = 0
        self._waiting: deque[asyncio.Future[None]] = deque()

    @property
    def running(self) -> int:
        return self._running

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[BuildTurn]:
        """Wait for a free place in order, hold it while the body builds. A waiter that
        is cancelled leaves the queue (and hands on a place it was just given)."""
        asked = self._clock.now_ms()
        if self._running < self.builds_at_once and not self._waiting:
            self._running += 1
        else:
            ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiting.append(ready)
            try:
                await ready  # the place is handed over already counted
            except BaseException:
                if ready.done() and not ready.cancelled():
                    self._release()  # given a place, then cancelled: pass it on
                else:
                    self._waiting.remove(ready)
                raise
        try:
            yield BuildTurn(self._clock.now_ms() - asked)
        finally:
            self._release()

    def _release(self) -> None:
        while self._waiting:
            ready = self._waiting.popleft()
            if not ready.done():
                ready.set_result(None)  # the place goes to the next in line
                return
        self._running -= 1
