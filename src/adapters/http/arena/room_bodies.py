"""What the arena's room routes accept: the request bodies as tagged unions (so the
OpenAPI document says exactly what is accepted, and nothing else decodes), and their
translation into the rooms' inputs."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from noitu.adapters.arena.builtin import BUILTIN_SOURCES
from noitu.application.arena.rooms.inputs import ActionInput, SquareInput
from noitu.application.arena.rooms.seating import SeatChoice
from noitu.domain.arena.board import COLS, ROWS

#: A person's name as sent (the room keeps at most 40 code points of it).
MAX_SENT_NAME = 200
BOT_ID_PATTERN = "^[0-9a-z]{16}$"

#: The built-in bots' names, read from their one home (adapters/arena/builtin.py).
BuiltinName = Literal[tuple(BUILTIN_SOURCES)]  # type: ignore[valid-type]
SideName = Literal["P1", "P2"]


class PersonSeatBody(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="kind", tag="person"
):
    """The caller plays in the browser under this name."""

    name: Annotated[str, msgspec.Meta(max_length=MAX_SENT_NAME)] = ""


class UploadSeatBody(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="kind", tag="upload"
):
    """An uploaded bot: the caller's own, or a public one."""

    ref: Annotated[str, msgspec.Meta(pattern=BOT_ID_PATTERN)]


class BuiltinSeatBody(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="kind", tag="builtin"
):
    """One of the server's bots."""

    ref: BuiltinName


SeatBody = PersonSeatBody | UploadSeatBody | BuiltinSeatBody


class CreateRoomBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    seat: SeatBody  # P1: the creator's seat
    opponent: SeatBody | None = None  # P2 at once (the match then starts)


class JoinRoomBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    seat: SeatBody
    side: SideName | None = None  # the empty seat when absent


Row = Annotated[int, msgspec.Meta(ge=0, lt=ROWS)]
Col = Annotated[int, msgspec.Meta(ge=0, lt=COLS)]


class SquareBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    row: Row
    col: Col


PieceId = Annotated[str, msgspec.Meta(min_length=1, max_length=32)]


class PlaceBody(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type", tag="PLACE",
    rename="camel",
):
    piece_id: PieceId
    to: SquareBody


class RandomPlacementBody(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type",
    tag="RANDOM_PLACEMENT",
):
    pass


class ReadyBody(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type", tag="READY"
):
    pass


PlacementBody = PlaceBody | RandomPlacementBody | ReadyBody


class MoveBody(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type", tag="MOVE",
    rename="camel",
):
    piece_id: PieceId
    from_: SquareBody = msgspec.field(name="from")
    to: SquareBody


class PassBody(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type", tag="PASS"
):
    pass


ActionBody = MoveBody | PassBody


class SurrenderBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    side: SideName | None = None  # needed only by the owner of both seated bots


BODIES = (
    PersonSeatBody, UploadSeatBody, BuiltinSeatBody, CreateRoomBody, JoinRoomBody,
    SquareBody, PlaceBody, RandomPlacementBody, ReadyBody, MoveBody, PassBody, SurrenderBody,
)


def seat_choice(body: SeatBody) -> SeatChoice:
    if isinstance(body, PersonSeatBody):
        return SeatChoice("person", name=body.name)
    return SeatChoice("upload" if isinstance(body, UploadSeatBody) else "builtin", ref=body.ref)


def _square(body: SquareBody) -> SquareInput:
    return SquareInput(body.row, body.col)


def placement_input(body: PlacementBody) -> ActionInput:
    if isinstance(body, PlaceBody):
        return ActionInput("PLACE", piece_id=body.piece_id, to=_square(body.to))
    return ActionInput("RANDOM_PLACEMENT" if isinstance(body, RandomPlacementBody) else "READY")


def action_input(body: ActionBody) -> ActionInput:
    if isinstance(body, MoveBody):
        return ActionInput("MOVE", body.piece_id, _square(body.from_), _square(body.to))
    return ActionInput("PASS")
