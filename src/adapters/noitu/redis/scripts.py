"""The Lua scripts of the Redis adapters: each write is one atomic step on Redis's own
clock (Redis >= 5 replicates a script's effects, so a script may write after reading
TIME)."""

from __future__ import annotations

# Redis's clock in ms, inside a script.
_NOW = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
"""

# KEYS: session, sessions, playing, user, owner, seq
# ARGV: id, version, snapshot, playing (1/0), user id, owner, ttl ms, user ttl ms, max playing
ADD = _NOW + """
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 1  -- a retried call whose first attempt went through
end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[9]) then
  return 0
end
local ttl = tonumber(ARGV[7])
local expires = now + ttl
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'd', ARGV[3], 'p', ARGV[4], 'u', ARGV[5], 'o', ARGV[6])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('ZADD', KEYS[2], expires, ARGV[1])
if ARGV[4] == '1' then
  redis.call('ZADD', KEYS[3], expires, ARGV[1])
end
redis.call('ZADD', KEYS[4], redis.call('INCR', KEYS[6]), ARGV[1])
redis.call('PEXPIRE', KEYS[4], tonumber(ARGV[8]))
redis.call('SET', KEYS[5], ARGV[1], 'PX', ttl)
return 1
"""

# KEYS: session, sessions, playing, user, owner
# ARGV: id, expected version, snapshot, playing (1/0), ttl ms, user ttl ms
# Returns the new version; 0 when the session is gone; when another write came first,
# the stored version and snapshot (so the writer retries on them with no second read).
SAVE = _NOW + """
local version = redis.call('HGET', KEYS[1], 'v')
if not version then
  return 0
end
if version ~= ARGV[2] then
  return {version, redis.call('HGET', KEYS[1], 'd')}
end
local ttl = tonumber(ARGV[5])
local expires = now + ttl
local new_version = tonumber(version) + 1
redis.call('HSET', KEYS[1], 'v', new_version, 'd', ARGV[3], 'p', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('ZADD', KEYS[2], expires, ARGV[1])
if ARGV[4] == '1' then
  redis.call('ZADD', KEYS[3], 'XX', expires, ARGV[1])  -- never takes a new slot
else
  redis.call('ZREM', KEYS[3], ARGV[1])
end
redis.call('PEXPIRE', KEYS[4], tonumber(ARGV[6]))
if redis.call('GET', KEYS[5]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[5], ttl)
end
return new_version
"""

# KEYS: session, sessions, playing, user, owner (user and owner may be '' when unknown)
# ARGV: id
REMOVE = """
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
if KEYS[4] ~= '' then
  redis.call('ZREM', KEYS[4], ARGV[1])
end
if KEYS[5] ~= '' and redis.call('GET', KEYS[5]) == ARGV[1] then
  redis.call('DEL', KEYS[5])
end
return 1
"""

# KEYS: a sorted set scored by expiry. Drops the expired entries, answers the count.
COUNT_LIVE = _NOW + """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])
"""

# KEYS: a sorted set scored by expiry. Drops the expired entries, answers the rest.
LIST_LIVE = _NOW + """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZRANGE', KEYS[1], 0, -1)
"""

# KEYS: lock. ARGV: token. Deletes the lock only if this holder still owns it.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

# KEYS: starts. ARGV: now ms, window ms, max starts, member.
ALLOW_START = """
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], window)
return 1
"""

# The daily game (B13).
# KEYS: the day's entry (hash: s session id, g finished snapshot)
# ARGV: session id, expires at (Unix ms)
# Names the day's game unless a finished one is recorded.
BEGIN_DAILY = """
if redis.call('HEXISTS', KEYS[1], 'g') == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 's', ARGV[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
return 1
"""

# KEYS: the day's entry, the user's streak (hash: d last day, n days)
# ARGV: session id, snapshot, entry expires at (Unix ms), the streak read (d, n; "" when
# none), the streak to write (d, n), streak expires at (Unix ms)
# Records the finished game and the streak computed from the one read, unless the
# streak changed since (then 0: read again).
FINISH_DAILY = """
local stored = redis.call('HMGET', KEYS[2], 'd', 'n')
if (stored[1] or '') ~= ARGV[4] or (stored[2] or '') ~= ARGV[5] then
  return 0
end
redis.call('HSET', KEYS[1], 's', ARGV[1], 'g', ARGV[2])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
redis.call('HSET', KEYS[2], 'd', ARGV[6], 'n', ARGV[7])
redis.call('PEXPIREAT', KEYS[2], ARGV[8])
return 1
"""
