"""`RoomFeed` through Redis (NOITU_STORE=redis): each change of a room (its
`RoomViews`) reaches viewers on every instance, whichever instance runs its match.

- `publish` writes the views as the room's latest (a key, kept `LATEST_TTL_S`) and
  publishes them on the room's channel, in one MULTI/EXEC; `close` marks the room closed
  the same way and publishes the end.
- Each instance holds ONE pub/sub connection, subscribed to the channels of the rooms
  its own viewers watch (the first viewer of a room subscribes, the last one leaving
  unsubscribes), and fans the messages out to its viewers through an in-memory feed.
- A subscription joins the channel first, then reads the latest views and the closed
  mark (a closed room's subscription ends at once: `latest` still has its last views),
  so nothing published meanwhile is missed; views carry their room's version, so one
  seen both ways is yielded once, and never an older one after a newer.

When the pub/sub connection fails (Redis away), every subscription of this instance ends
with `Busy` (the WebSocket sends `busy` and closes 1011, B9 "Faults") and the
connection is dropped: a viewer that comes back subscribes anew, which joins again and
re-reads the latest views, so nothing published during the outage is missed.

Redis pub/sub drops what nobody listens to, which is right here: each message is the
whole room, and the latest is in the key for whoever comes later. The views hold what
only an owner may see (their pieces in placement): they stay between the server's
processes; a client gets only its own (`RoomViews.seen_by`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator
from typing import Any

import msgspec
import structlog

from noitu.adapters.arena.rooms import InMemoryRoomFeed
from noitu.adapters.redis.client import UNAVAILABLE, RedisLink
from noitu.application.arena.rooms.snapshot import RoomViews
from noitu.application.errors import Busy

log = structlog.get_logger("noitu.redis")

#: How long a room's latest snapshot and closed mark stay (a finished room is shown for
#: 30 minutes; a room whose instance died is forgotten after this).
LATEST_TTL_S = 2 * 3600
#: The listener's read timeout (and the bound on closing a lost connection).
LISTEN_TIMEOUT_S = 1.0
SNAPSHOT, END = "S", "E"

_decoder = msgspec.json.Decoder(RoomViews)
_encoder = msgspec.json.Encoder()


class RedisRoomFeed:
    def __init__(self, link: RedisLink) -> None:
        self._link = link
        prefix = f"{link.prefix}arena:room:"
        self._prefix = prefix
        self._local = InMemoryRoomFeed()
        self._pubsub: Any = None
        self._listener: asyncio.Task[None] | None = None
        self._viewers: dict[str, int] = {}
        self._joined: dict[str, asyncio.Future[None]] = {}
        self._stopping = False
        #: +1 each time the pub/sub connection is lost: viewers of an older one leave
        #: nothing behind.
        self._generation = 0

    def _latest_key(self, code: str) -> str:
        return f"{self._prefix}{code}:latest"

    def _closed_key(self, code: str) -> str:
        return f"{self._prefix}{code}:closed"

    def _channel(self, code: str) -> str:
        return f"{self._prefix}{code}:feed"

    def subscribers(self, code: str) -> int:
        """This instance's viewers of the room."""
        return self._viewers.get(code, 0)

    # -- the publishing side --------------------------------------------------------

    async def publish(self, code: str, views: RoomViews) -> None:
        data = _encoder.encode(views).decode()
        pipe = self._link.client.pipeline(transaction=True)
        pipe.set(self._latest_key(code), data, ex=LATEST_TTL_S)
        pipe.publish(self._channel(code), SNAPSHOT + data)
        await self._link.run(pipe.execute())

    async def close(self, code: str) -> None:
        pipe = self._link.client.pipeline(transaction=True)
        pipe.set(self._closed_key(code), "1", ex=LATEST_TTL_S)
        pipe.publish(self._channel(code), END)
        await self._link.run(pipe.execute())

    async def latest(self, code: str) -> RoomViews | None:
        raw = await self._link.run(self._link.client.get(self._latest_key(code)))
        return None if raw is None else _decoder.decode(raw)

    # -- the watching side ----------------------------------------------------------

    def subscribe(self, code: str) -> AsyncGenerator[RoomViews, None]:
        local = self._local.subscribe(code)  # joined now: the listener feeds it
        return self._watch(code, local)

    async def _watch(
        self, code: str, local: AsyncGenerator[RoomViews, None]
    ) -> AsyncGenerator[RoomViews, None]:
        self._viewers[code] = self._viewers.get(code, 0) + 1
        generation = self._generation
        try:
            await self._join(code)
            client = self._link.client
            raw, closed = await self._link.run(
                client.mget(self._latest_key(code), self._closed_key(code))
            )
            if closed is not None:
                return  # as the port says: a closed room's feed ends at once
            sent = -1
            if raw is not None:
                first = _decoder.decode(raw)
                sent = first.version
                yield first
            async for views in local:
                if views.version > sent:
                    sent = views.version
                    yield views
        finally:
            await local.aclose()
            if generation == self._generation:
                await self._leave(code)

    async def _join(self, code: str) -> None:
        joined = self._joined.get(code)
        if joined is None:
            joined = self._joined[code] = asyncio.get_running_loop().create_future()
            try:
                if self._pubsub is None:
                    self._pubsub = self._link.client.pubsub(ignore_subscribe_messages=True)
                await self._link.run(self._pubsub.subscribe(self._channel(code)))
            except BaseException as error:
                self._joined.pop(code, None)
                joined.set_exception(error if isinstance(error, Exception) else Busy())
                joined.exception()  # retrieved: the waiters below re-raise their own
                raise
            joined.set_result(None)
            if self._listener is None or self._listener.done():
                self._listener = asyncio.get_running_loop().create_task(self._listen())
        else:
            await asyncio.shield(joined)

    async def _leave(self, code: str) -> None:
        left = self._viewers.get(code, 1) - 1
        if left > 0:
            self._viewers[code] = left
            return
        self._viewers.pop(code, None)
        joined = self._joined.pop(code, None)
        if joined is not None and joined.done() and joined.exception() is None and self._pubsub:
            # Leaving must not hide why the watch ended: after Redis went away the
            # pubsub's connection may be half torn down, and redis-py then fails with
            # whatever its dropped writer raises (an AttributeError was seen), not only
            # a connection error. Nothing is subscribed on a dead connection anyway.
            with contextlib.suppress(Exception):
                await self._link.run(self._pubsub.unsubscribe(self._channel(code)))

    async def _listen(self) -> None:
        pubsub = self._pubsub
        start = len(self._prefix)
        while not self._stopping:
            try:
                message = await pubsub.get_message(
                    ignore_subscribe_messages=True, timeout=LISTEN_TIMEOUT_S
                )
            except asyncio.CancelledError:
                raise
            except UNAVAILABLE as error:
                log.warning("room_feed_unavailable", error=f"{type(error).__name__}: {error}")
                await self._lost(pubsub)
                return
            if message is None or message.get("type") != "message":
                continue
            channel: str = message["channel"]
            code = channel[start : -len(":feed")]
            data: str = message["data"]
            try:
                if data == END:
                    await self._local.close(code)
                elif data.startswith(SNAPSHOT):
                    await self._local.publish(code, _decoder.decode(data[1:]))
            except msgspec.DecodeError:
                log.warning("room_feed_bad_message", room=code)

    async def _lost(self, pubsub: Any) -> None:
        """The pub/sub connection failed: end this instance's subscriptions with `Busy`
        and drop the connection; the next viewer opens a new one (and a new listener)."""
        self._generation += 1
        self._listener = None
        self._pubsub = None
        self._joined = {}
        self._viewers = {}
        self._local.fail_all(Busy())
        with contextlib.suppress(*UNAVAILABLE):
            await asyncio.wait_for(pubsub.aclose(), LISTEN_TIMEOUT_S)

    async def stop(self) -> None:
        """At shutdown: end the listener and close the pub/sub connection."""
        self._stopping = True  # redis-py may take a cancellation for a read timeout
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(listener, LISTEN_TIMEOUT_S * 3)
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            with contextlib.suppress(*UNAVAILABLE):
                await pubsub.aclose()
