"""The rules of play (spec A3, B1): which actions are legal and what a MOVE does.

- A MOVE goes one square in any of the 8 directions, stays on the board, and never onto
  a square holding one of the side's own pieces. A side may move onto its own base.
- A MOVE onto an enemy piece is an attack: ROCK beats SCISSORS, SCISSORS beats PAPER,
  PAPER beats ROCK. The winner of a fight stands on (attacker) or keeps (defender) the
  target square, the loser is eliminated; the same type is a tie and both stay.
- The legal actions are every MOVE of the side, ordered by piece id (code-point order),
  then to.row, then to.col; exactly [PASS] when it has no MOVE.

Endings (bases, pieces, the turn limit) are the match's business (`match.py`).
"""

from __future__ import annotations

from noitu.domain.arena.actions import (
    PASS,
    STEP_TABLE,
    Action,
    Fight,
    FightResult,
    Move,
    Pass,
    fight,
    steps,
)
from noitu.domain.arena.board import (
    COLS,
    EMPTY,
    NEIGHBOUR_SETS,
    OWNER,
    PIECE_INDEX,
    PIECES,
    PIECES_PER_SIDE,
    ROWS,
    SQUARE_COUNT,
    SQUARES,
    Board,
    Side,
    Square,
)
from noitu.domain.arena.errors import IllegalAction


def legal_actions(board: Board, side: Side) -> tuple[Action, ...]:
    """Every legal action of `side`: its MOVEs in (piece id, to.row, to.col) order, or
    exactly (PASS,) when it has none. The objects are shared (see actions.py)."""
    low = side.number * PIECES_PER_SIDE
    high = low + PIECES_PER_SIDE
    cells = board.cells
    where = board.where
    found: list[Action] = []
    append = found.append
    for index in range(low, high):
        at = where[index]
        if at < 0:
            continue
        for to, move in STEP_TABLE[index * SQUARE_COUNT + at] or steps(index, at):
            held = cells[to]
            if held < low or held >= high:  # empty (-1) or an enemy piece
                append(move)
    return tuple(found) if found else (PASS,)


def has_move(board: Board, side: Side) -> bool:
    """Whether `side` has at least one MOVE (so PASS is not legal)."""
    low = side.number * PIECES_PER_SIDE
    high = low + PIECES_PER_SIDE
    cells = board.cells
    where = board.where
    for index in range(low, high):
        at = where[index]
        if at < 0:
            continue
        for to, _ in STEP_TABLE[index * SQUARE_COUNT + at] or steps(index, at):
            held = cells[to]
            if held < low or held >= high:
                return True
    return False


def _where(at: Square) -> str:
    return f"ô ({at.row},{at.col})"


def check_move(board: Board, side: Side, move: Move) -> tuple[int, int, int]:
    """(piece index, from index, to index) of a MOVE that is legal for `side` now;
    IllegalAction (saying why, in Vietnamese) otherwise."""
    index = PIECE_INDEX.get(move.piece_id)
    if index is None:
        raise IllegalAction(f"Không có quân nào mang id {move.piece_id!r}.")
    if OWNER[index] != side.number:
        raise IllegalAction(f"{move.piece_id} không phải quân của {side.value}.")
    at = board.where[index]
    if at < 0:
        raise IllegalAction(f"{move.piece_id} không còn trên bàn cờ.")
    origin, target = move.from_, move.to
    if origin is not SQUARES[at] and origin != SQUARES[at]:
        raise IllegalAction(
            f"{move.piece_id} đang ở ô ({at // COLS},{at % COLS}), không phải {_where(origin)}."
        )
    row, col = target.row, target.col
    if not (0 <= row < ROWS and 0 <= col < COLS):
        raise IllegalAction(f"{_where(target)} nằm ngoài bàn cờ.")
    to = row * COLS + col
    if to not in NEIGHBOUR_SETS[at]:
        raise IllegalAction(
            f"{_where(target)} không kề {_where(origin)}: mỗi nước chỉ đi một ô (8 hướng)."
        )
    held = board.cells[to]
    if held >= 0 and OWNER[held] == side.number:
        raise IllegalAction(f"{_where(target)} đang có quân của chính bạn ({PIECES[held].id}).")
    return index, at, to


def check_pass(board: Board, side: Side) -> None:
    """IllegalAction unless `side` has no MOVE at all."""
    if has_move(board, side):
        raise IllegalAction("Chỉ được PASS khi không còn nước đi nào.")


def play_move(board: Board, piece_index: int, from_index: int, to_index: int) -> Fight | None:
    """Carry out a MOVE already checked legal: go to an empty square, or attack and
    settle the fight. Returns the fight, or None when the square was empty."""
    cells = board.cells
    defender = cells[to_index]
    if defender < 0:
        cells[from_index] = EMPTY
        cells[to_index] = piece_index
        board.where[piece_index] = to_index
        return None
    outcome = fight(piece_index, defender)
    result = outcome.result
    if result is FightResult.WIN:
        board.where[defender] = EMPTY
        board.alive[OWNER[defender]] -= 1
        cells[from_index] = EMPTY
        cells[to_index] = piece_index
        board.where[piece_index] = to_index
    elif result is FightResult.LOSE:
        board.where[piece_index] = EMPTY
        board.alive[OWNER[piece_index]] -= 1
        cells[from_index] = EMPTY
    # TIE: both stay where they are.
    return outcome


def play(board: Board, side: Side, action: Action) -> Fight | None:
    """Check `action` for `side` and carry it out on `board` (PASS changes nothing)."""
    if type(action) is Pass:
        check_pass(board, side)
        return None
    if type(action) is not Move:
        raise IllegalAction(f"Không phải hành động MOVE/PASS: {action!r}.")
    return play_move(board, *check_move(board, side, action))

