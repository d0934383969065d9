"""The room's WebSocket, `/arena/ws/rooms/{code}` (spec B6; docs/arena-api.md).

On connect the room's current snapshot, then one after every change, each a text frame
`{"type":"room","room":Room}` (the spectator's view); after the last one
`{"type":"end"}` and a close with 1000. An unknown room: `{"type":"error",...}` and a
close with 4404. The feed lost (Redis away, B9): `{"type":"error","error":"busy",...}`
and a close with 1011; the page reconnects and reads the latest snapshot again. What the
client sends is ignored.

The sending and the watch for the client's leaving are `socket_feed`'s, shared with
nối từ's group feed; the subscription is closed (`aclose()`) however the sending ends.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from typing import Any, Protocol

import msgspec
from litestar import Router, WebSocket, websocket
from litestar.params import FromPath

from noitu.adapters.http.paths import ARENA_WS_PATH
from noitu.adapters.http.socket_feed import CLOSE_TROUBLE, refuse, send_until_gone
from noitu.application.arena.errors import Busy, GameError, RoomNotFound
from noitu.application.arena.rooms.get_room import GetRoomCommand
from noitu.application.arena.rooms.snapshot import RoomSnapshot
from noitu.application.arena.rooms.watch_room import WatchRoom

#: Close code for no such room (the feed's end and the server's trouble: `socket_feed`).
CLOSE_NOT_FOUND = 4404


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


async def _send_all(
    socket: WebSocket[Any, Any, Any], snapshots: AsyncGenerator[RoomSnapshot, None]
) -> None:
    try:
        async for snapshot in snapshots:
            await socket.send_text(_encode(RoomFrame(snapshot)).decode())
        await socket.send_text(END_FRAME)
    except Busy as error:
        await socket.send_text(_encode(ErrorFrame(error.code, error.message)).decode())
        raise  # closed with 1011
    finally:
        await snapshots.aclose()


def room_socket_router(use_cases: ArenaSocketUseCases) -> Router:
    @websocket("/rooms/{code:str}")
    async def room_socket(socket: WebSocket[Any, Any, Any], code: FromPath[str]) -> None:
        await socket.accept()
        try:
            snapshots = await use_cases.watch_room()(GetRoomCommand(code))
        except GameError as error:
            frame = _encode(ErrorFrame(error.code, error.message)).decode()
            code = CLOSE_NOT_FOUND if isinstance(error, RoomNotFound) else CLOSE_TROUBLE
            await refuse(socket, frame, code)
            return
        await send_until_gone(
            socket, lambda: _send_all(socket, snapshots), failed="room_socket_failed"
        )

    return Router(path=ARENA_WS_PATH, route_handlers=[room_socket])
