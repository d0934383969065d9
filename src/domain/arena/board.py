"""The board of Búa Bao Kéo 9×9: sides, piece types, squares, pieces and where they stand.

Coordinates are the server's (spec A3): (0,0) is the top-left corner, row grows
downwards, col to the right. P1's base is (8,0) (A9), P2's is (0,8) (I1).

Besides the readable objects (`Square`, `Piece`) the board keeps a compact form that the
rules and the protocol read in their hot loops:

- a square's *index* is ``row * COLS + col`` (0..80);
- a piece's *index* is its place in `PIECES`, which is in code-point order of the ids
  (0..17 are P1's, 18..35 are P2's), so walking the indexes walks the ids in order;
- `Board.cells[square index]` is the index of the piece standing there, or -1;
- `Board.where[piece index]` is the index of its square, or -1 when it is not on the
  board (eliminated, or not placed yet).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Self

ROWS = 9
COLS = 9
SQUARE_COUNT = ROWS * COLS
PIECES_PER_TYPE = 6
PIECES_PER_SIDE = 3 * PIECES_PER_TYPE
EMPTY = -1


class Side(StrEnum):
    number: int  # 0 for P1, 1 for P2 (the compact form's side)

    def __new__(cls, value: str, number: int) -> Self:
        member = str.__new__(cls, value)
        member._value_ = value
        member.number = number
        return member

    P1 = ("P1", 0)
    P2 = ("P2", 1)

    @property
    def other(self) -> Side:
        return Side.P2 if self is Side.P1 else Side.P1

    @property
    def base(self) -> Square:
        return BASES[self]

    @property
    def display_name(self) -> str:
        """`players[].name` in the protocol: always "Player 1" / "Player 2" (spec B1)."""
        return "Player 1" if self is Side.P1 else "Player 2"


SIDES = (Side.P1, Side.P2)


class PieceType(StrEnum):
    ROCK = "ROCK"  # Búa
    PAPER = "PAPER"  # Bao
    SCISSORS = "SCISSORS"  # Kéo

    def beats(self, other: PieceType) -> bool:
        """ROCK beats SCISSORS, SCISSORS beats PAPER, PAPER beats ROCK."""
        return BEATEN_BY[self] is other


# What each type beats.
BEATEN_BY: dict[PieceType, PieceType] = {
    PieceType.ROCK: PieceType.SCISSORS,
    PieceType.SCISSORS: PieceType.PAPER,
    PieceType.PAPER: PieceType.ROCK,
}


@dataclass(frozen=True, slots=True)
class Square:
    """A square by (row, col). Off-board squares can be written down (a bot may name
    one); `on_board` says whether it is one of the 81."""

    row: int
    col: int

    @property
    def on_board(self) -> bool:
        return 0 <= self.row < ROWS and 0 <= self.col < COLS

    @property
    def index(self) -> int:
        """row * COLS + col; only meaningful for a square on the board."""
        return self.row * COLS + self.col

    @property
    def label(self) -> str:
        """The document's name: letter A–I for col, number row + 1 (A9 is (8,0))."""
        return f"{'ABCDEFGHI'[self.col]}{self.row + 1}"

    def to_json(self) -> dict[str, int]:
        return {"row": self.row, "col": self.col}

    def __repr__(self) -> str:
        return f"Square({self.row}, {self.col})"


# The 81 squares, by index.
SQUARES: tuple[Square, ...] = tuple(Square(i // COLS, i % COLS) for i in range(SQUARE_COUNT))


def square(row: int, col: int) -> Square:
    """The shared Square object for an on-board (row, col)."""
    if not (0 <= row < ROWS and 0 <= col < COLS):
        raise ValueError(f"({row},{col}) is not on the {ROWS}×{COLS} board")
    return SQUARES[row * COLS + col]


BASES: dict[Side, Square] = {Side.P1: SQUARES[8 * COLS + 0], Side.P2: SQUARES[0 * COLS + 8]}
BASE_INDEX: tuple[int, int] = (BASES[Side.P1].index, BASES[Side.P2].index)


def _neighbours(index: int) -> tuple[int, ...]:
    row, col = divmod(index, COLS)
    found = []
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            r, c = row + dr, col + dc
            if (dr or dc) and 0 <= r < ROWS and 0 <= c < COLS:
                found.append(r * COLS + c)
    return tuple(found)  # row-major: to.row, then to.col


# For each square index, the indexes of the (3 to 8) squares one step away, row-major.
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(i) for i in range(SQUARE_COUNT))
NEIGHBOUR_SETS: tuple[frozenset[int], ...] = tuple(frozenset(n) for n in NEIGHBOURS)


@dataclass(frozen=True, slots=True)
class Piece:
    id: str
    side: Side
    type: PieceType
    index: int  # place in PIECES (code-point order of id)

    def __repr__(self) -> str:
        return f"Piece({self.id})"


def _all_pieces() -> tuple[Piece, ...]:
    named = sorted(
        (f"{side}-{kind}-{n}", side, kind)
        for side in SIDES
        for kind in PieceType
        for n in range(1, PIECES_PER_TYPE + 1)
    )
    return tuple(Piece(pid, side, kind, i) for i, (pid, side, kind) in enumerate(named))


# All 36 pieces in code-point order of id: P1-PAPER-1..6, P1-ROCK-1..6, P1-SCISSORS-1..6,
# then the same for P2.
PIECES: tuple[Piece, ...] = _all_pieces()
PIECE_BY_ID: dict[str, Piece] = {p.id: p for p in PIECES}
PIECE_INDEX: dict[str, int] = {p.id: p.index for p in PIECES}
# The compact side (0/1) and type of each piece index.
OWNER: tuple[int, ...] = tuple(p.side.number for p in PIECES)
TYPE_OF: tuple[PieceType, ...] = tuple(p.type for p in PIECES)
assert all(OWNER[i] == i // PIECES_PER_SIDE for i in range(len(PIECES)))


def piece(piece_id: str) -> Piece:
    """The piece with this id (KeyError for an unknown one)."""
    return PIECE_BY_ID[piece_id]


def pieces_of(side: Side) -> tuple[Piece, ...]:
    """The side's 18 pieces in id order (what `players[].pieceIds` lists)."""
    start = side.number * PIECES_PER_SIDE
    return PIECES[start : start + PIECES_PER_SIDE]


def _as_piece(value: Piece | str) -> Piece:
    return value if isinstance(value, Piece) else PIECE_BY_ID[value]


def _as_square(value: Square | tuple[int, int]) -> Square:
    if isinstance(value, Square):
        return square(value.row, value.col)
    row, col = value
    return square(row, col)


# Pieces with squares, as a mapping or as pairs: piece (or id) → square (or (row, col)).
PiecesAt = (
    Mapping[Piece | str, Square | tuple[int, int]]
    | Iterable[tuple[Piece | str, Square | tuple[int, int]]]
)


class Board:
    """Where each piece stands. Mutable: the match owns one and changes it; everyone
    else reads it (or takes a `copy()`)."""

    __slots__ = ("alive", "cells", "where")

    def __init__(self) -> None:
        self.cells: list[int] = [EMPTY] * SQUARE_COUNT
        self.where: list[int] = [EMPTY] * len(PIECES)
        self.alive: list[int] = [0, 0]  # pieces on the board, per compact side

    @classmethod
    def with_pieces(cls, placement: PiecesAt) -> Board:
        """A board holding exactly these pieces (piece or id → square or (row, col))."""
        board = cls()
        items = placement.items() if isinstance(placement, Mapping) else placement
        for who, where in items:
            board.put(_as_piece(who), _as_square(where))
        return board

    # -- reading -------------------------------------------------------------------

    def piece_at(self, at: Square) -> Piece | None:
        if not at.on_board:
            return None
        index = self.cells[at.index]
        return None if index < 0 else PIECES[index]

    def square_of(self, who: Piece | str) -> Square | None:
        """Where the piece stands; None when it is not on the board."""
        index = self.where[_as_piece(who).index]
        return None if index < 0 else SQUARES[index]

    def pieces(self, side: Side | None = None) -> list[tuple[Piece, Square]]:
        """The pieces on the board (of one side, or all) with their squares, in id order."""
        return list(self._iter(side))

    def _iter(self, side: Side | None) -> Iterator[tuple[Piece, Square]]:
        if side is None:
            start, stop = 0, len(PIECES)
        else:
            start = side.number * PIECES_PER_SIDE
            stop = start + PIECES_PER_SIDE
        where = self.where
        for index in range(start, stop):
            at = where[index]
            if at >= 0:
                yield PIECES[index], SQUARES[at]

    def alive_count(self, side: Side) -> int:
        return self.alive[side.number]

    def positions(self) -> tuple[int, ...]:
        """The compact snapshot: for each piece index, its square index or -1."""
        return tuple(self.where)

    def to_json(self) -> list[dict[str, object]]:
        """`board.pieces` of the protocol (and the replay's setup), in id order."""
        return [
            {
                "id": p.id,
                "ownerId": p.side.value,
                "type": p.type.value,
                "status": "ALIVE",
                "position": {"row": at.row, "col": at.col},
            }
            for p, at in self._iter(None)
        ]

    def copy(self) -> Board:
        other = Board.__new__(Board)
        other.cells = self.cells.copy()
        other.where = self.where.copy()
        other.alive = self.alive.copy()
        return other

    def seen_by(self, side: Side) -> Board:
        """A copy holding only this side's pieces (what a side sees during placement)."""
        view = Board()
        for p, at in self._iter(side):
            view.put(p, at)
        return view

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self.where == other.where

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        shown = ", ".join(f"{p.id}@({at.row},{at.col})" for p, at in self._iter(None))
        return f"Board({shown})"

    # -- changing (placement and set-ups; play goes through the rules) -------------

    def put(self, who: Piece, at: Square) -> None:
        """Stand the piece on an empty square (taking it off the square it was on)."""
        index = at.index
        if not at.on_board:
            raise ValueError(f"{at!r} is not on the board")
        held = self.cells[index]
        if held >= 0 and held != who.index:
            raise ValueError(f"{at!r} already holds {PIECES[held].id}")
        self.remove(who)
        self.cells[index] = who.index
        self.where[who.index] = index
        self.alive[OWNER[who.index]] += 1

    def remove(self, who: Piece) -> None:
        """Take the piece off the board, if it is on it."""
        at = self.where[who.index]
        if at >= 0:
            self.cells[at] = EMPTY
            self.where[who.index] = EMPTY
            self.alive[OWNER[who.index]] -= 1
