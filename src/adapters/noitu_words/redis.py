"""The additions store in Redis (NOITU_STORE=redis): a list of changes that only grows,
so a change's number is its place in the list. Persisted as the operator's Redis is."""

from __future__ import annotations

import msgspec

from noitu.adapters.redis.client import RedisLink
from noitu.domain.noitu.additions import Action, WordChange


class _Change(msgspec.Struct, array_like=True):
    word: str
    action: str
    tier: int
    at_ms: int


class RedisAdditions:
    def __init__(self, link: RedisLink) -> None:
        self._link = link
        self._key = f"{link.prefix}words:changes"

    async def append(self, change: WordChange) -> int:
        blob = msgspec.json.encode(
            _Change(change.word, change.action.value, change.tier, change.at_ms)
        ).decode()
        return int(await self._link.run(self._link.client.rpush(self._key, blob)))

    async def changes_since(self, version: int, limit: int) -> list[WordChange]:
        if limit <= 0:
            return []
        blobs = await self._link.run(
            self._link.client.lrange(self._key, version, version + limit - 1)
        )
        changes = []
        for blob in blobs:
            item = msgspec.json.decode(blob, type=_Change)
            changes.append(WordChange(item.word, Action(item.action), item.tier, item.at_ms))
        return changes
