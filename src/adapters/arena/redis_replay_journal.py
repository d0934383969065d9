"""`ReplayJournal` on Redis (NOITU_ARENA_QUEUE=saq, spec B9): a list per match,
`{prefix}arena:journal:<match id>`, one event per item. An append is one RPUSH of the
events and a PEXPIRE, sent together in a MULTI, so a list never outlives its ttl
without its events or gets half an append. Every call goes through `RedisLink.run`:
Redis away is `Busy`."""

from __future__ import annotations

from collections.abc import Sequence

from noitu.adapters.redis.client import RedisLink
from noitu.application.arena.rooms.cluster_ports import REPLAY_JOURNAL_TTL_MS

__all__ = ["RedisReplayJournal"]


class RedisReplayJournal:
    def __init__(self, link: RedisLink, ttl_ms: int = REPLAY_JOURNAL_TTL_MS) -> None:
        self._link = link
        self._ttl_ms = ttl_ms
        self._prefix = f"{link.prefix}arena:journal:"

    def _key(self, match_id: str) -> str:
        return f"{self._prefix}{match_id}"

    async def append(self, match_id: str, events: Sequence[bytes]) -> None:
        if not events:
            return
        key = self._key(match_id)
        async with self._link.client.pipeline(transaction=True) as pipe:
            pipe.rpush(key, *events)
            pipe.pexpire(key, self._ttl_ms)
            await self._link.run(pipe.execute())

    async def events(self, match_id: str) -> list[bytes]:
        items = await self._link.run(self._link.client.lrange(self._key(match_id), 0, -1))
        return [item if isinstance(item, bytes) else item.encode() for item in items]

    async def drop(self, match_id: str) -> None:
        await self._link.run(self._link.client.delete(self._key(match_id)))
