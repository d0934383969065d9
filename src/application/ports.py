"""Ports both games need: the time, and work that runs after the answer."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, Protocol


class Clock(Protocol):
    def now_ms(self) -> int:
        """Milliseconds since the Unix epoch."""
        ...


class Background(Protocol):
    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run work without making the caller wait for it."""
        ...
