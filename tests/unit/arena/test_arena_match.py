"""A match from placement to the result (spec A3, B1, B4): sequence, turn, endings and
the seeded placement."""

from __future__ import annotations

import itertools
import random

import pytest

from noitu.domain.arena.actions import Move
from noitu.domain.arena.board import Board, Side, Square, piece, pieces_of
from noitu.domain.arena.errors import IllegalAction, PlacementError, WrongPhase
from noitu.domain.arena.failure import FailureCode
from noitu.domain.arena.match import EndReason, Failure, Match, Phase, Result
from noitu.domain.arena.placement import HOME_SQUARES, PLACEMENT_ORDER, Placement, may_start_on


def move(piece_id: str, origin: tuple[int, int], target: tuple[int, int]) -> Move:
    return Move(piece_id, Square(*origin), Square(*target))


def shuffle_back_and_forth(match: Match, times: int) -> None:
    """Walk P1-ROCK-1 and P2-ROCK-1 (far apart, on empty rows) to and fro."""
    for _ in range(times):
        side = match.current_player
        piece_id = f"{side}-ROCK-1"
        at = match.board.square_of(piece_id)
        assert at is not None
        step = 1 if at.col < 4 else -1
        match.apply(move(piece_id, (at.row, at.col), (at.row, at.col + step)))


def walkers(**options: object) -> Match:
    pieces = {"P1-ROCK-1": (6, 3), "P1-ROCK-2": (8, 8), "P2-ROCK-1": (2, 3), "P2-ROCK-2": (0, 0)}
    return Match.in_position("T", pieces, **options)  # type: ignore[arg-type]


# -- turn and the turn limit -----------------------------------------------------------------


def test_turn_counts_the_actions_applied_and_p1_moves_first() -> None:
    match = Match.between_bots("M", seed=1)
    assert (match.phase, match.turn, match.current_player) == (Phase.PLAYING, 0, Side.P1)
    rng = random.Random(0)
    for expected in range(1, 6):
        match.apply(rng.choice(match.legal_actions()))
        assert match.turn == expected
        assert match.current_player is (Side.P2 if expected % 2 else Side.P1)


def test_at_the_turn_limit_more_pieces_alive_wins() -> None:
    match = walkers(turn_limit=4)
    match.board.remove(piece("P2-ROCK-2"))
    shuffle_back_and_forth(match, 3)
    assert match.phase is Phase.PLAYING  # three actions: not yet
    shuffle_back_and_forth(match, 1)
    assert match.result == Result(Side.P1, EndReason.TURN_LIMIT, 4)
    with pytest.raises(WrongPhase):
        match.apply(move("P1-ROCK-2", (8, 8), (7, 8)))


def test_at_the_turn_limit_equal_counts_are_a_draw() -> None:
    match = walkers(turn_limit=6)
    shuffle_back_and_forth(match, 6)
    assert match.result == Result(None, EndReason.TURN_LIMIT, 6)
    assert match.result.to_json() == {
        "winner": None, "reason": "TURN_LIMIT", "turns": 6, "failure": None
    }


def test_the_default_limit_is_200_turns() -> None:
    match = walkers(turn=190)
    assert match.turn_limit == 200
    shuffle_back_and_forth(match, 9)
    assert match.phase is Phase.PLAYING and match.turn == 199
    shuffle_back_and_forth(match, 1)
    assert match.result == Result(None, EndReason.TURN_LIMIT, 200)


def test_a_base_taken_by_the_200th_action_is_base_captured() -> None:
    match = Match.in_position(
        "T", {"P1-ROCK-1": (1, 7), "P2-ROCK-1": (5, 5), "P2-ROCK-2": (5, 6)}, turn=199
    )
    match.apply(move("P1-ROCK-1", (1, 7), (0, 8)))
    # P1 has fewer pieces: by the turn limit P2 would have won.
    assert match.result == Result(Side.P1, EndReason.BASE_CAPTURED, 200)


def test_the_last_piece_taken_by_the_200th_action_is_no_pieces() -> None:
    match = Match.in_position(
        "T", {"P1-ROCK-1": (4, 4), "P2-SCISSORS-1": (3, 4)}, turn=199
    )
    match.apply(move("P1-ROCK-1", (4, 4), (3, 4)))
    assert match.result == Result(Side.P1, EndReason.NO_PIECES, 200)


def test_a_side_that_loses_its_last_piece_loses_even_as_the_attacker() -> None:
    match = Match.in_position("T", {"P1-ROCK-1": (4, 4), "P2-PAPER-1": (3, 4)})
    match.apply(move("P1-ROCK-1", (4, 4), (3, 4)))
    assert match.result == Result(Side.P2, EndReason.NO_PIECES, 1)


def test_a_base_taken_with_the_last_defender_is_base_captured_not_no_pieces() -> None:
    match = Match.in_position("T", {"P1-ROCK-1": (1, 8), "P2-SCISSORS-1": (0, 8)})
    match.apply(move("P1-ROCK-1", (1, 8), (0, 8)))
    assert match.board.alive_count(Side.P2) == 0
    assert match.result == Result(Side.P1, EndReason.BASE_CAPTURED, 1)


def test_a_set_up_that_is_already_over_is_refused() -> None:
    with pytest.raises(ValueError):
        Match.in_position("T", {"P1-ROCK-1": (4, 4)})
    with pytest.raises(ValueError):
        Match.in_position("T", {"P1-ROCK-1": (0, 8), "P2-ROCK-1": (4, 4)})
    with pytest.raises(ValueError):
        Match.in_position("T", {"P1-ROCK-1": (4, 4), "P2-ROCK-1": (4, 4)})


# -- sequence ---------------------------------------------------------------------------------


def test_sequence_is_40_for_p1s_first_request_between_bots() -> None:
    match = Match.between_bots("M", seed=3)
    assert match.sequence == 40 == 1 + 36 + 2 + 1


def test_a_bots_successive_requests_differ_by_exactly_2() -> None:
    match = Match.between_bots("M", seed=4)
    rng = random.Random(4)
    seen: dict[Side, list[int]] = {Side.P1: [], Side.P2: []}
    while match.phase is Phase.PLAYING:
        seen[match.current_player].append(match.sequence)  # type: ignore[index]
        match.apply(rng.choice(match.legal_actions()))
    assert seen[Side.P1][0] == 40 and seen[Side.P2][0] == 41
    for numbers in seen.values():
        assert {b - a for a, b in itertools.pairwise(numbers)} == {2}
    assert match.sequence == 40 + match.turn + 1  # every action, then the end


def test_sequence_counts_every_change_during_placement() -> None:
    match = Match("M", seed=5)
    assert (match.phase, match.sequence, match.turn) == (Phase.PLACEMENT, 1, 0)
    assert match.place(Side.P1, "P1-ROCK-1", Square(7, 0))
    assert match.sequence == 2
    assert match.place(Side.P1, "P1-ROCK-1", Square(7, 1))  # moved: a change
    assert match.sequence == 3
    assert not match.place(Side.P1, "P1-ROCK-1", Square(7, 1))  # already there: none
    assert match.sequence == 3
    placed = match.random_placement(Side.P1)
    assert len(placed) == 17 and match.sequence == 20
    assert match.board.square_of("P1-ROCK-1") == Square(7, 1)  # kept
    match.ready(Side.P1)
    assert match.sequence == 21 and match.phase is Phase.PLACEMENT
    match.random_placement(Side.P2)
    match.ready(Side.P2)
    # 18 more pieces, a READY, and the start of play.
    assert match.sequence == 21 + 18 + 1 + 1
    assert (match.phase, match.current_player, match.turn) == (Phase.PLAYING, Side.P1, 0)


def test_an_ending_from_outside_is_a_change_too() -> None:
    match = Match.between_bots("M", seed=6)
    match.surrender(Side.P2)
    assert match.sequence == 41


# -- endings from outside -------------------------------------------------------------------


def test_a_failed_bot_loses_with_its_failure() -> None:
    match = Match.between_bots("M", seed=7)
    match.apply(match.legal_actions()[0])
    match.fail(Side.P2, FailureCode.TIMEOUT, "Quá 2 giây.")
    assert match.result == Result(
        Side.P1, EndReason.BOT_FAILED, 1, Failure(Side.P2, FailureCode.TIMEOUT, "Quá 2 giây.")
    )
    assert match.result.to_json() == {
        "winner": "P1",
        "reason": "BOT_FAILED",
        "turns": 1,
        "failure": {"player": "P2", "code": "TIMEOUT", "detail": "Quá 2 giây."},
    }
    assert match.phase is Phase.FINISHED and match.current_player is None
    assert match.legal_actions() == ()


@pytest.mark.parametrize(
    ("end", "winner", "reason"),
    [
        (lambda m: m.surrender(Side.P1), Side.P2, EndReason.SURRENDER),
        (lambda m: m.time_up(Side.P2), Side.P1, EndReason.TIME_UP),
        (lambda m: m.abandon(), None, EndReason.ABANDONED),
    ],
    ids=["surrender", "time-up", "abandoned"],
)
def test_other_endings(end, winner: Side | None, reason: EndReason) -> None:
    match = Match.between_bots("M", seed=8)
    end(match)
    assert match.result == Result(winner, reason, 0)


def test_a_match_ends_only_once_and_then_takes_no_action() -> None:
    match = Match.between_bots("M", seed=9)
    action = match.legal_actions()[0]
    match.abandon()
    with pytest.raises(WrongPhase):
        match.surrender(Side.P1)
    with pytest.raises(WrongPhase):
        match.apply(action)
    assert match.result == Result(None, EndReason.ABANDONED, 0)


def test_a_person_may_surrender_during_placement() -> None:
    match = Match("M", seed=10)
    match.surrender(Side.P1)
    assert match.result == Result(Side.P2, EndReason.SURRENDER, 0)


# -- placement --------------------------------------------------------------------------------


def b1_placement(seed: int) -> dict[str, tuple[int, int]]:
    """Spec B1 written out once more, plainly."""
    rng = random.Random(seed)
    found: dict[str, tuple[int, int]] = {}
    for side, below in (("P1", True), ("P2", False)):
        base = (8, 0) if side == "P1" else (0, 8)
        squares = [
            (r, c)
            for r in range(9)
            for c in range(9)
            if (r > c if below else r < c) and (r, c) != base
        ]
        assert len(squares) == 35
        rng.shuffle(squares)
        ids = [f"{side}-{kind}-{n}" for kind in ("ROCK", "PAPER", "SCISSORS") for n in range(1, 7)]
        found.update(zip(ids, squares[:18]))
    return found


@pytest.mark.parametrize("seed", [0, 1, 42, 2**40 + 7])
def test_the_servers_placement_is_b1s_from_the_seed(seed: int) -> None:
    expected = b1_placement(seed)
    match = Match.between_bots("M", seed)
    assert {p.id: (at.row, at.col) for p, at in match.board.pieces()} == expected
    assert {p.id: (at.row, at.col) for p, at in Placement.seeded(seed).pieces} == expected
    assert match.starting_placement == Placement.seeded(seed)


def test_the_placement_is_reproducible_and_differs_between_seeds() -> None:
    assert Placement.seeded(11) == Placement.seeded(11)
    assert Placement.seeded(11) != Placement.seeded(12)


@pytest.mark.parametrize("seed", range(30))
def test_the_placement_is_legal(seed: int) -> None:
    board = Placement.seeded(seed).board()
    for side in Side:
        mine = board.pieces(side)
        assert len(mine) == 18
        for _, at in mine:
            assert at != side.base
            assert (at.row > at.col) if side is Side.P1 else (at.row < at.col)
    assert len({at for _, at in board.pieces()}) == 36


def test_each_side_has_35_starting_squares_off_the_diagonal_and_its_base() -> None:
    for side in Side:
        squares = HOME_SQUARES[side]
        assert len(squares) == 35
        assert list(squares) == sorted(squares, key=lambda s: (s.row, s.col))
        assert side.base not in squares and all(s.row != s.col for s in squares)
    assert may_start_on(Side.P1, Square(7, 0)) and not may_start_on(Side.P1, Square(0, 7))
    assert [p.id for p in PLACEMENT_ORDER[Side.P2]][::6] == ["P2-ROCK-1", "P2-PAPER-1", "P2-SCISSORS-1"]


@pytest.mark.parametrize(
    ("piece_id", "at"),
    [
        ("P2-ROCK-1", Square(7, 0)),  # not P1's piece
        ("P1-ROCK-1", Square(0, 7)),  # P2's half
        ("P1-ROCK-1", Square(4, 4)),  # the diagonal
        ("P1-ROCK-1", Square(8, 0)),  # the base
        ("P1-ROCK-1", Square(9, 0)),  # off the board
        ("P1-ROCK-9", Square(7, 0)),  # no such piece
    ],
)
def test_a_placement_off_ones_own_half_is_refused(piece_id: str, at: Square) -> None:
    match = Match("M", seed=1)
    with pytest.raises(PlacementError):
        match.place(Side.P1, piece_id, at)
    assert match.sequence == 1 and match.board == Board()


def test_placement_refuses_an_occupied_square_a_premature_ready_and_late_changes() -> None:
    match = Match("M", seed=1)
    match.place(Side.P2, "P2-ROCK-1", Square(0, 1))
    with pytest.raises(PlacementError):
        match.place(Side.P2, "P2-ROCK-2", Square(0, 1))
    with pytest.raises(PlacementError):
        match.ready(Side.P2)  # 17 pieces still to place
    match.random_placement(Side.P2)
    match.ready(Side.P2)
    with pytest.raises(PlacementError):
        match.place(Side.P2, "P2-ROCK-1", Square(0, 2))
    with pytest.raises(PlacementError):
        match.ready(Side.P2)
    with pytest.raises(WrongPhase):
        match.apply(move("P1-ROCK-1", (7, 0), (6, 0)))
    match.place_rest_and_ready(Side.P1)
    assert match.phase is Phase.PLAYING
    with pytest.raises(WrongPhase):
        match.place(Side.P1, "P1-ROCK-1", Square(7, 0))


def test_during_placement_each_side_sees_only_its_own_pieces() -> None:
    match = Match("M", seed=2)
    match.random_placement(Side.P1)
    match.place(Side.P2, "P2-ROCK-1", Square(0, 1))
    assert {p.side for p, _ in match.board_for(Side.P1).pieces()} == {Side.P1}
    assert [p.id for p, _ in match.board_for(Side.P2).pieces()] == ["P2-ROCK-1"]
    assert match.board_for(None).pieces() == []
    match.place_rest_and_ready(Side.P1)
    match.place_rest_and_ready(Side.P2)
    assert len(match.board_for(Side.P1).pieces()) == 36
    assert match.board_for(None) == match.board


def test_a_person_s_random_placement_draws_from_the_match_seed() -> None:
    first, second = Match("M", seed=3), Match("M", seed=3)
    for match in (first, second):
        match.place(Side.P1, "P1-SCISSORS-6", Square(8, 1))
        match.random_placement(Side.P1)
    assert first.board == second.board
    assert first.board.square_of("P1-SCISSORS-6") == Square(8, 1)
    assert len(first.board.pieces(Side.P1)) == 18


def test_board_views_are_copies() -> None:
    match = Match.between_bots("M", seed=4)
    view = match.board_for(Side.P1)
    view.remove(pieces_of(Side.P1)[0])
    assert match.board.alive_count(Side.P1) == 18


def test_an_illegal_action_changes_nothing() -> None:
    match = Match.between_bots("M", seed=5)
    before = (match.board.copy(), match.sequence, match.turn, match.current_player)
    with pytest.raises(IllegalAction):
        match.apply(move("P1-ROCK-1", (0, 0), (0, 1)))
    assert (match.board, match.sequence, match.turn, match.current_player) == before
