"""The per-user start limit of one process: 10 starts in any sliding minute (B8)."""

from __future__ import annotations

from collections import deque

from noitu.domain.noitu.rules import SessionLimits


class InMemoryStartLimiter:
    PRUNE_EVERY = 1024

    def __init__(self, limits: SessionLimits) -> None:
        self._max_starts = limits.starts_per_window
        self._window_ms = limits.start_window_ms
        self._starts: dict[int, deque[int]] = {}
        self._calls = 0

    async def allow(self, user_id: int, now_ms: int) -> bool:
        self._calls += 1
        if self._calls % self.PRUNE_EVERY == 0:
            self._forget_idle(now_ms)
        starts = self._starts.setdefault(user_id, deque())
        while starts and now_ms - starts[0] >= self._window_ms:
            starts.popleft()
        if len(starts) >= self._max_starts:
            return False
        starts.append(now_ms)
        return True

    def _forget_idle(self, now_ms: int) -> None:
        """Drop users whose last start has left the window, so memory stays bounded."""
        window = self._window_ms
        for user_id in [u for u, s in self._starts.items() if not s or now_ms - s[-1] >= window]:
            del self._starts[user_id]
