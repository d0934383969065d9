"""Ports both games need: the time, work that runs after the answer, and a bound on
how long to wait for an outside service."""

from __future__ import annotations

from collections.abc import Awaitable, Coroutine
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Clock(Protocol):
    def now_ms(self) -> int:
        """Milliseconds since the Unix epoch."""
        ...


class Background(Protocol):
    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run work without making the caller wait for it."""
        ...


class TimeLimit(Protocol):
    async def within(self, seconds: float, work: Awaitable[T]) -> T:
        """The work's result, or TimeoutError once `seconds` have passed without one
        (the work is then cancelled)."""
        ...
