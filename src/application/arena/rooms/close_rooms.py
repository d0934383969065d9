"""CloseRooms: the server stops (spec B4). Every match this process hosts and that is
not over ends as ABANDONED (nobody wins; its bots' processes are stopped by the runner
as at any end), and the call returns once every such match is archived,
its bots closed, and every room's last snapshot is out, so that viewers get the end and
nothing is left running (a match that just ended may still be closing its bots)."""

from __future__ import annotations

import asyncio
import contextlib

from noitu.application.arena.rooms.host import RoomHost


class CloseRooms:
    def __init__(self, host: RoomHost) -> None:
        self._host = host

    async def __call__(self, timeout_s: float) -> int:
        """Close every room; how many matches were ended. Returns after `timeout_s` at
        the latest (whatever is still finishing is then the Background's to cancel)."""
        host = self._host
        ended = 0
        for room in host.rooms():
            live = room.live
            if live is not None and not live.over:
                live.abandon()
                ended += 1
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s):
                # Nothing of a room is still running once its feed has sent everything
                # and is closed, which comes after its match is archived and its bots'
                # processes are closed (or it had no match).
                await host.until_sent(
                    lambda: all(room.feed_closed and host.quiet(room.code) for room in host.rooms())
                )
        return ended
