"""Where the pieces start (spec A3, B1).

P1's pieces start below the A1–I9 diagonal (row > col), P2's above it (row < col); never
on the diagonal, never on a base. That leaves each side 35 squares for its 18 pieces.

The server's placement is reproducible from the match's seed: one `random.Random(seed)`
shuffles P1's 35 squares listed in row-major order and the first 18 get P1-ROCK-1..6,
P1-PAPER-1..6, P1-SCISSORS-1..6 in that order; then the same Random does the same for P2.
A person's RANDOM_PLACEMENT draws from the same Random: it shuffles the side's squares
still free (row-major) and gives them to its pieces not yet placed, in that order.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from noitu.domain.arena.board import (
    BASES,
    PIECE_BY_ID,
    PIECES_PER_TYPE,
    SIDES,
    SQUARES,
    Board,
    Piece,
    PieceType,
    Side,
    Square,
)


def may_start_on(side: Side, at: Square) -> bool:
    """Whether `side` may place a piece on `at`: its own half, not the diagonal, not
    its base."""
    if not at.on_board or at == BASES[side]:
        return False
    return at.row > at.col if side is Side.P1 else at.row < at.col


# Each side's starting squares in row-major order (35 each).
HOME_SQUARES: dict[Side, tuple[Square, ...]] = {
    side: tuple(sq for sq in SQUARES if may_start_on(side, sq)) for side in SIDES
}
assert all(len(squares) == 35 for squares in HOME_SQUARES.values())

# The order in which a draw hands out squares: ROCK-1..6, PAPER-1..6, SCISSORS-1..6.
PLACEMENT_ORDER: dict[Side, tuple[Piece, ...]] = {
    side: tuple(
        PIECE_BY_ID[f"{side}-{kind}-{n}"]
        for kind in (PieceType.ROCK, PieceType.PAPER, PieceType.SCISSORS)
        for n in range(1, PIECES_PER_TYPE + 1)
    )
    for side in SIDES
}


def draw(rng: random.Random, side: Side, board: Board) -> list[tuple[Piece, Square]]:
    """Squares for the side's pieces not yet on `board`: shuffle its free starting
    squares (row-major) and hand them out in PLACEMENT_ORDER. Does not change `board`;
    on an empty board this is exactly the seeded placement of B1."""
    free = [sq for sq in HOME_SQUARES[side] if board.cells[sq.index] < 0]
    rng.shuffle(free)
    waiting = [p for p in PLACEMENT_ORDER[side] if board.where[p.index] < 0]
    return list(zip(waiting, free))


@dataclass(frozen=True, slots=True)
class Placement:
    """A whole starting position: every piece with its square, in id order."""

    pieces: tuple[tuple[Piece, Square], ...]

    @classmethod
    def seeded(cls, seed: int) -> Placement:
        """The server's placement for this seed (B1): P1 drawn first, then P2, from
        one random.Random(seed)."""
        rng = random.Random(seed)
        board = Board()
        for side in SIDES:
            for who, at in draw(rng, side, board):
                board.put(who, at)
        return cls.of(board)

    @classmethod
    def of(cls, board: Board) -> Placement:
        return cls(tuple(board.pieces()))

    def board(self) -> Board:
        return Board.with_pieces(self.pieces)

    def square_of(self, piece_id: str) -> Square | None:
        for who, at in self.pieces:
            if who.id == piece_id:
                return at
        return None

    def to_json(self) -> list[dict[str, object]]:
        """As `board.pieces` (the replay's setup lists the placement this way)."""
        return self.board().to_json()
