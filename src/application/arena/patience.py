"""Patience: a store's write tried again while the store is away (spec B9 "Faults").

A write that fails with one of the errors a caller names (by default the arena
database's `StorageUnavailable`) is tried again after a pause that starts at
`FIRST_PAUSE_MS` and doubles up to `LONGEST_PAUSE_MS`; it gives up (raising the last
error) when a try at `within_ms` after the first failed too, if the caller bounds it;
otherwise it waits as long as the process lives. Whatever waits is told to `tell` (the first failure, then every
`TELL_EVERY`-th try, and the success after a wait), so an operator sees what is held in
memory. Time comes from the `Clock` and pauses from the `Timer`: a fake pair drives it
in tests.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

from noitu.application.arena.live_match import Timer
from noitu.application.arena.storage import StorageUnavailable
from noitu.application.ports import Clock

T = TypeVar("T")

FIRST_PAUSE_MS = 500
LONGEST_PAUSE_MS = 30_000
#: After the first failure, every how many tries the wait is told again.
TELL_EVERY = 10


class WaitTeller(Protocol):
    def __call__(
        self, what: str, *, tries: int, waited_ms: int, error: BaseException | None
    ) -> None:
        """`error` is the last failure while it waits, None once the write went
        through after waiting."""
        ...


def tell_nobody(
    what: str, *, tries: int, waited_ms: int, error: BaseException | None
) -> None:
    """The default teller: tells nothing."""


class Patience:
    def __init__(
        self,
        clock: Clock,
        timer: Timer,
        tell: WaitTeller = tell_nobody,
        *,
        first_pause_ms: int = FIRST_PAUSE_MS,
        longest_pause_ms: int = LONGEST_PAUSE_MS,
    ) -> None:
        self._clock = clock
        self._timer = timer
        self._tell = tell
        self._first = first_pause_ms
        self._longest = longest_pause_ms

    def pauses(self) -> Callable[[], int]:
        """The pauses between tries, one per call: first, doubled, capped."""
        pause = self._first

        def next_pause() -> int:
            nonlocal pause
            current = pause
            pause = min(pause * 2, self._longest)
            return current

        return next_pause

    async def __call__(
        self,
        what: str,
        write: Callable[[], Awaitable[T]],
        *,
        within_ms: int | None = None,
        retry_on: tuple[type[BaseException], ...] = (StorageUnavailable,),
    ) -> T:
        """`write()` until it returns; its result. With `within_ms`, the last try is
        made that long after the first, and its failure is raised."""
        started = self._clock.now_ms()
        next_pause = self.pauses()
        tries = 0
        while True:
            tries += 1
            try:
                result = await write()
            except retry_on as error:
                now = self._clock.now_ms()
                pause = next_pause()
                if within_ms is not None:
                    left = started + within_ms - now
                    if left <= 0:
                        raise
                    pause = min(pause, left)  # the last try comes at the bound itself
                if tries == 1 or tries % TELL_EVERY == 0:
                    self._tell(what, tries=tries, waited_ms=now - started, error=error)
                await self._timer.sleep_until(now + pause)
                continue
            if tries > 1:
                self._tell(
                    what, tries=tries, waited_ms=self._clock.now_ms() - started, error=None
                )
            return result
