"""The AddressLimiter port in one process (spec B10): per client address and action,
the times of the actions counted in the last window, in a deque each."""

from __future__ import annotations

from collections import deque

from noitu.application.arena.admission import ADDRESS_WINDOW_MS, AddressAction, AddressLimits


class InMemoryAddressLimiter:
    #: Every so many calls, addresses whose actions all left the window are forgotten,
    #: so the memory stays bounded by the addresses seen in one window.
    PRUNE_EVERY = 1024

    def __init__(self, limits: AddressLimits, window_ms: int = ADDRESS_WINDOW_MS) -> None:
        self._limits = limits
        self._window_ms = window_ms
        self._counted: dict[tuple[AddressAction, str], deque[int]] = {}
        self._calls = 0

    async def admit(self, action: AddressAction, address: str, now_ms: int) -> int | None:
        self._calls += 1
        if self._calls % self.PRUNE_EVERY == 0:
            self._forget_idle(now_ms)
        times = self._counted.setdefault((action, address), deque())
        while times and now_ms - times[0] >= self._window_ms:
            times.popleft()
        if len(times) >= self._limits.of(action):
            return times[0] + self._window_ms - now_ms
        times.append(now_ms)
        return None

    def _forget_idle(self, now_ms: int) -> None:
        window = self._window_ms
        idle = [k for k, times in self._counted.items() if not times or now_ms - times[-1] >= window]
        for key in idle:
            del self._counted[key]
