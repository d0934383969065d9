"""The seen-updates memory of the Telegram webhook on Redis."""

from __future__ import annotations

from noitu.adapters.redis.client import RedisLink

UPDATE_TTL_S = 3_600


class RedisRecentUpdates:
    """Telegram update de-duplication across instances: with a webhook behind several
    instances, Telegram may deliver an update again (a retry after a slow answer); only
    the first delivery should be handled."""

    def __init__(self, link: RedisLink, ttl_s: int = UPDATE_TTL_S) -> None:
        self._link = link
        self._ttl_s = ttl_s

    async def first_time(self, update_id: int) -> bool:
        """True for the first delivery of an update, False for any repeat within the
        TTL. Raises `Busy` when Redis cannot be reached."""
        created = await self._link.run(
            self._link.client.set(
                f"{self._link.prefix}update:{update_id}", "1", nx=True, ex=self._ttl_s
            )
        )
        return bool(created)
