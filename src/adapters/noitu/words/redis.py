"""The additions and reports stores in Redis (NOITU_STORE=redis): a list of changes that only grows,
so a change's number is its place in the list. Persisted as the operator's Redis is."""

from __future__ import annotations

import msgspec

from noitu.adapters.redis.client import RedisLink
from noitu.domain.noitu.additions import Action, WordChange
from noitu.domain.noitu.reports import DAY_MS, Filed, PendingWord, Receipt, Report


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


# KEYS: the user's daily count, the rejected set, the pending zset (scored by arrival)
# ARGV: word, user, now, cap, max pending, key prefix of a word's hash and reporters,
#       the daily count's time to live (s), the report's chat ("" when none)
# Answers {-1} past the cap, {0} for a rejected word, else {1, new, reporters, first,
# last, message id or -1, shown}.
FILE_SCRIPT = """
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used >= tonumber(ARGV[4]) then return {-1} end
redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[7])
local word = ARGV[1]
if redis.call('SISMEMBER', KEYS[2], word) == 1 then return {0} end
local hash = ARGV[6] .. 'report:' .. word
local users = ARGV[6] .. 'reporters:' .. word
local new = 0
if redis.call('ZSCORE', KEYS[3], word) == false then
  new = 1
  local seq = redis.call('INCR', ARGV[6] .. 'pending_seq')
  redis.call('ZADD', KEYS[3], seq, word)
  redis.call('HSET', hash, 'first', ARGV[3], 'shown', 0)
  redis.call('DEL', users)
end
redis.call('HSET', hash, 'last', ARGV[3])
redis.call('HSET', users, ARGV[2], ARGV[8])
if new == 1 and redis.call('ZCARD', KEYS[3]) > tonumber(ARGV[5]) then
  local start = 0
  while true do
    local batch = redis.call('ZRANGE', KEYS[3], start, start + 99)
    if #batch == 0 then break end
    local dropped = false
    for _, other in ipairs(batch) do
      if other ~= word and redis.call('HLEN', ARGV[6] .. 'reporters:' .. other) <= 1 then
        redis.call('ZREM', KEYS[3], other)
        redis.call('DEL', ARGV[6] .. 'report:' .. other, ARGV[6] .. 'reporters:' .. other)
        dropped = true
        break
      end
    end
    if dropped then break end
    start = start + 100
  end
end
local fields = redis.call('HMGET', hash, 'first', 'last', 'message', 'shown')
return {1, new, redis.call('HLEN', users), tonumber(fields[1]), tonumber(fields[2]),
        tonumber(fields[3] or '-1'), tonumber(fields[4] or '0')}
"""


class RedisReports:
    def __init__(self, link: RedisLink) -> None:
        self._link = link
        self._base = f"{link.prefix}words:"
        self._pending = f"{self._base}pending"
        self._rejected = f"{self._base}rejected"
        self._file = link.client.register_script(FILE_SCRIPT)

    def _daily(self, user_id: int, day: int) -> str:
        return f"{self._base}daily:{user_id}:{day}"

    async def file(self, report: Report, day: int, daily_cap: int, max_pending: int) -> Receipt:
        answer = await self._link.run(
            self._file(
                keys=[self._daily(report.user_id, day), self._rejected, self._pending],
                args=[report.word, report.user_id, report.at_ms, daily_cap, max_pending,
                      self._base, 2 * DAY_MS // 1000,
                      "" if report.chat_id is None else report.chat_id],
            )
        )
        if answer[0] == -1:
            return Receipt(Filed.TOO_MANY)
        if answer[0] == 0:
            return Receipt(Filed.REJECTED)
        _, new, reporters, first, last, message, shown = answer
        pending = PendingWord(
            report.word, int(reporters), int(first), int(last),
            None if int(message) < 0 else int(message), int(shown),
        )
        return Receipt(Filed.PENDING, pending, bool(new))

    async def _read(self, word: str) -> PendingWord | None:
        client = self._link.client
        async with client.pipeline(transaction=False) as pipe:
            pipe.hmget(f"{self._base}report:{word}", "first", "last", "message", "shown")
            pipe.hlen(f"{self._base}reporters:{word}")
            (first, last, message, shown), reporters = await self._link.run(pipe.execute())
        if first is None:
            return None
        return PendingWord(
            word, int(reporters), int(first), int(last),
            None if message is None else int(message), int(shown or 0),
        )

    async def pending(self) -> list[PendingWord]:
        words = await self._link.run(self._link.client.zrange(self._pending, 0, -1))
        found = [await self._read(word) for word in words]
        return [item for item in found if item is not None]

    async def settle(self, word: str, rejected: bool) -> PendingWord | None:
        found = await self._read(word)
        client = self._link.client
        async with client.pipeline(transaction=True) as pipe:
            pipe.zrem(self._pending, word)
            pipe.delete(f"{self._base}report:{word}", f"{self._base}reporters:{word}")
            if rejected:
                pipe.sadd(self._rejected, word)
            else:
                pipe.srem(self._rejected, word)
            await self._link.run(pipe.execute())
        return found

    async def shown(self, word: str, message_id: int, at_ms: int) -> None:
        key = f"{self._base}report:{word}"
        if await self._link.run(self._link.client.exists(key)):
            await self._link.run(
                self._link.client.hset(key, mapping={"message": message_id, "shown": at_ms})
            )


REFUSAL_KEEP_S = 3_600  # a member's last refused word is reportable for an hour


class RedisRefusals:
    def __init__(self, link: RedisLink) -> None:
        self._link = link
        self._base = f"{link.prefix}words:refused:"

    async def remember(self, member: str, word: str) -> None:
        await self._link.run(self._link.client.set(self._base + member, word, ex=REFUSAL_KEEP_S))

    async def recall(self, member: str) -> str | None:
        return await self._link.run(self._link.client.get(self._base + member))
