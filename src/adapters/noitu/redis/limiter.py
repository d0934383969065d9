"""The StartRateLimiter port on Redis."""

from __future__ import annotations

import secrets

from noitu.adapters.noitu.redis.scripts import ALLOW_START
from noitu.adapters.redis.client import RedisLink
from noitu.domain.noitu.rules import SessionLimits


class RedisStartRateLimiter:
    """The StartRateLimiter port on Redis: at most `max_starts` per user in any sliding
    `window_ms`, counted in one sorted set per user; a refused start is not counted."""

    def __init__(self, link: RedisLink, limits: SessionLimits) -> None:
        self._link = link
        self._max_starts = limits.starts_per_window
        self._window_ms = limits.start_window_ms
        self._allow = link.client.register_script(ALLOW_START)

    async def allow(self, user_id: int, now_ms: int) -> bool:
        allowed = await self._link.run(
            self._allow(
                keys=[f"{self._link.prefix}starts:{user_id}"],
                args=[now_ms, self._window_ms, self._max_starts, secrets.token_hex(8)],
            )
        )
        return bool(allowed)
