"""`ReplayJournal` on Redis (NOITU_ARENA_QUEUE=saq, spec B9): a list per match,
`{prefix}arena:journal:<match id>`, one item per append: its events, one a line, in one
zstd frame (spec B14; an item that is not a frame, from a worker before B14, is one
event). An append is one RPUSH and a PEXPIRE, sent together in a MULTI, so a list never
outlives its ttl without its events or gets half an append. Every call goes through
`RedisLink.run`: Redis away is `Busy`."""

from __future__ import annotations

from collections.abc import Sequence

from redis.client import NEVER_DECODE

from noitu.adapters.arena import replay_codec
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
            pipe.rpush(key, replay_codec.compress(b"\n".join(events)))
            pipe.pexpire(key, self._ttl_ms)
            await self._link.run(pipe.execute())

    async def events(self, match_id: str) -> list[bytes]:
        # The link's client decodes answers as text; a frame is bytes (redis-py's
        # public NEVER_DECODE option reads this one answer undecoded).
        items = await self._link.run(
            self._link.client.execute_command(
                "LRANGE", self._key(match_id), 0, -1, **{NEVER_DECODE: True}
            )
        )
        events: list[bytes] = []
        for item in items:
            if replay_codec.is_compressed(item):
                events += replay_codec.plain(item).split(b"\n")
            else:
                events.append(item)
        return events

    async def drop(self, match_id: str) -> None:
        await self._link.run(self._link.client.delete(self._key(match_id)))
