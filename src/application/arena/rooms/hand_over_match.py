"""HandOverMatch: on several machines (spec B9), what a web instance does when both
seats of a room are filled — instead of making and playing the match itself
(`StartMatch`), it marks the room handed over: the room shows PLACEMENT, and once its
card is written (`BoardRooms`) its match is queued for a worker, which makes it and
plays it (`HostMatch`)."""

from __future__ import annotations

from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.room import Room


class HandOverMatch:
    def __init__(self, host: RoomHost) -> None:
        self._host = host

    async def __call__(self, room: Room) -> None:
        if room.handed_over or room.live is not None or room.closed or not room.full:
            return
        room.handed_over = True
        room.handed_ms = self._host.clock.now_ms()
        # Its place among the room matches waiting for a worker, on the board's copy
        # this change reads (`BoardRooms`); kept current by `AbandonLostMatches`.
        room.queued = not room.ladder
        room.queue_place = 1 + sum(
            1
            for other in self._host.registry.rooms()
            if other is not room and other.handed_over and not other.worker
            and not other.is_over and not other.ladder
        ) if room.queued else 0
        self._host.changed(room)
