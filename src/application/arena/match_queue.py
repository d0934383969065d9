"""The match queue: the promise of 0.5 CPU per thinking bot, kept (issue 12, spec B2).

A match has one side thinking at a time, and a thinking bot may use 0.5 CPU, so a match
needs about half a core. The queue lets at most `slots` matches play at once — by
default twice the cores, less one half-core pair for the server itself — and the others
wait in order, each able to read its place. A bot can then never lose on time because
the server ran more matches than the machine's cores can honour.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

CPU_PER_THINKING_BOT = 0.5


def default_slots(cores: int) -> int:
    """Matches at once on `cores` cores: each needs 0.5 CPU; one core's worth of
    matches less keeps room for the server (and for compiles), never below one."""
    return max(1, int(cores / CPU_PER_THINKING_BOT) - 2)


class MatchQueue:
    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError("a match queue needs at least one slot")
        self.slots = slots
        self._playing: set[str] = set()
        self._waiting: list[str] = []  # match ids, first come first served
        self._changed = asyncio.Condition()
        self._listeners: list[Callable[[], None]] = []

    def on_change(self, listener: Callable[[], None]) -> None:
        """Called after every change of who plays and who waits (rooms re-send their
        snapshot, which shows the place in the queue)."""
        self._listeners.append(listener)

    def place(self, match_id: str) -> int:
        """0 while the match plays (or is unknown), else its place in the queue from 1."""
        try:
            return self._waiting.index(match_id) + 1
        except ValueError:
            return 0

    @property
    def playing(self) -> int:
        return len(self._playing)

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def _notify(self) -> None:
        for listener in self._listeners:
            listener()

    @asynccontextmanager
    async def slot(self, match_id: str) -> AsyncIterator[None]:
        """Wait for a free slot in order, hold it while the body plays the match. A match
        whose waiter is cancelled (its room closed) leaves the queue."""
        async with self._changed:
            self._waiting.append(match_id)
            self._notify()
            try:
                await self._changed.wait_for(
                    lambda: len(self._playing) < self.slots and self._waiting[0] == match_id
                )
            except BaseException:
                self._waiting.remove(match_id)
                self._changed.notify_all()
                self._notify()
                raise
            self._waiting.pop(0)
            self._playing.add(match_id)
            self._changed.notify_all()
            self._notify()
        try:
            yield
        finally:
            async with self._changed:
                self._playing.discard(match_id)
                self._changed.notify_all()
            self._notify()
