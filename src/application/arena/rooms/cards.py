"""A room as a `RoomCard` on the board (spec B9) and back, and a full room as the
`MatchSpec` of its match job and back: what every process of the
cluster reads of a room — its seats, who made it, its version, whether its match was
handed to the queue and which worker runs it. The live match itself (`Room.live`) is
never on a card: it lives on the worker."""

from __future__ import annotations

from collections.abc import Iterable

from noitu.application.arena.fair_order import Waiting, in_fair_order
from noitu.application.arena.jobs import InLine, MatchSpec, SeatCard
from noitu.application.arena.records import Seat
from noitu.application.arena.replay import SeatKind
from noitu.application.arena.rooms.cluster_ports import RoomCard
from noitu.application.arena.rooms.room import Room, RoomSeat


def card_of(room: Room) -> RoomCard:
    return RoomCard(
        code=room.code,
        created_ms=room.created_ms,
        creator=room.creator,
        seats=(_seat_card(room.seats[0]), _seat_card(room.seats[1])),
        version=room.version,
        closed=room.closed,
        handed_over=room.handed_over,
        handed_ms=room.handed_ms,
        queue_rank=room.queue_rank,
        match_id=room.match_id,
        worker=room.worker,
        over=room.is_over and not room.closed,
        finished_ms=room.finished_ms,
        ladder=room.ladder,
        seed=room.seed,
        turn_limit=room.turn_limit,
    )


def room_of(card: RoomCard) -> Room:
    """The room of a card, with no live match (a web instance's copy, or the room a
    worker is about to run)."""
    return Room(
        code=card.code,
        created_ms=card.created_ms,
        creator=card.creator,
        seats=[_room_seat(card.seats[0]), _room_seat(card.seats[1])],
        match_id=card.match_id,
        closed=card.closed,
        finished_ms=card.finished_ms,
        version=card.version,
        ladder=card.ladder,
        seed=card.seed,
        turn_limit=card.turn_limit,
        handed_over=card.handed_over,
        handed_ms=card.handed_ms,
        queue_rank=card.queue_rank,
        worker=card.worker,
    )


def spec_of(room: Room) -> MatchSpec:
    """The match of a room whose seats are filled."""
    p1, p2 = (_seat_card(held) for held in room.seats)
    assert p1 is not None and p2 is not None
    return MatchSpec(
        code=room.code, seats=(p1, p2), seed=room.seed, turn_limit=room.turn_limit,
        ladder=room.ladder, creator=room.creator, created_ms=room.created_ms,
    )


def room_for(spec: MatchSpec) -> Room:
    """The room a spec's match is watched in, its seats filled."""
    return Room(
        spec.code, spec.created_ms, spec.creator,
        seats=[_room_seat(spec.seats[0]), _room_seat(spec.seats[1])],
        ladder=spec.ladder, seed=spec.seed, turn_limit=spec.turn_limit,
    )


def waits_for_a_worker(card: RoomCard) -> bool:
    """Its match was handed to the queue and no worker took it yet."""
    return card.handed_over and not card.worker and not card.over and not card.closed


def in_line(room: Room) -> InLine:
    """The room's match's place in the queue's fair order, as its card keeps it: who
    seated its sides, its kind, and its rank and arrival from when it was handed over."""
    return InLine(
        tags=room.queue_tags(),
        spectacle=room.spectacle,
        ladder=room.ladder,
        rank=room.queue_rank,
        arrival_ms=_arrival(room),
    )


def waiting_of(room: Room) -> Waiting:
    """The room's match as one in the fair order's line (what `in_line` says)."""
    return Waiting(
        room.code, room.queue_tags(), room.queue_rank, _arrival(room), room.spectacle,
        room.ladder,
    )


def _arrival(room: Room) -> int:
    return room.handed_ms if room.handed_ms is not None else room.created_ms


def queue_places(cards: Iterable[RoomCard]) -> dict[str, int]:
    """The place, from 1, of each room's match waiting for a worker (B9: room matches
    ahead of it across the cluster), in B10's fair order — the one the workers take
    them in (`InLine`); the ladder's matches wait behind the rooms' and have none."""
    waiting = in_fair_order(
        waiting_of(room_of(card)) for card in cards if waits_for_a_worker(card)
    )
    rooms = [entry for entry in waiting if not entry.ladder]
    return {entry.key: place for place, entry in enumerate(rooms, start=1)}


def _seat_card(held: RoomSeat | None) -> SeatCard | None:
    if held is None:
        return None
    seat = held.seat
    return SeatCard(
        kind=seat.kind.value,
        ref=seat.ref,
        name=seat.name,
        owner=seat.owner,
        seated_by=held.seated_by,
        address=held.address,
    )


def _room_seat(card: SeatCard | None) -> RoomSeat | None:
    if card is None:
        return None
    return RoomSeat(
        Seat(SeatKind(card.kind), card.ref, card.name, card.owner), card.seated_by, card.address
    )
