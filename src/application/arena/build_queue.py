"""The global build queue (spec B10): at most one build per core at once, whoever asks.

A build (g++, javac, a JAR's check) may take a whole core for up to 60 s, and an owner
key is free, so without a global cap a few clients could hold every core. Builds past
the cap wait in the fair order of `fair_order.py`: each comes with its tags (the owner
key and the client address that uploaded it) and takes its rank among the builds
running or waiting then, so a client's tenth upload waits behind another's first even
when it came earlier. Each build learns how long it waited, which the upload's answer
tells its author.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from itertools import count

from noitu.application.arena.fair_order import Waiting, in_fair_order, rank_among
from noitu.application.ports import Clock


@dataclass(slots=True)
class BuildTurn:
    #: How long this build waited for its turn (ms, by the clock).
    waited_ms: int = 0


@dataclass(frozen=True, slots=True, eq=False)
class _Waiter:
    place: Waiting
    ready: asyncio.Future[None]


class BuildQueue:
    def __init__(self, builds_at_once: int, clock: Clock) -> None:
        if builds_at_once < 1:
            raise ValueError("a build queue needs room for one build")
        self.builds_at_once = builds_at_once
        self._clock = clock
        self._running: list[Waiting] = []
        self._waiting: list[_Waiter] = []
        self._arrivals = count()

    @property
    def running(self) -> int:
        return len(self._running)

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    @asynccontextmanager
    async def turn(self, tags: frozenset[str] = frozenset()) -> AsyncIterator[BuildTurn]:
        """Wait for a free place in the fair order, hold it while the body builds.
        `tags`: who the build counts for (`fair_order.who`). A waiter that is cancelled
        leaves the queue (and hands on a place it was just given)."""
        asked = self._clock.now_ms()
        others = (entry.tags for entry in (*self._running, *(w.place for w in self._waiting)))
        arrival = next(self._arrivals)
        place = Waiting(str(arrival), tags, rank_among(tags, others), arrival)
        if len(self._running) < self.builds_at_once and not self._waiting:
            self._running.append(place)
        else:
            waiter = _Waiter(place, asyncio.get_running_loop().create_future())
            self._waiting.append(waiter)
            try:
                await waiter.ready  # the place is handed over already counted
            except BaseException:
                if waiter.ready.done() and not waiter.ready.cancelled():
                    self._release(place)  # given a place, then cancelled: pass it on
                else:
                    self._waiting.remove(waiter)
                raise
        try:
            yield BuildTurn(self._clock.now_ms() - asked)
        finally:
            self._release(place)

    def _release(self, place: Waiting) -> None:
        self._running.remove(place)
        # The place goes to the first in the fair order still waiting (a waiter whose
        # task was cancelled leaves the line by itself).
        line = {waiter.place: waiter for waiter in self._waiting if not waiter.ready.done()}
        if line:
            waiter = line[in_fair_order(line)[0]]
            self._waiting.remove(waiter)
            self._running.append(waiter.place)
            waiter.ready.set_result(None)
