"""`RoomDesk` through Redis (NOITU_ARENA_QUEUE=saq): a person's request reaches the
worker hosting the room from whichever instance it was asked (spec B9).

- Each room has a stream, `{prefix}arena:desk:room:{code}`: `ask` adds the request
  (fields `id`, a random token; `deadline`, wall-clock ms; `request`, the JSON) and
  waits for the answer on its own list, `{prefix}arena:desk:reply:{id}`, with BLPOP in
  steps of at most `STEP_S` (the client's socket times out after 1 s).
- The worker's `listen` reads the stream from its start ("0": requests asked just
  before the listening began are there) with XREAD BLOCK in steps of `STEP_S`, and
  takes each entry by deleting it (XDEL). Answering is RPUSH + EXPIRE on the asker's
  list, kept `REPLY_TTL_S` for an asker that is gone.
- Taking is a claim: when the asker's time runs out it deletes its entry too, and only
  one XDEL of an entry can delete it. The asker that deleted it answers `Busy` and the
  request is never acted on; a listener whose XDEL deleted nothing skips the entry. An
  asker whose request was taken waits up to `taken_grace_s` more for its answer.
- An entry past its `deadline` when taken is dropped, not acted on: its asker lost
  Redis (or died) and answered `busy` without withdrawing it. The deadline is wall-clock
  time of the asker's machine compared on the worker's, so machines are expected to
  be NTP-synced (a skew of a few ms is what NTP keeps; the check is at the deadline
  itself, the moment the asker gives up too). A dropped entry's asker, if still
  waiting, is told at once (an empty reply) and answers `Busy`.
- A room's stream expires `STREAM_TTL_S` after its last request, so a dead room's
  stream goes away by itself.

Redis away: `ask` answers `Busy` at once (its request, if it was added, is dropped at
its deadline at the latest); `listen` ends with `Busy` (the worker listens again);
`answer` raises `Busy` (the asker answers `busy` at its deadline).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import AsyncGenerator

import msgspec
import structlog

from noitu.adapters.arena.room_desk import TAKEN_GRACE_S
from noitu.adapters.redis.client import RedisLink
from noitu.application.arena.rooms.cluster_ports import ASK_WITHIN_S, DeskReply, DeskRequest
from noitu.application.errors import Busy

__all__ = ["REPLY_TTL_S", "STEP_S", "STREAM_TTL_S", "RedisRoomDesk"]

log = structlog.get_logger("noitu.arena")

#: The longest a blocking call blocks (below the client's 1 s socket timeout).
STEP_S = 0.5
#: How long an answer waits for its asker (one that gave up never reads it).
REPLY_TTL_S = 10
#: A room's stream lives this long after its last request.
STREAM_TTL_S = 3600
#: Entries read at once by the listener (each is still taken one by one).
READ_COUNT = 32
#: The reply that tells a waiting asker its request was dropped.
DROPPED = ""
#: The shortest BLPOP wait (0 would block for ever).
SHORTEST_WAIT_S = 0.01

_NO_SNAPSHOT = msgspec.Raw()


class _WireReply(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A `DeskReply` as carried: msgspec decodes no `Raw | None`, so an absent snapshot
    is an absent field (a snapshot that is JSON `null` stays one)."""

    snapshot: msgspec.Raw = _NO_SNAPSHOT
    error: str | None = None
    message: str = ""


_request_decoder = msgspec.json.Decoder(DeskRequest)
_reply_decoder = msgspec.json.Decoder(_WireReply)
_encoder = msgspec.json.Encoder()


def _encode_reply(reply: DeskReply) -> str:
    snapshot = _NO_SNAPSHOT if reply.snapshot is None else reply.snapshot
    wire = _WireReply(snapshot=snapshot, error=reply.error, message=reply.message)
    return _encoder.encode(wire).decode()


def _decode_reply(data: str) -> DeskReply:
    wire = _reply_decoder.decode(data)
    snapshot = None if len(wire.snapshot) == 0 else wire.snapshot
    return DeskReply(snapshot=snapshot, error=wire.error, message=wire.message)


def _wall_ms() -> int:
    return int(time.time() * 1000)


def _unless_cancelled() -> None:
    """Raise the task's cancellation if a Redis call swallowed it. redis-py can take a
    cancellation that lands during a blocking read (XREAD BLOCK, BLPOP) for the end of
    the block and return an empty answer, which would leave a cancelled listener
    looping for ever (seen in the contract tests)."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError()


class _RedisAsked:
    """A request the listener took, and the way to answer it."""

    __slots__ = ("_desk", "_reply_key", "request")

    def __init__(self, desk: RedisRoomDesk, reply_key: str, request: DeskRequest) -> None:
        self._desk = desk
        self._reply_key = reply_key
        self.request = request

    async def answer(self, reply: DeskReply) -> None:
        await self._desk._reply(self._reply_key, _encode_reply(reply))


class RedisRoomDesk:
    def __init__(
        self,
        link: RedisLink,
        ask_within_s: float = ASK_WITHIN_S,
        *,
        taken_grace_s: float = TAKEN_GRACE_S,
    ) -> None:
        self._link = link
        self._ask_within_s = ask_within_s
        self._taken_grace_s = taken_grace_s
        self._prefix = f"{link.prefix}arena:desk:"

    def _stream(self, code: str) -> str:
        return f"{self._prefix}room:{code}"

    def _reply_key(self, token: str) -> str:
        return f"{self._prefix}reply:{token}"

    async def waiting(self, code: str) -> int:
        """The room's requests waiting to be taken (with any a lost asker left)."""
        return int(await self._link.run(self._link.client.xlen(self._stream(code))))

    # -- the asker's side -----------------------------------------------------------

    async def ask(self, code: str, request: DeskRequest) -> DeskReply:
        client = self._link.client
        stream = self._stream(code)
        token = secrets.token_hex(16)
        reply_key = self._reply_key(token)
        fields = {
            "id": token,
            "deadline": _wall_ms() + round(self._ask_within_s * 1000),
            "request": _encoder.encode(request).decode(),
        }
        pipe = client.pipeline(transaction=True)
        pipe.xadd(stream, fields)
        pipe.expire(stream, STREAM_TTL_S)
        entry, _ = await self._link.run(pipe.execute())
        loop = asyncio.get_running_loop()
        withdrawn = False
        try:
            reply = await self._await_reply(reply_key, loop.time() + self._ask_within_s)
            if reply is None:
                # Time is up: withdraw the request unless the listener took it already.
                withdrawn = True
                if await self._link.run(client.xdel(stream, entry)):
                    raise Busy()
                reply = await self._await_reply(reply_key, loop.time() + self._taken_grace_s)
        except asyncio.CancelledError:
            if not withdrawn:
                # Best effort: a request that stays is dropped at its deadline anyway.
                with contextlib.suppress(Busy):
                    await self._link.run(client.xdel(stream, entry))
            raise
        if reply is None or reply == DROPPED:
            raise Busy()
        return _decode_reply(reply)

    async def _await_reply(self, reply_key: str, until: float) -> str | None:
        """The reply pushed on `reply_key` before `until` (the loop's clock), or None."""
        loop = asyncio.get_running_loop()
        client = self._link.client
        while (left := until - loop.time()) > 0:
            wait = max(min(left, STEP_S), SHORTEST_WAIT_S)
            got = await self._link.run(client.blpop([reply_key], timeout=wait))
            _unless_cancelled()
            if got is not None:
                return got[1]
        return None

    # -- the worker's side ----------------------------------------------------------

    async def listen(self, code: str) -> AsyncGenerator[_RedisAsked, None]:
        client = self._link.client
        stream = self._stream(code)
        last = "0"
        block_ms = round(STEP_S * 1000)
        while True:
            read = await self._link.run(
                client.xread({stream: last}, count=READ_COUNT, block=block_ms)
            )
            _unless_cancelled()
            for _, entries in read or ():
                for entry, fields in entries:
                    last = entry
                    asked = await self._take(code, stream, entry, fields)
                    if asked is not None:
                        yield asked

    async def _take(
        self, code: str, stream: str, entry: str, fields: dict[str, str]
    ) -> _RedisAsked | None:
        """Claim an entry (None when its asker withdrew it first, or it is dropped)."""
        if not await self._link.run(self._link.client.xdel(stream, entry)):
            return None  # withdrawn: its asker answered `busy`
        token = fields.get("id", "")
        reply_key = self._reply_key(token)
        try:
            deadline = int(fields["deadline"])
            request = _request_decoder.decode(fields["request"])
        except (KeyError, ValueError, msgspec.DecodeError):
            log.warning("room_desk_bad_request", room=code)
            if token:
                await self._reply(reply_key, DROPPED)
            return None
        if _wall_ms() >= deadline:
            # Its asker gave up without withdrawing it (Redis away, or it died).
            await self._reply(reply_key, DROPPED)
            return None
        return _RedisAsked(self, reply_key, request)

    async def _reply(self, reply_key: str, data: str) -> None:
        pipe = self._link.client.pipeline(transaction=True)
        pipe.rpush(reply_key, data)
        pipe.expire(reply_key, REPLY_TTL_S)
        await self._link.run(pipe.execute())
