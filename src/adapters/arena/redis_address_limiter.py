"""The AddressLimiter port on Redis (spec B10): the per-address counts shared by every
instance on one Redis, one sorted set per address and action."""

from __future__ import annotations

import hashlib
import secrets

from noitu.adapters.redis.client import RedisLink
from noitu.application.arena.admission import ADDRESS_WINDOW_MS, AddressAction, AddressLimits

# One action of a client address, counted in a sliding window on the app's clock, or
# refused with the ms until the oldest counted one leaves it (nothing counted then).
# KEYS: the address's sorted set for the action
# ARGV: now ms, window ms, limit, a unique member
ADMIT_ADDRESS = """
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return tonumber(oldest[2]) + window - now
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], window)
return -1
"""


class RedisAddressLimiter:
    def __init__(
        self, link: RedisLink, limits: AddressLimits, window_ms: int = ADDRESS_WINDOW_MS
    ) -> None:
        self._link = link
        self._limits = limits
        self._window_ms = window_ms
        self._admit = link.client.register_script(ADMIT_ADDRESS)

    async def admit(self, action: AddressAction, address: str, now_ms: int) -> int | None:
        # The address is hashed: Redis keeps no client address in clear.
        name = hashlib.sha256(address.encode()).hexdigest()[:32]
        wait = await self._link.run(
            self._admit(
                keys=[f"{self._link.prefix}arena:address:{action.value}:{name}"],
                args=[now_ms, self._window_ms, self._limits.of(action), secrets.token_hex(8)],
            )
        )
        wait = int(wait)
        return None if wait < 0 else wait
