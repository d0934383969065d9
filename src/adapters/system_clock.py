"""The real clock."""

from __future__ import annotations

import time


class SystemClock:
    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000
