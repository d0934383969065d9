"""Redis adapters (NOITU_STORE=redis): the sessions, the start limit and the Telegram
update de-duplication, shared by every server instance that uses one Redis.

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
script (from Redis's own clock), so an index never outlives its session. Every change to
a session happens under `lock(id)` and is written back with a version check (`SAVE`), so
an update is never lost, even when a lock ran out while its holder was still working.

When Redis cannot be reached, every operation raises the application's `Busy` (HTTP 503)
within about a second; the outage is logged once, and its end once.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from typing import TypeVar

import msgspec
import structlog
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ReadOnlyError
from redis.exceptions import TimeoutError as RedisTimeoutError

from noitu.application.noitu.errors import Busy
from noitu.adapters.keyed_locks import KeyedLocks
from noitu.application.noitu.limits import SessionLimits
from noitu.application.noitu.ports import Clock
from noitu.application.noitu.session import GameMessage, ReportState, Session, Ticket
from noitu.domain.noitu.chain import Side
from noitu.domain.noitu.game import EndReason, Game, Status, TurnRules
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.bots.opponents import Difficulty

T = TypeVar("T")

log = structlog.get_logger("noitu.redis")

DEFAULT_PREFIX = "noitu:"
SOCKET_TIMEOUT_S = 1.0
LOCK_TTL_MS = 5_000
LOCK_WAIT_S = 2.0
# Keys outlive the spec's eviction by one sweep period, so the minutely sweep settles and
# reports an idle game before Redis forgets it.
EXPIRY_MARGIN_MS = 60_000
UPDATE_TTL_S = 3_600

UNAVAILABLE = (RedisConnectionError, RedisTimeoutError, ReadOnlyError, OSError, asyncio.TimeoutError)

# Redis's clock in ms, inside a script (Redis >= 5 replicates a script's effects, so a
# script may write after reading TIME).
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
# Returns the new version, 0 when the session is gone, -1 when another write came first.
SAVE = _NOW + """
local version = redis.call('HGET', KEYS[1], 'v')
if not version then
  return 0
end
if version ~= ARGV[2] then
  return -1
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


def make_redis_client(url: str, timeout_s: float = SOCKET_TIMEOUT_S) -> Redis:
    """A client that fails fast: bounded connect and read times, and one immediate retry
    on a broken connection only (a pooled connection that died with a Redis restart).
    Connections are opened lazily, on the event loop that first uses them."""
    return Redis.from_url(
        url,
        decode_responses=True,
        socket_timeout=timeout_s,
        socket_connect_timeout=timeout_s,
        retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
        client_name="noitu",
    )


class RedisLink:
    """The Redis client the adapters share, and the outage bookkeeping: an operation
    that cannot reach Redis raises `Busy`; the first failure of an outage is logged, and
    so is the first success after it."""

    def __init__(self, client: Redis, prefix: str = DEFAULT_PREFIX) -> None:
        self.client = client
        self.prefix = prefix
        self._down = False

    @classmethod
    def from_url(cls, url: str, prefix: str = DEFAULT_PREFIX) -> RedisLink:
        return cls(make_redis_client(url), prefix)

    async def run(self, operation: Awaitable[T]) -> T:
        try:
            result = await operation
        except UNAVAILABLE as error:
            if not self._down:
                self._down = True
                log.error("redis_unavailable", error=f"{type(error).__name__}: {error}")
            raise Busy() from None
        if self._down:
            self._down = False
            log.info("redis_recovered")
        return result

    @property
    def down(self) -> bool:
        return self._down

    async def aclose(self) -> None:
        try:
            await self.client.aclose()
        except UNAVAILABLE:
            pass


# The snapshot of a session: compact JSON, chain words by their text, so a session
# survives a rebuild of the dictionary that renumbers the words.


class _TicketRecord(msgspec.Struct, omit_defaults=True, forbid_unknown_fields=True):
    u: int
    e: int
    n: str = ""
    c: int | None = None
    m: int | None = None
    i: str | None = None
    t: int | None = None


class _LinkRecord(msgspec.Struct, array_like=True):
    word: str
    by: str
    points: int


class _GameRecord(msgspec.Struct, omit_defaults=True):
    difficulty: str
    chain: list[_LinkRecord]
    status: str
    deadline: int = 0
    ended: int = 0
    score: int = 0
    reason: str = ""
    suggestions: list[str] = []


class _SessionRecord(msgspec.Struct, omit_defaults=True):
    ticket: _TicketRecord
    game: _GameRecord
    created: int
    active: int
    last_move: int = 0
    report: str = ""
    format: int = 1


class SnapshotError(ValueError):
    """A stored session this server cannot rebuild (e.g. a word its dictionary lacks)."""


class SessionCodec:
    """Session <-> JSON. Words travel as text and are looked up again on the way back."""

    def __init__(self, lexicon: Lexicon, rules: TurnRules) -> None:
        self._lexicon = lexicon
        self._rules = rules
        self._encoder = msgspec.json.Encoder()
        self._decoder = msgspec.json.Decoder(_SessionRecord)

    def encode(self, session: Session) -> str:
        game = session.game
        words = self._lexicon.words
        ticket = session.ticket
        message = ticket.message
        record = _SessionRecord(
            ticket=_TicketRecord(
                u=ticket.user_id,
                e=ticket.expires_at,
                n=ticket.first_name,
                c=message.chat_id,
                m=message.message_id,
                i=message.inline_message_id,
                t=message.topic_id,
            ),
            game=_GameRecord(
                difficulty=game.difficulty.value,
                chain=[_LinkRecord(words[l.word], l.by.value, l.points) for l in game.chain.links],
                status=game.status.value,
                deadline=game.deadline_ms,
                ended=game.ended_ms,
                score=game.score,
                reason=game.end_reason.value if game.end_reason else "",
                suggestions=[words[w] for w in game.suggestions],
            ),
            created=session.created_ms,
            active=session.last_active_ms,
            last_move=session.last_move_ms,
            report=session.report.value,
        )
        return self._encoder.encode(record).decode()

    def decode(self, session_id: str, data: str, version: int) -> Session:
        try:
            record = self._decoder.decode(data)
            ticket = record.ticket
            game = record.game
            restored = Game.restore(
                self._lexicon,
                self._rules,
                Difficulty(game.difficulty),
                [(self._word(link.word), Side(link.by), link.points) for link in game.chain],
                status=Status(game.status),
                end_reason=EndReason(game.reason) if game.reason else None,
                deadline_ms=game.deadline,
                ended_ms=game.ended,
                score=game.score,
                suggestions=[self._word(w) for w in game.suggestions],
            )
            return Session(
                id=session_id,
                ticket=Ticket(
                    user_id=ticket.u,
                    first_name=ticket.n,
                    message=GameMessage(
                        chat_id=ticket.c,
                        message_id=ticket.m,
                        inline_message_id=ticket.i,
                        topic_id=ticket.t,
                    ),
                    expires_at=ticket.e,
                ),
                game=restored,
                created_ms=record.created,
                last_active_ms=record.active,
                last_move_ms=record.last_move,
                report=ReportState(record.report),
                version=version,
            )
        except (msgspec.DecodeError, ValueError, KeyError) as error:
            raise SnapshotError(f"session {session_id}: {error}") from error

    def _word(self, text: str) -> int:
        found = self._lexicon.word_ids.get(text)
        if found is None:
            found = self._lexicon.resolve(text)
        if found is None:
            raise KeyError(f"{text!r} is not in this server's dictionary")
        return found


class RedisSessionRepository:
    """The SessionRepository port on Redis (see the module docstring for the keys)."""

    def __init__(
        self,
        link: RedisLink,
        lexicon: Lexicon,
        rules: TurnRules,
        limits: SessionLimits,
        clock: Clock,
        *,
        lock_ttl_ms: int = LOCK_TTL_MS,
        lock_wait_s: float = LOCK_WAIT_S,
        expiry_margin_ms: int = EXPIRY_MARGIN_MS,
    ) -> None:
        self._link = link
        self._redis = link.client
        self._codec = SessionCodec(lexicon, rules)
        self._limits = limits
        self._clock = clock
        self._lock_ttl_ms = lock_ttl_ms
        self._lock_wait_s = lock_wait_s
        self._margin_ms = expiry_margin_ms
        self._local = KeyedLocks()
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
        self._release = client.register_script(RELEASE)

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
        """Mutual exclusion on `key` across every instance: SET NX PX with a random
        token, polled for at most `lock_wait_s` (then `Busy`), released by a
        compare-and-delete. A holder that dies loses the lock after `lock_ttl_ms`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._lock_wait_s
        async with self._local.hold(key, self._lock_wait_s):
            name = f"{self._p}lock:{key}"
            token = secrets.token_hex(16)
            delay = 0.002
            while not await self._link.run(
                self._redis.set(name, token, nx=True, px=self._lock_ttl_ms)
            ):
                if loop.time() + delay > deadline:
                    raise Busy()
                await asyncio.sleep(delay)
                delay = min(delay * 2, 0.025)
            try:
                yield
            finally:
                try:
                    await self._link.run(self._release(keys=[name], args=[token]))
                except Busy:
                    pass  # Redis is gone; the lock runs out by itself

    async def get(self, session_id: str) -> Session | None:
        version, data = await self._link.run(
            self._redis.hmget(self._session_key(session_id), ["v", "d"])
        )
        if version is None or data is None:
            return None
        return self._decode(session_id, data, int(version))

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
        return bool(added)

    async def save(self, session: Session) -> None:
        """Write a changed session back; refused (`Busy`) when someone else wrote it
        since it was read, so no update is ever lost. A session that is gone (removed,
        expired) is not brought back."""
        result = await self._link.run(
            self._save(
                keys=self._write_keys(session),
                args=[*self._write_args(session), self._ttl_ms(session), self._user_ttl_ms],
            )
        )
        result = int(result)
        if result < 0:
            log.warning("session_write_conflict", session=session.id, version=session.version)
            raise Busy()
        if result > 0:
            session.version = result

    async def remove(self, session_id: str) -> None:
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


class RedisStartRateLimiter:
    """The StartRateLimiter port on Redis: at most `max_starts` per user in any sliding
    `window_ms`, counted in one sorted set per user; a refused start is not counted."""

    def __init__(self, link: RedisLink, max_starts: int = 10, window_ms: int = 60_000) -> None:
        self._link = link
        self._max_starts = max_starts
        self._window_ms = window_ms
        self._allow = link.client.register_script(ALLOW_START)

    async def allow(self, user_id: int, now_ms: int) -> bool:
        allowed = await self._link.run(
            self._allow(
                keys=[f"{self._link.prefix}starts:{user_id}"],
                args=[now_ms, self._window_ms, self._max_starts, secrets.token_hex(8)],
            )
        )
        return bool(allowed)


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
