"""`RoomBoard` on Redis (NOITU_ARENA_QUEUE=saq, spec B9): every process of the cluster
reads and changes the same rooms.

| key (after the link's prefix) | type       | holds                         | lives            |
|-------------------------------|------------|-------------------------------|------------------|
| `arena:board:card:<code>`     | string     | the room's card, msgspec JSON | `CARD_TTL_MS`    |
| `arena:board:cards`           | sorted set | the codes, by `created_ms`    | always           |
| `arena:board:hold:<code>`     | string     | a random token: the holder    | `HOLD_TTL_MS`    |
| `arena:worker:<worker>`       | string     | the worker's matches at once  | the beat's ttl   |

- The card is what counts: the index only orders them. `cards()` reads the index, then
  every card with one MGET; a code whose card is gone (it ran out, a crash between two
  writes) is dropped from the index then, by a script that drops only codes whose card
  is still missing (one added again meanwhile stays).
- A card lives `CARD_TTL_MS` (2 hours) after its last write (add or put), so the rooms
  of a cluster that died are forgotten. The app forgets a waiting or finished room after
  30 minutes; a room kept longer without a change (a very long match) must be put again
  within that time.
- `hold(code)`: the waiters of one process queue on a local lock first (so they do not
  all poll Redis), then SET NX PX with a random token, polled every few ms until
  `hold_within_s` has passed (then `Busy`), released by a compare-and-delete (a holder
  whose hold ran out never deletes its successor's). A holder that dies frees the room
  after `HOLD_TTL_MS`; so must a living one's change: a hold is for one short change.
- Every call goes through `RedisLink.run`: Redis away is `Busy`. A hold's release that
  fails is dropped (the hold runs out by itself).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import msgspec

from noitu.adapters.keyed_locks import KeyedLocks
from noitu.adapters.redis.client import RedisLink
from noitu.application.arena.rooms.cluster_ports import HOLD_WITHIN_S
from noitu.application.errors import Busy
from noitu.domain.arena.room import Room

#: A card is forgotten this long after its last write (a dead cluster's rooms go).
CARD_TTL_MS = 2 * 3600 * 1000
#: A hold whose holder died is freed after this long.
HOLD_TTL_MS = 5_000
#: The first and the longest pause between two tries of a held room.
FIRST_RETRY_S, LAST_RETRY_S = 0.005, 0.02

# Keep a new card unless its code is taken, and index it.
# KEYS: the card, the index; ARGV: the card, its ttl (ms), created_ms, the code
ADD = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
  return 1
end
return 0
"""

# Drop from the index the codes whose card is (still) missing.
# KEYS: the cards, then the index last; ARGV: their codes, in the same order
PRUNE = """
local index = KEYS[#KEYS]
for i, code in ipairs(ARGV) do
  if redis.call('EXISTS', KEYS[i]) == 0 then
    redis.call('ZREM', index, code)
  end
end
return 0
"""

# Delete a hold only if it is still ours.
# KEYS: the hold; ARGV: our token
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(Room)


class RedisRoomBoard:
    def __init__(
        self,
        link: RedisLink,
        hold_within_s: float = HOLD_WITHIN_S,
        *,
        hold_ttl_ms: int = HOLD_TTL_MS,
        card_ttl_ms: int = CARD_TTL_MS,
    ) -> None:
        self._link = link
        self._hold_within_s = hold_within_s
        self._hold_ttl_ms = hold_ttl_ms
        self._card_ttl_ms = card_ttl_ms
        self._prefix = f"{link.prefix}arena:board:"
        self._index = f"{self._prefix}cards"
        self._workers = f"{link.prefix}arena:worker:"
        self._local = KeyedLocks()
        self._add = link.client.register_script(ADD)
        self._prune = link.client.register_script(PRUNE)
        self._release = link.client.register_script(RELEASE)

    def _card_key(self, code: str) -> str:
        return f"{self._prefix}card:{code}"

    async def add(self, card: Room) -> bool:
        added = await self._link.run(
            self._add(
                keys=[self._card_key(card.code), self._index],
                args=[_encoder.encode(card), self._card_ttl_ms, card.created_ms, card.code],
            )
        )
        return int(added) == 1

    async def get(self, code: str) -> Room | None:
        raw = await self._link.run(self._link.client.get(self._card_key(code)))
        return None if raw is None else _decoder.decode(raw)

    async def put(self, card: Room) -> None:
        pipe = self._link.client.pipeline(transaction=True)
        pipe.set(self._card_key(card.code), _encoder.encode(card), px=self._card_ttl_ms)
        pipe.zadd(self._index, {card.code: card.created_ms})
        await self._link.run(pipe.execute())

    async def cards(self) -> list[Room]:
        client = self._link.client
        codes: list[str] = await self._link.run(client.zrange(self._index, 0, -1))
        if not codes:
            return []
        keys = [self._card_key(code) for code in codes]
        raws: list[str | None] = await self._link.run(client.mget(keys))
        gone = [i for i, raw in enumerate(raws) if raw is None]
        if gone:
            await self._link.run(
                self._prune(
                    keys=[keys[i] for i in gone] + [self._index], args=[codes[i] for i in gone]
                )
            )
        return [_decoder.decode(raw) for raw in raws if raw is not None]

    async def remove(self, code: str) -> None:
        pipe = self._link.client.pipeline(transaction=True)
        pipe.delete(self._card_key(code))
        pipe.zrem(self._index, code)
        await self._link.run(pipe.execute())

    def hold(self, code: str) -> AbstractAsyncContextManager[None]:
        return self._hold(code)

    @asynccontextmanager
    async def _hold(self, code: str) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._hold_within_s
        client = self._link.client
        async with self._local.hold(code, self._hold_within_s):
            key = f"{self._prefix}hold:{code}"
            token = secrets.token_hex(16)
            pause = FIRST_RETRY_S
            while not await self._link.run(
                client.set(key, token, nx=True, px=self._hold_ttl_ms)
            ):
                if loop.time() + pause > deadline:
                    raise Busy()
                await asyncio.sleep(pause)
                pause = min(pause * 2, LAST_RETRY_S)
            try:
                yield
            finally:
                try:
                    await self._link.run(self._release(keys=[key], args=[token]))
                except Busy:
                    pass  # Redis is away: the hold runs out by itself

    async def beat(self, worker: str, ttl_ms: int, matches: int = 0) -> None:
        await self._link.run(
            self._link.client.set(f"{self._workers}{worker}", str(matches), px=ttl_ms)
        )

    async def match_slots(self) -> int:
        return await self._link.run(self._match_slots())

    async def _match_slots(self) -> int:
        client = self._link.client
        keys = [key async for key in client.scan_iter(match=f"{self._workers}*", count=500)]
        if not keys:
            return 0
        values = await client.mget(keys)
        return sum(int(value) for value in values if value is not None and value.isdigit())

    async def alive(self, worker: str) -> bool:
        found = await self._link.run(self._link.client.exists(f"{self._workers}{worker}"))
        return int(found) > 0
