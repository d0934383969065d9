"""What a side can do on its turn (MOVE or PASS) and what a MOVE onto an enemy causes
(a Fight).

The engine hands out shared, pre-built objects: every possible MOVE (a piece, the square
it stands on, a square one step away) exists once, built the first time it is needed,
and so does every fight (its result depends only on the two pieces' types). A legal
action list is therefore a list of shared objects, and generating it allocates nothing
but the list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from noitu.domain.arena.board import (
    NEIGHBOURS,
    PIECES,
    SQUARE_COUNT,
    SQUARES,
    TYPE_OF,
    PieceType,
    Square,
)


@dataclass(frozen=True, slots=True)
class Move:
    """Move a piece one square (8 directions). Onto an enemy piece it is an attack."""

    piece_id: str
    from_: Square
    to: Square
    # The move's place among the engine's shared moves (see `steps`), for tables kept
    # alongside them; -1 for a Move built by hand. Not part of the move's value.
    key: int = field(default=-1, compare=False, repr=False)

    def to_json(self) -> dict[str, object]:
        """The protocol's and the replay's form: {type, pieceId, from, to}."""
        return {
            "type": "MOVE",
            "pieceId": self.piece_id,
            "from": {"row": self.from_.row, "col": self.from_.col},
            "to": {"row": self.to.row, "col": self.to.col},
        }


@dataclass(frozen=True, slots=True)
class Pass:
    """Offered, alone, only when the side to move has no MOVE at all."""

    def to_json(self) -> dict[str, object]:
        return {"type": "PASS"}


PASS = Pass()

Action = Move | Pass


class FightResult(StrEnum):
    """A fight's outcome from the attacker's view."""

    WIN = "WIN"  # the defender is eliminated; the attacker stands on its square
    LOSE = "LOSE"  # the attacker is eliminated; the defender stays
    TIE = "TIE"  # same type: both stay where they are (the turn still counts)


def fight_result(attacker: PieceType, defender: PieceType) -> FightResult:
    if attacker is defender:
        return FightResult.TIE
    return FightResult.WIN if attacker.beats(defender) else FightResult.LOSE


@dataclass(frozen=True, slots=True)
class Fight:
    """A MOVE onto an enemy piece: the two piece ids and the attacker's result."""

    attacker: str
    defender: str
    result: FightResult

    def to_json(self) -> dict[str, object]:
        return {"attacker": self.attacker, "defender": self.defender, "result": self.result.value}


# -- the shared objects ----------------------------------------------------------------

# Fight result by (attacker type, defender type).
OUTCOME: dict[tuple[PieceType, PieceType], FightResult] = {
    (a, d): fight_result(a, d) for a in PieceType for d in PieceType
}

_PIECE_COUNT = len(PIECES)
# A shared move's key: (piece index * SQUARE_COUNT + from index) * 8 + its place among
# the from-square's neighbours.
MOVE_KEYS = _PIECE_COUNT * SQUARE_COUNT * 8
# Index piece * SQUARE_COUNT + square → ((to index, Move), ...) in to.row, to.col order.
# Read it through steps(), or as `STEP_TABLE[key] or steps(...)` in a hot loop.
STEP_TABLE: list[tuple[tuple[int, Move], ...] | None] = [None] * (_PIECE_COUNT * SQUARE_COUNT)
_FIGHTS: list[Fight | None] = [None] * (_PIECE_COUNT * _PIECE_COUNT)


def steps(piece_index: int, square_index: int) -> tuple[tuple[int, Move], ...]:
    """Every one-step MOVE of this piece from this square (its own pieces not yet
    excluded), as (to index, Move), in to.row then to.col order. Shared objects."""
    key = piece_index * SQUARE_COUNT + square_index
    found = STEP_TABLE[key]
    if found is None:
        pid = PIECES[piece_index].id
        origin = SQUARES[square_index]
        found = tuple(
            (to, Move(pid, origin, SQUARES[to], key * 8 + place))
            for place, to in enumerate(NEIGHBOURS[square_index])
        )
        STEP_TABLE[key] = found
    return found


# For each square index: the place (0..7) of each neighbour's index among NEIGHBOURS.
_PLACE: tuple[dict[int, int], ...] = tuple(
    {to: place for place, to in enumerate(around)} for around in NEIGHBOURS
)


def shared_move(piece_index: int, from_index: int, to_index: int) -> Move | None:
    """The shared Move of this piece between these squares; None when `to` is not one
    step from `from`."""
    place = _PLACE[from_index].get(to_index)
    if place is None:
        return None
    return steps(piece_index, from_index)[place][1]


def fight(attacker_index: int, defender_index: int) -> Fight:
    """The shared Fight of these two pieces."""
    key = attacker_index * _PIECE_COUNT + defender_index
    found = _FIGHTS[key]
    if found is None:
        a, d = PIECES[attacker_index], PIECES[defender_index]
        found = Fight(a.id, d.id, OUTCOME[TYPE_OF[attacker_index], TYPE_OF[defender_index]])
        _FIGHTS[key] = found
    return found
