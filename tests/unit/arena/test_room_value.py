"""The room as one frozen value (issue 31): its seats' rules and where its match stands,
read off the card alone; a change is a new value and the old one is left as it was."""

from __future__ import annotations

import dataclasses

import msgspec
import pytest

from noitu.domain.arena.board import Side
from noitu.domain.arena.room import (
    FINISHED_ROOM_MS,
    WAITING_ROOM_MS,
    Room,
    RoomPhase,
    RoomSeat,
    SeatKind,
)

LAN, MINH = "a" * 64, "b" * 64


def lan_in_person() -> RoomSeat:
    return RoomSeat(kind=SeatKind.PERSON, ref="Lan", name="Lan", owner=LAN, seated_by=LAN,
                    address="10.0.0.1")


def minhs_bot_seated_by_lan() -> RoomSeat:
    return RoomSeat(kind=SeatKind.UPLOAD, ref="0123456789abcdef", name="Sói", owner=MINH,
                    seated_by=LAN, address="10.0.0.1")


def builtin(name: str = "random") -> RoomSeat:
    return RoomSeat(kind=SeatKind.BUILTIN, ref=name, name=name, seated_by=LAN, address="10.0.0.1")


def test_a_seat_taken_is_a_new_room_and_the_old_one_stays_as_it_was() -> None:
    empty = Room(code="K7MPQ2", created_ms=0, creator=LAN)
    one = empty.seated(Side.P1, lan_in_person())
    assert empty.seats == (None, None) and not empty.full
    assert one.seats[0] == lan_in_person() and not one.full
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.closed = True  # type: ignore[misc]


def test_who_answers_for_which_side() -> None:
    room = Room(code="K7MPQ2", created_ms=0, creator=LAN,
                seats=(lan_in_person(), minhs_bot_seated_by_lan()))
    assert room.person_side(LAN) is Side.P1 and room.person_side(MINH) is None
    assert room.sides_of(LAN) == [Side.P1] and room.sides_of(MINH) == [Side.P2]
    # Lan seated Minh's bot: she counts it toward her limits, but only Minh answers for it.
    assert room.involves(LAN) and room.involves(MINH)
    assert room.queue_tags() == {f"owner:{LAN}", "address:10.0.0.1"}


def test_a_ladder_match_counts_for_nobody() -> None:
    room = Room(code="K7MPQ2", created_ms=0, creator="", ladder=True,
                seats=(minhs_bot_seated_by_lan(), builtin()))
    assert not room.involves(LAN) and not room.involves(MINH)
    assert room.queue_tags() == frozenset()


def test_two_builtin_bots_are_a_spectacle_of_the_address_that_seated_them() -> None:
    show = Room(code="K7MPQ2", created_ms=0, creator=LAN, seats=(builtin(), builtin("strong")))
    assert show.spectacle and show.spectacle_of("10.0.0.1") and not show.spectacle_of("10.0.0.2")
    assert not dataclasses.replace(show, closed=True).spectacle_of("10.0.0.1")


def test_where_the_match_stands_as_the_card_says() -> None:
    room = Room(code="K7MPQ2", created_ms=0, creator=LAN,
                seats=(lan_in_person(), builtin()))
    assert room.phase is RoomPhase.WAITING and room.expired(WAITING_ROOM_MS)
    handed = dataclasses.replace(room, handed_over=True, handed_ms=5)
    assert handed.phase is RoomPhase.PLACEMENT and handed.waits_for_a_host
    assert not handed.hosted and not handed.expired(WAITING_ROOM_MS)
    taken = dataclasses.replace(handed, worker="host-a")
    assert taken.hosted and not taken.waits_for_a_host
    over = dataclasses.replace(taken, over=True, finished_ms=100)
    assert over.ended and not over.hosted and over.phase is RoomPhase.FINISHED
    assert not over.forgotten(100 + FINISHED_ROOM_MS - 1) and over.forgotten(100 + FINISHED_ROOM_MS)
    closed = dataclasses.replace(room, closed=True, finished_ms=1)
    assert closed.phase is RoomPhase.ABANDONED and not closed.expired(WAITING_ROOM_MS)


def test_the_card_travels_as_json_and_comes_back_equal() -> None:
    room = Room(code="K7MPQ2", created_ms=7, creator=LAN, version=3, handed_over=True,
                seats=(lan_in_person(), minhs_bot_seated_by_lan()), seed=9, turn_limit=120)
    raw = msgspec.json.encode(room)
    assert msgspec.json.decode(raw, type=Room) == room
    assert msgspec.json.decode(raw)["seats"][0]["kind"] == "person"
