"""OpenRooms: the lobby (spec B6) — rooms waiting for a player and rooms to watch, in
placement or playing, at most `LOBBY_SIZE` of each.

Rooms are free to open (B10 limits them per address and per minute, not in all), so a
flood of rooms within the limits must not push a person's room off the lobby: the
viewer's own rooms come first and are always listed; then, of the waiting rooms, those
where a person waits for an opponent; then the rest; each part newest first.

The lobby reads the board as it is, and each handed-over room's latest views in the
feed: it takes no hold and no instance-wide lock, so a poll never waits on a change."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import msgspec

from noitu.application.arena.rooms.board_rooms import BoardRooms, queue_places
from noitu.application.arena.rooms.snapshot import RoomSnapshot, SeatView, seat_view
from noitu.domain.arena.board import SIDES
from noitu.domain.arena.match import DEFAULT_TURN_LIMIT
from noitu.domain.arena.room import Room, RoomPhase, SeatKind

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


@dataclass(frozen=True, slots=True)
class _Listed:
    """A room as the lobby reads it: its card, its match's latest snapshot (once
    handed over) and its place in the queue (while its match waits for a host)."""

    card: Room
    shown: RoomSnapshot | None
    place: int | None

    @property
    def phase(self) -> RoomPhase:
        if self.shown is None or self.card.closed:
            return self.card.phase
        return RoomPhase(self.shown.phase)


class OpenRooms:
    def __init__(self, rooms: BoardRooms) -> None:
        self._rooms = rooms

    async def __call__(self, command: OpenRoomsCommand = WHOLE_LOBBY) -> Lobby:
        limit = max(1, min(command.limit, LOBBY_SIZE))
        now = self._rooms.now_ms
        cards = sorted(await self._rooms.cards(), key=lambda c: c.created_ms, reverse=True)
        handed = [card for card in cards if card.handed_over and not card.closed]
        feed = self._rooms.host.feed
        latest = await asyncio.gather(*(feed.latest(card.code) for card in handed))
        shown = {card.code: views.room for card, views in zip(handed, latest) if views}
        places = queue_places(handed)
        rooms = [_Listed(card, shown.get(card.code), places.get(card.code)) for card in cards]
        waiting = [
            r
            for r in rooms
            if r.phase is RoomPhase.WAITING
            and not r.card.full
            and not r.card.expired(now)  # closed by the next pass of `AbandonLostMatches`
        ]
        live = [r for r in rooms if r.phase in (RoomPhase.PLACEMENT, RoomPhase.PLAYING)]
        waiting.sort(key=lambda r: not _person_waits(r.card))  # stable: newest first in each
        viewer = command.viewer
        return Lobby(
            tuple(_summary(r) for r in _listed(waiting, viewer, limit)),
            tuple(_summary(r) for r in _listed(live, viewer, limit)),
        )


def _listed(rooms: list[_Listed], viewer: str, limit: int) -> list[_Listed]:
    """The viewer's own rooms (any number: an owner has a few at most), then the
    others, up to `limit` in all."""
    own = [
        room for room in rooms
        if viewer and (room.card.creator == viewer or room.card.involves(viewer))
    ]
    others = [room for room in rooms if room not in own]
    return own + others[: max(0, limit - len(own))]


def _person_waits(room: Room) -> bool:
    return any(held is not None and held.kind is SeatKind.PERSON for held in room.seats)


def _summary(listed: _Listed) -> RoomSummary:
    room, shown = listed.card, listed.shown  # the latest snapshot of its match, once handed over
    if shown is not None:
        return RoomSummary(
            room.code,
            listed.phase.value,
            shown.seats,
            shown.turn,
            shown.turn_limit,
            room.created_ms,
            listed.place if listed.place is not None else shown.queue_place,
            room.ladder,
        )
    return RoomSummary(
        room.code,
        listed.phase.value,
        tuple(seat_view(side, room.seats[side.number], False) for side in SIDES),  # type: ignore[arg-type]
        0,
        DEFAULT_TURN_LIMIT,
        room.created_ms,
        listed.place,
        room.ladder,
    )
