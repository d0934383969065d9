"""OpenRooms: the lobby (spec B6) — rooms waiting for a player and rooms to watch, in
placement or playing, at most `LOBBY_SIZE` of each.

Rooms are free to open (B10 limits them per address and per minute, not in all), so a
flood of rooms within the limits must not push a person's room off the lobby: the
viewer's own rooms come first and are always listed; then, of the waiting rooms, those
where a person waits for an opponent; then the rest; each part newest first.

The lobby reads the board as it is (`BoardRooms.read`): it takes no hold and no
instance-wide lock, so a poll never waits on a change."""

from __future__ import annotations

import msgspec

from noitu.application.arena.replay import SeatKind
from noitu.application.arena.rooms.board_rooms import BoardRooms
from noitu.application.arena.rooms.room import Room, RoomPhase
from noitu.application.arena.rooms.snapshot import SeatView, seat_view
from noitu.domain.arena.board import SIDES
from noitu.domain.arena.match import DEFAULT_TURN_LIMIT

LOBBY_SIZE = 50


class RoomSummary(msgspec.Struct, frozen=True, rename="camel"):
    code: str
    phase: str
    seats: tuple[SeatView | None, SeatView | None]
    turn: int
    turn_limit: int
    created_ms: int
    queue_place: int | None  # its place from 1 while it waits for a slot, else None
    ladder: bool = False  # a ladder match (spec B8), made by the server


class Lobby(msgspec.Struct, frozen=True):
    waiting: tuple[RoomSummary, ...]
    live: tuple[RoomSummary, ...]


class OpenRoomsCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    limit: int = LOBBY_SIZE
    viewer: str = ""  # the viewer's owner key hash ("": a spectator without a key)


WHOLE_LOBBY = OpenRoomsCommand()


class OpenRooms:
    def __init__(self, rooms: BoardRooms) -> None:
        self._rooms = rooms

    async def __call__(self, command: OpenRoomsCommand = WHOLE_LOBBY) -> Lobby:
        limit = max(1, min(command.limit, LOBBY_SIZE))
        found = await self._rooms.read()
        rooms = sorted(found, key=lambda r: r.created_ms, reverse=True)
        waiting = [
            r
            for r in rooms
            if r.phase is RoomPhase.WAITING
            and not r.full
            and not self._rooms.expired(r)  # closed by the next pass of `AbandonLostMatches`
        ]
        live = [r for r in rooms if r.phase in (RoomPhase.PLACEMENT, RoomPhase.PLAYING)]
        waiting.sort(key=lambda r: not _person_waits(r))  # stable: newest first in each
        viewer = command.viewer
        return Lobby(
            tuple(_summary(r) for r in _listed(waiting, viewer, limit)),
            tuple(_summary(r) for r in _listed(live, viewer, limit)),
        )


def _listed(rooms: list[Room], viewer: str, limit: int) -> list[Room]:
    """The viewer's own rooms (any number: an owner has a few at most), then the
    others, up to `limit` in all."""
    own = [room for room in rooms if viewer and (room.creator == viewer or room.involves(viewer))]
    others = [room for room in rooms if room not in own]
    return own + others[: max(0, limit - len(own))]


def _person_waits(room: Room) -> bool:
    return any(held is not None and held.seat.kind is SeatKind.PERSON for held in room.seats)


def _summary(room: Room) -> RoomSummary:
    shown = room.remote  # the latest snapshot of its match, once handed over
    if shown is not None:
        return RoomSummary(
            room.code,
            room.phase.value,
            shown.seats,
            shown.turn,
            shown.turn_limit,
            room.created_ms,
            room.queue_place if room.queued else shown.queue_place,
            room.ladder,
        )
    return RoomSummary(
        room.code,
        room.phase.value,
        tuple(seat_view(side, room.seats[side.number], False) for side in SIDES),  # type: ignore[arg-type]
        0,
        DEFAULT_TURN_LIMIT,
        room.created_ms,
        room.queue_place if room.queued else None,
        room.ladder,
    )
