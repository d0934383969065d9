"""The room's WebSocket, `/arena/ws/rooms/{code}` (spec B6; docs/arena-api.md).

On connect the room's current snapshot, then one after every change, each a text frame
`{"type":"room","room":Room}` (the spectator's view); after the last one
`{"type":"end"}` and a close with 1000. An unknown room: `{"type":"error",...}` and a
close with 4404. What the client sends is ignored.

Two tasks per socket: one sends the snapshots, one waits for the client to go away.
Whichever ends first cancels the other, so a viewer that leaves ends its subscription
at once (a loop over the subscription alone would never notice), and the subscription
is closed (`aclose()`) with plain asyncio cancellation, under which the clean-up's own
awaits still run (a Redis unsubscribe, say).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Callable
from typing import Any, Protocol

import msgspec
import structlog
from litestar import Router, WebSocket, websocket
from litestar.exceptions import WebSocketDisconnect
from litestar.params import FromPath

from noitu.adapters.http.paths import ARENA_WS_PATH
from noitu.application.arena.errors import GameError, RoomNotFound
from noitu.application.arena.rooms.get_room import GetRoomCommand
from noitu.application.arena.rooms.snapshot import RoomSnapshot
from noitu.application.arena.rooms.watch_room import WatchRoom

log = structlog.get_logger("noitu.http")

#: Close codes: the room's last snapshot was sent; no such room; the server's trouble.
CLOSE_DONE = 1000
CLOSE_NOT_FOUND = 4404
CLOSE_TROUBLE = 1011


class ArenaSocketUseCases(Protocol):
    watch_room: Callable[[], WatchRoom]


class RoomFrame(msgspec.Struct, frozen=True):
    room: RoomSnapshot
    type: str = "room"


class ErrorFrame(msgspec.Struct, frozen=True):
    error: str
    message: str
    type: str = "error"


_encode = msgspec.json.Encoder().encode
END_FRAME = '{"type":"end"}'


async def _until_gone(socket: WebSocket[Any, Any, Any]) -> None:
    """Return when the client closes or goes away; what it sends is dropped."""
    with contextlib.suppress(WebSocketDisconnect):
        while True:
            message = await socket.receive()
            if message["type"] == "websocket.disconnect":
                return


async def _send_all(
    socket: WebSocket[Any, Any, Any], snapshots: AsyncGenerator[RoomSnapshot, None]
) -> None:
    try:
        async for snapshot in snapshots:
            await socket.send_text(_encode(RoomFrame(snapshot)).decode())
        await socket.send_text(END_FRAME)
    finally:
        await snapshots.aclose()


async def stream_room(
    socket: WebSocket[Any, Any, Any], snapshots: AsyncGenerator[RoomSnapshot, None]
) -> None:
    sending = asyncio.ensure_future(_send_all(socket, snapshots))
    listening = asyncio.ensure_future(_until_gone(socket))
    try:
        await asyncio.wait({sending, listening}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (sending, listening):
            if not task.done():
                task.cancel()
        await asyncio.gather(sending, listening, return_exceptions=True)
    if listening.done() and not listening.cancelled():
        return  # the client went away
    error = None if sending.cancelled() else sending.exception()
    if error is not None and not isinstance(error, (WebSocketDisconnect, OSError)):
        log.error("room_socket_failed", exc_info=error)
    if socket.connection_state != "disconnect":
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            await socket.close(code=CLOSE_DONE if error is None else CLOSE_TROUBLE)


def room_socket_router(use_cases: ArenaSocketUseCases) -> Router:
    @websocket("/rooms/{code:str}")
    async def room_socket(socket: WebSocket[Any, Any, Any], code: FromPath[str]) -> None:
        await socket.accept()
        try:
            snapshots = await use_cases.watch_room()(GetRoomCommand(code))
        except GameError as error:
            frame = _encode(ErrorFrame(error.code, error.message)).decode()
            with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
                await socket.send_text(frame)
                await socket.close(
                    code=CLOSE_NOT_FOUND if isinstance(error, RoomNotFound) else CLOSE_TROUBLE
                )
            return
        await stream_room(socket, snapshots)

    return Router(path=ARENA_WS_PATH, route_handlers=[room_socket])
