"""The SessionRepository port on Redis.

Keys, all under a prefix (`noitu:` by default):

| Key | Type | Holds | Expires |
|---|---|---|---|
| `s:<id>` | hash | `v` version, `d` snapshot (JSON), `p` playing 1/0, `u` user, `o` owner | the session's eviction time + a margin |
| `sessions` | sorted set | every stored session id, scored by its key's expiry (Redis ms) | entries past their score are dropped by the scripts |
| `playing` | sorted set | the unfinished session ids, scored the same way (the 2,000 cap) | idem |
| `user:<uid>` | sorted set | the user's session ids in start order | the longest session lifetime; dead ids dropped on read |
| `owner:<owner>` | string | the session of a player on one game message | with its session |
| `seq` | counter | the start order | never (one integer) |
| `lock:<key>` | string | a random token: who holds the lock | `LOCK_TTL_MS` |
| `starts:<uid>` | sorted set | the user's starts in the sliding minute | one minute after the last start |
| `update:<id>` | string | a Telegram update already handled | one hour |

A session key and its entries in `sessions` and `playing` get the same expiry in one
script (from Redis's own clock), so an index never outlives its session. Locks
(`lock:<key>`) remain for what must not overlap at all: the starts of one user.

A change to a session is one round trip and no lock. Each instance keeps the sessions
it read or wrote last (decoded, with their version; `cache_size` of them, the least
recently used dropped first), and `recent` answers a change from there. The write
(`SAVE`) is a compare-and-set on the version, so a copy that lags (another instance
wrote since) is never written: the script answers the stored version and snapshot
instead, which replace the kept copy, and the unit of work runs its step again on
them with no second read. A session that is gone (removed, expired) is dropped from
the cache on the refused write or the failed check, so it is never brought back. What
the step decides without writing (an error, nothing to write, a removal) waits for
`is_current`, one `HGET` of the version.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import structlog

from noitu.adapters.noitu.redis.codec import SessionCodec, SnapshotError
from noitu.adapters.noitu.redis.lock import RedisLocks
from noitu.adapters.noitu.redis.scripts import (
    ADD,
    COUNT_LIVE,
    LIST_LIVE,
    REMOVE,
    SAVE,
)
from noitu.adapters.redis.client import RedisLink
from noitu.application.noitu.ports import WriteConflict
from noitu.application.noitu.session import Session
from noitu.application.ports import Clock
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.rules import SessionLimits, TurnClock

log = structlog.get_logger("noitu.redis")

LOCK_TTL_MS = 5_000
LOCK_WAIT_S = 2.0
# Keys outlive the spec's eviction by one sweep period, so the minutely sweep settles and
# reports an idle game before Redis forgets it.
EXPIRY_MARGIN_MS = 60_000


class RedisSessionRepository:
    """The SessionRepository port on Redis (see the module docstring for the keys)."""

    def __init__(
        self,
        link: RedisLink,
        lexicon: Lexicon,
        turn_clock: TurnClock,
        limits: SessionLimits,
        clock: Clock,
        *,
        lock_ttl_ms: int = LOCK_TTL_MS,
        lock_wait_s: float = LOCK_WAIT_S,
        expiry_margin_ms: int = EXPIRY_MARGIN_MS,
        cache_size: int | None = None,
    ) -> None:
        self._link = link
        self._redis = link.client
        self._limits = limits
        self._clock = clock
        self._locks = RedisLocks(link, lock_ttl_ms, lock_wait_s)
        self._margin_ms = expiry_margin_ms
        # As many as can be in play at once, so one instance alone keeps every game.
        self._cache_size = limits.max_playing if cache_size is None else cache_size
        self._codec = SessionCodec(lexicon, turn_clock, kept_chains=self._cache_size)
        self._cache: OrderedDict[str, Session] = OrderedDict()
        p = link.prefix
        self._p = p
        self._sessions_key = f"{p}sessions"
        self._playing_key = f"{p}playing"
        self._seq_key = f"{p}seq"
        client = link.client
        self._add = client.register_script(ADD)
        self._save = client.register_script(SAVE)
        self._remove = client.register_script(REMOVE)
        self._count_live = client.register_script(COUNT_LIVE)
        self._list_live = client.register_script(LIST_LIVE)

    # Key names.

    def _session_key(self, session_id: str) -> str:
        return f"{self._p}s:{session_id}"

    def _user_key(self, user_id: int | str) -> str:
        return f"{self._p}user:{user_id}"

    def _owner_key(self, owner: str) -> str:
        return f"{self._p}owner:{owner}"

    # Lifetimes.

    def _ttl_ms(self, session: Session) -> int:
        """Until the sweep would drop the session (idle 15 min after its last request,
        2 min after its end), plus a margin so that the sweep gets there first."""
        limits = self._limits
        if session.is_playing:
            until = session.last_active_ms + limits.idle_ms
        else:
            until = session.game.ended_ms + limits.finished_ms
        return max(until - self._clock.now_ms(), 0) + max(self._margin_ms, 1)

    @property
    def _user_ttl_ms(self) -> int:
        return max(self._limits.idle_ms, self._limits.finished_ms) + max(self._margin_ms, 1)

    # The port.

    @asynccontextmanager
    async def lock(self, key: str) -> AsyncIterator[None]:
        """Mutual exclusion on `key` across every instance (`RedisLocks`): at most
        `lock_wait_s` of waiting (then `Busy`); a holder that dies loses the lock after
        `lock_ttl_ms`."""
        async with self._locks.hold(key):
            yield

    async def get(self, session_id: str) -> Session | None:
        version, data = await self._link.run(
            self._redis.hmget(self._session_key(session_id), ["v", "d"])
        )
        if version is None or data is None:
            self._cache.pop(session_id, None)
            return None
        session = self._decode(session_id, data, int(version))
        if session is None:
            self._cache.pop(session_id, None)
            return None
        self._keep(session)
        return session.copy()

    async def recent(self, session_id: str) -> Session | None:
        kept = self._cache.get(session_id)
        if kept is None:
            return await self.get(session_id)
        self._cache.move_to_end(session_id)
        return kept.copy()

    async def is_current(self, session: Session) -> bool:
        version = await self._link.run(self._redis.hget(self._session_key(session.id), "v"))
        if version is not None and int(version) == session.version:
            return True
        self._cache.pop(session.id, None)  # the next `recent` reads the store
        return False

    def _keep(self, session: Session) -> None:
        """Remember `session` (not a copy: the caller hands it over) as the latest."""
        cache = self._cache
        cache[session.id] = session
        cache.move_to_end(session.id)
        if len(cache) > self._cache_size:
            cache.popitem(last=False)

    def _decode(self, session_id: str, data: str, version: int) -> Session | None:
        try:
            return self._codec.decode(session_id, data, version)
        except SnapshotError as error:
            # Counts as gone: the page starts over; the key runs out by itself.
            log.warning("session_unreadable", session=session_id, problem=str(error))
            return None

    def _write_keys(self, session: Session) -> list[str]:
        """The keys ADD and SAVE touch, in their scripts' order."""
        return [
            self._session_key(session.id),
            self._sessions_key,
            self._playing_key,
            self._user_key(session.user_id),
            self._owner_key(session.owner),
        ]

    def _write_args(self, session: Session) -> list[object]:
        """What ADD and SAVE write, in their scripts' order (ADD adds more after it)."""
        return [
            session.id,
            session.version,
            self._codec.encode(session),
            1 if session.is_playing else 0,
        ]

    async def add(self, session: Session, max_playing: int) -> bool:
        added = await self._link.run(
            self._add(
                keys=[*self._write_keys(session), self._seq_key],
                args=[
                    *self._write_args(session),
                    session.user_id,
                    session.owner,
                    self._ttl_ms(session),
                    self._user_ttl_ms,
                    max_playing,
                ],
            )
        )
        if added:
            self._keep(session.copy())  # the starting use case keeps its own
        return bool(added)

    async def save(self, session: Session) -> None:
        """Write a changed session back: one script that compares the version and
        writes (`WriteConflict` when someone else wrote it since it was read, so no
        update is ever lost; the script then answers the stored copy, which this
        instance keeps for the retry). A session that is gone (removed, expired) is
        not brought back: `WriteConflict` too, and it is forgotten here."""
        result = await self._link.run(
            self._save(
                keys=self._write_keys(session),
                args=[*self._write_args(session), self._ttl_ms(session), self._user_ttl_ms],
            )
        )
        if isinstance(result, list):
            version, data = result
            newer = self._decode(session.id, data, int(version)) if data is not None else None
            if newer is None:
                self._cache.pop(session.id, None)
            else:
                self._keep(newer)
            raise WriteConflict()
        version = int(result)
        if version == 0:
            self._cache.pop(session.id, None)
            raise WriteConflict()
        session.version = version
        self._keep(session)

    async def remove(self, session_id: str) -> None:
        self._cache.pop(session_id, None)
        self._codec.chains.forget(session_id)
        key = self._session_key(session_id)
        user, owner = await self._link.run(self._redis.hmget(key, ["u", "o"]))
        await self._link.run(
            self._remove(
                keys=[
                    key,
                    self._sessions_key,
                    self._playing_key,
                    self._user_key(user) if user else "",
                    self._owner_key(owner) if owner else "",
                ],
                args=[session_id],
            )
        )

    async def find_by_owner(self, owner: str) -> Session | None:
        found = await self._link.run(self._redis.get(self._owner_key(owner)))
        return None if found is None else await self.get(found)

    async def playing_of(self, user_id: int) -> list[Session]:
        user_key = self._user_key(user_id)
        ids = await self._link.run(self._redis.zrange(user_key, 0, -1))
        if not ids:
            return []
        pipe = self._redis.pipeline(transaction=False)
        for session_id in ids:
            pipe.hmget(self._session_key(session_id), ["v", "d", "p"])
        rows = await self._link.run(pipe.execute())
        playing: list[Session] = []
        gone: list[str] = []
        for session_id, (version, data, live) in zip(ids, rows):
            if version is None or data is None:
                gone.append(session_id)
            elif live == "1":
                session = self._decode(session_id, data, int(version))
                if session is not None:
                    playing.append(session)
        if gone:
            await self._link.run(self._redis.zrem(user_key, *gone))
        return playing

    async def count_playing(self) -> int:
        return int(await self._link.run(self._count_live(keys=[self._playing_key])))

    async def ids(self) -> list[str]:
        return list(await self._link.run(self._list_live(keys=[self._sessions_key])))
