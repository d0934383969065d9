"""HandOverMatch: on several machines (spec B9), what a web instance does when both
seats of a room are filled — instead of making and playing the match itself
(`StartMatch`), it marks the room handed over: the room shows PLACEMENT, and once its
card is written (`BoardRooms`) its match is queued for a worker, which makes it and
plays it (`PlayMatch`).

Its place in the queue is B10's fair order, as on one machine (`fair_order.py`): its
rank is taken now, among the matches handed over and not over across the cluster (this
change reads the whole board), and kept on its card; the workers take the matches in
that order (`InLine`), and `queue_places` shows it."""

from __future__ import annotations

from noitu.application.arena.fair_order import rank_among
from noitu.application.arena.rooms.cards import card_of, queue_places
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.room import Room


class HandOverMatch:
    def __init__(self, host: RoomHost) -> None:
        self._host = host

    async def __call__(self, room: Room) -> None:
        if room.handed_over or room.live is not None or room.closed or not room.full:
            return
        rooms = self._host.registry.rooms()
        room.handed_over = True
        room.handed_ms = self._host.clock.now_ms()
        room.queue_rank = rank_among(
            room.queue_tags(),
            (
                other.queue_tags()
                for other in rooms
                if other is not room and other.handed_over and not other.closed
                and not other.is_over
            ),
        )
        # Its place among the room matches waiting for a worker, on the board's copy
        # this change reads (`BoardRooms`); kept current by `AbandonLostMatches`.
        room.queued = not room.ladder
        room.queue_place = (
            queue_places(card_of(other) for other in rooms).get(room.code)
            if room.queued else None
        )
        self._host.changed(room)
