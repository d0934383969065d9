"""What a person sends for the board, as the page sends it (the protocol's objects):
`{"type":"MOVE","pieceId","from":{row,col},"to":{row,col}}`, `{"type":"PASS"}`,
`{"type":"SURRENDER"}`; in placement `{"type":"PLACE","pieceId","to":{row,col}}`,
`{"type":"RANDOM_PLACEMENT"}`, `{"type":"READY"}`."""

from __future__ import annotations

import msgspec

from noitu.application.arena.errors import BadRequest
from noitu.domain.arena.actions import PASS, Action, Move
from noitu.domain.arena.board import Square


class SquareInput(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    row: int
    col: int

    def square(self) -> Square:
        return Square(self.row, self.col)


class ActionInput(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    type: str
    piece_id: str = ""
    from_: SquareInput | None = msgspec.field(default=None, name="from")
    to: SquareInput | None = None


def action_of(given: ActionInput) -> Action:
    """The engine's MOVE or PASS for what the person sent; BadRequest for anything else
    or a MOVE missing a field."""
    if given.type == "PASS":
        return PASS
    if given.type == "MOVE":
        if not given.piece_id or given.from_ is None or given.to is None:
            raise BadRequest("Nước MOVE cần đủ pieceId, from và to.")
        return Move(given.piece_id, given.from_.square(), given.to.square())
    raise BadRequest("Hành động là MOVE, PASS hoặc SURRENDER.")
