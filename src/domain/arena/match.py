"""One match of Búa Bao Kéo 9×9, from placement to the result (spec A3, B1, B4).

Phases: PLACEMENT (each side places its 18 pieces, then says READY) → PLAYING (P1
first, one action per turn) → FINISHED. A match is pure: no clock and no I/O; its only
randomness is its own `random.Random(seed)`, used for the server's placement.

- `turn` is the number of actions applied so far (MOVE or PASS), from 0.
- `sequence` is the version of the match's state: 1 on entering PLACEMENT, then +1 for
  every change: each piece placed or moved during placement, each READY, the start of
  play, each applied action, the end. Between two bots P1's first request is therefore
  sequence 40 (1 + 36 + 2 + 1) and a bot's successive requests differ by exactly 2.
- After each action, in this order: (1) a side whose base holds an enemy piece loses
  (BASE_CAPTURED); (2) a side with no pieces loses (NO_PIECES); (3) when `turn` reaches
  the limit, more pieces alive wins and equal counts are a draw (TURN_LIMIT).
  The other endings come from outside: BOT_FAILED, SURRENDER, TIME_UP, ABANDONED.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import StrEnum

from noitu.domain.arena.actions import Action, Fight, Move
from noitu.domain.arena.board import (
    BASE_INDEX,
    OWNER,
    PIECE_BY_ID,
    PIECES,
    PIECES_PER_SIDE,
    SIDES,
    Board,
    Piece,
    PiecesAt,
    Side,
    Square,
)
from noitu.domain.arena.errors import NotYourTurn, PlacementError, WrongPhase
from noitu.domain.arena.failure import FailureCode
from noitu.domain.arena.placement import Placement, draw, may_start_on
from noitu.domain.arena.rules import check_move, legal_actions, play, play_move

DEFAULT_TURN_LIMIT = 200
# P1's first request between two bots: entering placement (1), 36 pieces placed, two
# READY, the start of play.
FIRST_SEQUENCE_BETWEEN_BOTS = 1 + 2 * PIECES_PER_SIDE + 2 + 1
_P1_BASE, _P2_BASE = BASE_INDEX


class Phase(StrEnum):
    PLACEMENT = "PLACEMENT"
    PLAYING = "PLAYING"
    FINISHED = "FINISHED"


class EndReason(StrEnum):
    BASE_CAPTURED = "BASE_CAPTURED"  # an enemy piece stands on the loser's base
    NO_PIECES = "NO_PIECES"  # the loser has no piece left
    TURN_LIMIT = "TURN_LIMIT"  # the limit was reached: more pieces wins, equal is a draw
    BOT_FAILED = "BOT_FAILED"  # the loser's bot failed (a FailureCode says how)
    SURRENDER = "SURRENDER"  # the loser surrendered (or its person left the room)
    TIME_UP = "TIME_UP"  # the loser, a person, let its clock run out
    ABANDONED = "ABANDONED"  # the server restarted; nobody wins


@dataclass(frozen=True, slots=True)
class Failure:
    """Why a bot lost on its own account (spec B3)."""

    side: Side
    code: FailureCode
    detail: str

    def to_json(self) -> dict[str, str]:
        return {"player": self.side.value, "code": self.code.value, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class Result:
    winner: Side | None  # None: a draw, or an abandoned match
    reason: EndReason
    turns: int
    failure: Failure | None = None

    def to_json(self) -> dict[str, object]:
        """The fields of the replay's end event and of the CLI's last line."""
        return {
            "winner": None if self.winner is None else self.winner.value,
            "reason": self.reason.value,
            "turns": self.turns,
            "failure": None if self.failure is None else self.failure.to_json(),
        }


class Match:
    """A match between P1 and P2. Create it in PLACEMENT with `Match(...)`, or already
    playing with `Match.between_bots(...)` (or `Match.in_position(...)` for a set-up)."""

    __slots__ = (
        "_current",
        "_legal",
        "_legal_at",
        "_ready",
        "_rng",
        "board",
        "match_id",
        "phase",
        "result",
        "seed",
        "sequence",
        "starting_placement",
        "turn",
        "turn_limit",
    )

    def __init__(self, match_id: str, seed: int, turn_limit: int = DEFAULT_TURN_LIMIT) -> None:
        if turn_limit < 1:
            raise ValueError("turn_limit must be at least 1")
        self.match_id = match_id
        self.seed = seed
        self.turn_limit = turn_limit
        # The whole board. During PLACEMENT show a side only `board_for(side)`.
        self.board = Board()
        self.phase = Phase.PLACEMENT
        self.sequence = 1
        self.turn = 0
        self.result: Result | None = None
        # Every piece's square as play started (for the replay's setup).
        self.starting_placement: Placement | None = None
        self._rng = random.Random(seed)
        self._ready = [False, False]
        self._current: Side | None = None
        self._legal: tuple[Action, ...] = ()
        self._legal_at = -1  # the sequence `_legal` was computed for

    @classmethod
    def between_bots(
        cls, match_id: str, seed: int, turn_limit: int = DEFAULT_TURN_LIMIT
    ) -> Match:
        """A match whose two sides the server placed from the seed (P1 drawn first) and
        readied: it is PLAYING, P1 to move, turn 0, sequence 40."""
        match = cls(match_id, seed, turn_limit)
        for side in SIDES:
            match.random_placement(side)
        for side in SIDES:
            match.ready(side)
        return match

    @classmethod
    def in_position(
        cls,
        match_id: str,
        pieces: PiecesAt,
        *,
        current_player: Side = Side.P1,
        turn: int = 0,
        sequence: int | None = None,
        turn_limit: int = DEFAULT_TURN_LIMIT,
        seed: int = 0,
    ) -> Match:
        """A match PLAYING from a given position (tests, fixtures, puzzles): the pieces
        (id → square) and who is to move. `sequence` defaults to what a match between
        bots would have at this `turn` (40 + turn). The position must not be over."""
        match = cls(match_id, seed, turn_limit)
        board = Board.with_pieces(pieces)
        if not 0 <= turn < turn_limit:
            raise ValueError("turn must be in [0, turn_limit)")
        for side in SIDES:
            if board.alive_count(side) == 0:
                raise ValueError(f"{side} has no pieces: the position is over")
            held = board.cells[BASE_INDEX[side.number]]
            if held >= 0 and OWNER[held] != side.number:
                raise ValueError(f"{side}'s base holds an enemy piece: the position is over")
        match.board = board
        match.phase = Phase.PLAYING
        match.turn = turn
        match.sequence = FIRST_SEQUENCE_BETWEEN_BOTS + turn if sequence is None else sequence
        match.starting_placement = Placement.of(board)
        match._ready = [True, True]
        match._current = current_player
        return match

    # -- reading -------------------------------------------------------------------

    @property
    def current_player(self) -> Side | None:
        """The side to move; None unless PLAYING."""
        return self._current

    def is_ready(self, side: Side) -> bool:
        return self._ready[side.number]

    def board_for(self, viewer: Side | None) -> Board:
        """A copy of the board as `viewer` may see it: during PLACEMENT only its own
        pieces (nothing at all for a spectator, `viewer` None); everything afterwards."""
        if self.phase is Phase.PLACEMENT:
            return Board() if viewer is None else self.board.seen_by(viewer)
        return self.board.copy()

    def legal_actions(self) -> tuple[Action, ...]:
        """The legal actions of the side to move (empty unless PLAYING)."""
        if self.phase is not Phase.PLAYING:
            return ()
        if self._legal_at != self.sequence:
            self._legal = legal_actions(self.board, self._current)  # type: ignore[arg-type]
            self._legal_at = self.sequence
        return self._legal

    # -- placement -----------------------------------------------------------------

    def _check_placing(self, side: Side) -> None:
        if self.phase is not Phase.PLACEMENT:
            raise WrongPhase("Chỉ đặt quân được trong lúc xếp quân.")
        if self._ready[side.number]:
            raise PlacementError("Bạn đã sẵn sàng rồi, không đổi chỗ quân được nữa.")

    def place(self, side: Side, piece_id: str, at: Square) -> bool:
        """PLACE: stand one of the side's pieces on a starting square (or move it there
        if it was already placed). False when it already stood there (nothing changes)."""
        self._check_placing(side)
        who = PIECE_BY_ID.get(piece_id)
        if who is None:
            raise PlacementError(f"Không có quân nào mang id {piece_id!r}.")
        if who.side is not side:
            raise PlacementError(f"{piece_id} không phải quân của {side.value}.")
        if not may_start_on(side, at):
            half = "dưới" if side is Side.P1 else "trên"
            raise PlacementError(
                f"Không đặt được ở ô ({at.row},{at.col}): {side.value} chỉ đặt quân ở nửa "
                f"{half} đường chéo, không trên đường chéo và không trên căn cứ."
            )
        held = self.board.cells[at.index]
        if held == who.index:
            return False
        if held >= 0:
            raise PlacementError(f"Ô ({at.row},{at.col}) đã có quân {PIECES[held].id}.")
        self.board.put(who, at)
        self.sequence += 1
        return True

    def random_placement(self, side: Side) -> list[tuple[Piece, Square]]:
        """RANDOM_PLACEMENT: place the side's remaining pieces from the match's Random
        (placement.draw); returns what was placed."""
        self._check_placing(side)
        placed = draw(self._rng, side, self.board)
        for who, at in placed:
            self.board.put(who, at)
        self.sequence += len(placed)
        return placed

    def ready(self, side: Side) -> None:
        """READY: the side's 18 pieces are placed; when both sides are ready, play
        starts (P1 to move)."""
        self._check_placing(side)
        missing = PIECES_PER_SIDE - self.board.alive_count(side)
        if missing:
            raise PlacementError(f"Còn {missing} quân chưa đặt.")
        self._ready[side.number] = True
        self.sequence += 1
        if all(self._ready):
            self.phase = Phase.PLAYING
            self._current = Side.P1
            self.starting_placement = Placement.of(self.board)
            self.sequence += 1

    def place_rest_and_ready(self, side: Side) -> None:
        """What the server does for a side when placement time is up."""
        if self.phase is Phase.PLACEMENT and not self._ready[side.number]:
            self.random_placement(side)
            self.ready(side)

    # -- play ----------------------------------------------------------------------

    def apply(self, action: Action, by: Side | None = None) -> Fight | None:
        """Carry out the side to move's action (checked: IllegalAction if the rules
        refuse it; NotYourTurn if `by` is given and is not the side to move). Returns
        the fight it caused, or None. The match may be FINISHED afterwards."""
        if self.phase is not Phase.PLAYING:
            raise WrongPhase(
                "Trận đã kết thúc." if self.phase is Phase.FINISHED else "Trận chưa bắt đầu."
            )
        side = self._current
        assert side is not None
        if by is not None and by is not side:
            raise NotYourTurn("Chưa đến lượt bạn.")
        board = self.board
        if type(action) is Move:
            fight = play_move(board, *check_move(board, side, action))
        else:
            fight = play(board, side, action)
        self.turn += 1
        self.sequence += 1
        self._current = Side.P2 if side is Side.P1 else Side.P1
        # The endings, in the order of B1.
        cells = board.cells
        if cells[_P1_BASE] >= PIECES_PER_SIDE:  # a P2 piece on P1's base
            self._finish(Side.P2, EndReason.BASE_CAPTURED)
        elif 0 <= cells[_P2_BASE] < PIECES_PER_SIDE:  # a P1 piece on P2's base
            self._finish(Side.P1, EndReason.BASE_CAPTURED)
        else:
            first, second = board.alive
            if first == 0:
                self._finish(Side.P2, EndReason.NO_PIECES)
            elif second == 0:
                self._finish(Side.P1, EndReason.NO_PIECES)
            elif self.turn >= self.turn_limit:
                winner = None if first == second else (Side.P1 if first > second else Side.P2)
                self._finish(winner, EndReason.TURN_LIMIT)
        return fight

    # -- endings from outside ------------------------------------------------------

    def fail(self, side: Side, code: FailureCode, detail: str) -> None:
        """The side's bot failed (B3): the other side wins with BOT_FAILED."""
        self._finish(side.other, EndReason.BOT_FAILED, Failure(side, FailureCode(code), detail))

    def surrender(self, side: Side) -> None:
        """The side surrendered, or its person left the room: the other side wins."""
        self._finish(side.other, EndReason.SURRENDER)

    def time_up(self, side: Side) -> None:
        """The side, a person, let its clock run out: the other side wins."""
        self._finish(side.other, EndReason.TIME_UP)

    def abandon(self) -> None:
        """The server restarted: the match ends with no winner."""
        self._finish(None, EndReason.ABANDONED)

    def _finish(
        self, winner: Side | None, reason: EndReason, failure: Failure | None = None
    ) -> None:
        if self.phase is Phase.FINISHED:
            raise WrongPhase("Trận đã kết thúc.")
        self.phase = Phase.FINISHED
        self._current = None
        self.result = Result(winner, reason, self.turn, failure)
        self.sequence += 1

    def __repr__(self) -> str:
        return (
            f"Match({self.match_id!r}, {self.phase.value}, turn={self.turn}, "
            f"sequence={self.sequence}, to_move={self._current})"
        )
