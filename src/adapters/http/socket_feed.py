"""A feed over a WebSocket, as both games send one: frames from the server only, until
the feed ends or the client goes away.

Two tasks per socket: one sends the feed, one waits for the client to leave (what it
sends is dropped). Whichever ends first cancels the other, so a viewer that leaves
ends its subscription at once (a loop over the subscription alone would never notice
until the next frame), and the feed's clean-up runs under plain asyncio cancellation,
whose own awaits still run (a Redis unsubscribe, say).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import structlog
from litestar import WebSocket
from litestar.connection.base import empty_receive, empty_send
from litestar.exceptions import WebSocketDisconnect

from noitu.application.errors import Busy

log = structlog.get_logger("noitu.http")

#: Close codes: the feed ended; the server's trouble.
CLOSE_DONE = 1000
CLOSE_TROUBLE = 1011


async def _until_gone(socket: WebSocket[Any, Any, Any]) -> None:
    """Return when the client closes or goes away; what it sends is dropped."""
    with contextlib.suppress(WebSocketDisconnect):
        while True:
            message = await socket.receive()
            if message["type"] == "websocket.disconnect":
                return


async def send_until_gone(
    socket: WebSocket[Any, Any, Any], send: Callable[[], Awaitable[None]], failed: str
) -> None:
    """Run `send()`, which sends the whole feed, until it ends or the client leaves.
    After the feed's end the socket is closed with 1000; if sending failed, for another
    reason than the client's going, the failure is logged as `failed` (a `Busy` as a
    warning: the store is away) and the socket closed with 1011."""
    sending = asyncio.ensure_future(send())
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
    if isinstance(error, Busy):
        log.warning(failed, error="busy")  # a store away: told once where it is used
    elif error is not None and not isinstance(error, (WebSocketDisconnect, OSError)):
        log.error(failed, exc_info=error)
    if socket.connection_state != "disconnect":
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            await socket.close(code=CLOSE_DONE if error is None else CLOSE_TROUBLE)


async def refuse(socket: WebSocket[Any, Any, Any], frame: str, code: int) -> None:
    """Send one last text frame (why there is no feed) and close with `code`; a client
    already gone is no error."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
        await socket.send_text(frame)
        await socket.close(code=code)


@contextlib.contextmanager
def let_go_of(socket: WebSocket[Any, Any, Any]) -> Iterator[None]:
    """Run a socket's handler; once it ends, the socket lets go of its connection.

    litestar's WebSocket wraps `receive` and `send` in closures that refer back to the
    WebSocket: a reference cycle, which holds the server's whole connection (uvicorn's
    protocol, its buffers, the compressor's zlib state: ~80 KB) after it closed, until
    the garbage collector's next full pass, which `noitu serve` makes rare. Dropping the
    wrappers breaks the cycle, so a closed feed's memory is freed at once (B10's feeds;
    `tests/integration/test_api_rooms.py` checks no cycle is left)."""
    try:
        yield
    finally:
        socket.receive = empty_receive
        socket.send = empty_send
