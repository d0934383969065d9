"""The room ports on Redis (spec B10 "Several instances"): any instance answers any
room and serves its feed.

Keys, all under the link's prefix (`noitu:` by default):

| Key | Type | Holds | Expires |
|---|---|---|---|
| `room:<card>` | hash | `v` version, `d` snapshot (JSON), `c` chat id | `ROOM_TTL_MS` after its last write |
| `rooms` | set | every live room's card key (the 500 cap) | empty (so gone) with no room |
| `rooms:chat:<chat>` | set | the chat's live rooms (the 3 cap) | `ROOM_TTL_MS` after its rooms' last write |
| `rooms:due` | sorted set | rooms scored by when something is next due in them | empty with no room |
| `member:<credential>` | string | `<card>` TAB `<user id>` | `CREDENTIAL_TTL_MS`; deleted when the member leaves |
| `seat:<card>:<user>` | string | the member's current credential | idem |
| `card:<chat>:<message>` | hash | `t` topic, `made`, `last` (ms) | 30 days after the last Play |
| `board:<chat>` | hash | user id -> JSON [name, games, wins, best] | never |
| `lock:room:<card>` | string | who holds the room's lock | `LOCK_TTL_MS` |

Every change of a room is published on the channel `room-feed` (the message is the
card key); each instance listens once and wakes its local subscribers.

A room closes (`remove`) once it has had no member and no game for 10 minutes; members
leave by themselves after 10 minutes away (B10 revised), and their credentials go with
them, so nothing of a room outlives it. The rooms' TTL is only the backstop for a store
no instance looks after any more: a live room is written far more often (its feeds'
holds are renewed every 20 s; without feeds its members leave within 10 minutes).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import structlog

from noitu.adapters.noitu.memory_rooms import InMemoryRoomFeed
from noitu.adapters.noitu.redis.codec import SnapshotError
from noitu.adapters.noitu.redis.lock import RedisLocks
from noitu.adapters.noitu.redis.room_codec import RoomCodec
from noitu.adapters.redis.client import UNAVAILABLE, RedisLink
from noitu.application.errors import Busy
from noitu.application.noitu.rooms.ports import (
    AddRoom,
    LeaderboardEntry,
    LeaderboardRow,
    ranked,
)
from noitu.application.noitu.rooms.record import MemberSeat, RoomCard, RoomRecord
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.rules import TurnClock

log = structlog.get_logger("noitu.redis")

LOCK_TTL_MS = 5_000
LOCK_WAIT_S = 2.0
CREDENTIAL_TTL_MS = 30 * 24 * 3600 * 1000
ROOM_TTL_MS = 3600 * 1000  # a room not written for an hour: no instance looks after it
FEED_CHANNEL = "room-feed"

# KEYS: room, rooms, chat rooms. ARGV: card key, snapshot, chat, max rooms, max per
# chat, ttl ms. A chat's room whose key expired (no instance looked after it) does not
# count against the chat's cap.
_ADD = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('SCARD', KEYS[3]) >= tonumber(ARGV[5]) then
  local prefix = string.sub(KEYS[1], 1, #KEYS[1] - #ARGV[1] - 5)
  for _, key in ipairs(redis.call('SMEMBERS', KEYS[3])) do
    if redis.call('EXISTS', prefix .. 'room:' .. key) == 0 then
      redis.call('SREM', KEYS[3], key)
      redis.call('SREM', KEYS[2], key)
    end
  end
  if redis.call('SCARD', KEYS[3]) >= tonumber(ARGV[5]) then return 1 end
end
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 2 end
redis.call('HSET', KEYS[1], 'v', 1, 'd', ARGV[2], 'c', ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[6]))
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[1])
redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[6]))
return 0
"""

# KEYS: room, due, chat rooms. ARGV: card key, expected version, snapshot, due ms ('' for
# none), ttl ms. Returns the new version, 0 when the room is gone, -1 when another
# write came first.
_SAVE = """
local version = redis.call('HGET', KEYS[1], 'v')
if not version then return 0 end
if tonumber(version) ~= tonumber(ARGV[2]) then return -1 end
local new = tonumber(version) + 1
redis.call('HSET', KEYS[1], 'v', new, 'd', ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[5]))
redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[5]))
if ARGV[4] == '' then
  redis.call('ZREM', KEYS[2], ARGV[1])
else
  redis.call('ZADD', KEYS[2], tonumber(ARGV[4]), ARGV[1])
end
return new
"""

# KEYS: room, rooms, due, chat rooms (or the room again). ARGV: card key.
_REMOVE = """
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('SREM', KEYS[4], ARGV[1])
return 1
"""

# KEYS: seat, new member. ARGV: prefix, credential, seat text, ttl ms.
_REPLACE_CREDENTIAL = """
local old = redis.call('GET', KEYS[1])
if old then redis.call('DEL', ARGV[1] .. 'member:' .. old) end
redis.call('SET', KEYS[2], ARGV[3], 'PX', tonumber(ARGV[4]))
redis.call('SET', KEYS[1], ARGV[2], 'PX', tonumber(ARGV[4]))
return 1
"""

# KEYS: seat. ARGV: prefix.
_REVOKE_CREDENTIAL = """
local old = redis.call('GET', KEYS[1])
if old then redis.call('DEL', ARGV[1] .. 'member:' .. old) end
redis.call('DEL', KEYS[1])
return 1
"""

# KEYS: board. ARGV: per entry user, name, won (1/0), score.
_RECORD_BOARD = """
for i = 1, #ARGV, 4 do
  local row = redis.call('HGET', KEYS[1], ARGV[i])
  local games, wins, best = 0, 0, 0
  if row then
    local t = cjson.decode(row)
    games, wins, best = t[2], t[3], t[4]
  end
  local score = tonumber(ARGV[i + 3])
  if score < best then score = best end
  redis.call('HSET', KEYS[1], ARGV[i],
    cjson.encode({ARGV[i + 1], games + 1, wins + tonumber(ARGV[i + 2]), score}))
end
return 1
"""


class RedisRoomStore:
    def __init__(
        self, link: RedisLink, lexicon: Lexicon, turn_clock: TurnClock, *,
        lock_ttl_ms: int = LOCK_TTL_MS, lock_wait_s: float = LOCK_WAIT_S,
        room_ttl_ms: int = ROOM_TTL_MS,
    ) -> None:
        self._link = link
        self._room_ttl_ms = room_ttl_ms
        self._redis = link.client
        self._p = link.prefix
        self._codec = RoomCodec(lexicon, turn_clock)
        self._locks = RedisLocks(link, lock_ttl_ms, lock_wait_s)
        self._rooms_key = f"{self._p}rooms"
        self._due_key = f"{self._p}rooms:due"
        client = link.client
        self._add = client.register_script(_ADD)
        self._save = client.register_script(_SAVE)
        self._remove = client.register_script(_REMOVE)

    def _room_key(self, key: str) -> str:
        return f"{self._p}room:{key}"

    def _chat_key(self, chat_id: int | str) -> str:
        return f"{self._p}rooms:chat:{chat_id}"

    def lock(self, key: str) -> AbstractAsyncContextManager[None]:
        return self._locks.hold(f"room:{key}")

    async def get(self, key: str) -> RoomRecord | None:
        version, data = await self._link.run(self._redis.hmget(self._room_key(key), ["v", "d"]))
        if version is None or data is None:
            return None
        try:
            return self._codec.decode(key, data, int(version))
        except SnapshotError as error:
            log.warning("room_unreadable", room=key, problem=str(error))
            return None

    async def add(self, record: RoomRecord, max_rooms: int, max_per_chat: int) -> AddRoom:
        outcome = int(await self._link.run(self._add(
            keys=[self._room_key(record.key), self._rooms_key, self._chat_key(record.chat_id)],
            args=[record.key, self._codec.encode(record), record.chat_id, max_rooms,
                  max_per_chat, self._room_ttl_ms],
        )))
        if outcome == 0:
            record.version = 1
        return (AddRoom.ADDED, AddRoom.TOO_MANY_IN_CHAT, AddRoom.TOO_MANY)[outcome]

    async def save(self, record: RoomRecord, due_ms: int | None) -> None:
        """Write a changed room back; refused (`Busy`) when someone else wrote it since
        it was read, so no update is lost. A room that is gone is not brought back."""
        result = int(await self._link.run(self._save(
            keys=[self._room_key(record.key), self._due_key, self._chat_key(record.chat_id)],
            args=[record.key, record.version, self._codec.encode(record),
                  "" if due_ms is None else due_ms, self._room_ttl_ms],
        )))
        if result < 0:
            log.warning("room_write_conflict", room=record.key, version=record.version)
            raise Busy()
        if result > 0:
            record.version = result

    async def remove(self, key: str) -> None:
        chat = await self._link.run(self._redis.hget(self._room_key(key), "c"))
        if chat is None:  # the room's key expired: its chat is in the card key
            chat = _chat_of(key)
        await self._link.run(self._remove(
            keys=[self._room_key(key), self._rooms_key, self._due_key,
                  self._chat_key(chat) if chat is not None else self._room_key(key)],
            args=[key],
        ))

    async def due(self, now_ms: int) -> list[str]:
        return list(await self._link.run(
            self._redis.zrangebyscore(self._due_key, "-inf", now_ms)
        ))

    async def next_due(self) -> int | None:
        first = await self._link.run(self._redis.zrange(self._due_key, 0, 0, withscores=True))
        return int(first[0][1]) if first else None

    async def keys(self) -> list[str]:
        return sorted(await self._link.run(self._redis.smembers(self._rooms_key)))

    async def count(self) -> int:
        return int(await self._link.run(self._redis.scard(self._rooms_key)))


def _chat_of(key: str) -> str | None:
    """The chat of a room's card key (`c:<chat>:<message>`, `GameMessage.key`)."""
    kind, _, rest = key.partition(":")
    chat, _, _ = rest.partition(":")
    return chat if kind == "c" and chat else None


class RedisMemberCredentials:
    def __init__(self, link: RedisLink, ttl_ms: int = CREDENTIAL_TTL_MS) -> None:
        self._link = link
        self._p = link.prefix
        self._ttl_ms = ttl_ms
        self._replace = link.client.register_script(_REPLACE_CREDENTIAL)
        self._revoke = link.client.register_script(_REVOKE_CREDENTIAL)

    def _seat_key(self, seat: MemberSeat) -> str:
        return f"{self._p}seat:{seat.room_key}:{seat.user_id}"

    async def replace(self, credential: str, seat: MemberSeat) -> None:
        await self._link.run(self._replace(
            keys=[self._seat_key(seat), f"{self._p}member:{credential}"],
            args=[self._p, credential, f"{seat.room_key}\t{seat.user_id}", self._ttl_ms],
        ))

    async def find(self, credential: str) -> MemberSeat | None:
        found = await self._link.run(self._link.client.get(f"{self._p}member:{credential}"))
        if found is None:
            return None
        key, _, user = found.rpartition("\t")
        return MemberSeat(key, int(user))

    async def revoke(self, seat: MemberSeat) -> None:
        await self._link.run(self._revoke(keys=[self._seat_key(seat)], args=[self._p]))


class RedisRoomCards:
    def __init__(self, link: RedisLink, keep_ms: int) -> None:
        self._link = link
        self._p = link.prefix
        self._keep_ms = keep_ms

    def _key(self, chat_id: int, message_id: int) -> str:
        return f"{self._p}card:{chat_id}:{message_id}"

    async def record(self, card: RoomCard) -> None:
        key = self._key(card.chat_id, card.message_id)
        pipe = self._link.client.pipeline(transaction=True)
        pipe.hset(key, mapping={"t": card.topic_id or 0, "made": card.made_ms,
                                "last": card.last_play_ms})
        pipe.pexpire(key, self._keep_ms)
        await self._link.run(pipe.execute())

    async def find(self, chat_id: int, message_id: int, now_ms: int) -> RoomCard | None:
        key = self._key(chat_id, message_id)
        found = await self._link.run(self._link.client.hgetall(key))
        if not found:
            return None
        if now_ms - int(found["last"]) > self._keep_ms:
            return None
        card = RoomCard(chat_id, message_id, int(found["t"]) or None, int(found["made"]), now_ms)
        await self.record(card)
        return card


class RedisChatLeaderboard:
    def __init__(self, link: RedisLink) -> None:
        self._link = link
        self._p = link.prefix
        self._record = link.client.register_script(_RECORD_BOARD)

    async def record(self, chat_id: int, entries: list[LeaderboardEntry]) -> None:
        if not entries:
            return
        args: list[object] = []
        for e in entries:
            args += [e.user_id, e.name, int(e.won), e.score]
        await self._link.run(self._record(keys=[f"{self._p}board:{chat_id}"], args=args))

    async def top(self, chat_id: int, limit: int) -> list[LeaderboardRow]:
        rows = await self._link.run(self._link.client.hgetall(f"{self._p}board:{chat_id}"))
        table = []
        for user, text in rows.items():
            name, games, wins, best = json.loads(text)
            table.append(LeaderboardRow(int(user), str(name), int(games), int(wins), int(best)))
        return ranked(table, limit)


class RedisRoomFeed:
    """Publishes each change on one channel; one listener per instance wakes the local
    subscribers. After a lost connection every local subscriber is woken (a full view
    is resent), since changes may have been missed meanwhile."""

    def __init__(self, link: RedisLink, retry_s: float = 1.0) -> None:
        self._link = link
        self._channel = f"{link.prefix}{FEED_CHANNEL}"
        self._local = InMemoryRoomFeed()
        self._retry_s = retry_s
        self._listener: asyncio.Task[None] | None = None
        self._ready: asyncio.Event | None = None

    async def publish(self, key: str) -> None:
        await self._link.run(self._link.client.publish(self._channel, key))

    @asynccontextmanager
    async def subscribe(self, key: str) -> AsyncIterator[AsyncIterator[None]]:
        await self._start()
        async with self._local.subscribe(key) as notices:
            yield notices

    async def _start(self) -> None:
        if self._listener is None or self._listener.done():
            self._ready = asyncio.Event()
            self._listener = asyncio.get_running_loop().create_task(self._listen())
        assert self._ready is not None
        await asyncio.wait_for(self._ready.wait(), timeout=5.0)

    async def _listen(self) -> None:
        assert self._ready is not None
        while True:
            pubsub = self._link.client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self._channel)
                self._ready.set()
                await self._local.publish_all()
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is not None and message.get("type") == "message":
                        await self._local.publish(message["data"])
            except UNAVAILABLE as error:
                log.warning("room_feed_reconnecting", error=f"{type(error).__name__}: {error}")
                await asyncio.sleep(self._retry_s)
            finally:
                try:
                    await pubsub.aclose()
                except UNAVAILABLE:
                    pass

    async def aclose(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            # Shutting down: whatever the listener died of no longer matters.
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
