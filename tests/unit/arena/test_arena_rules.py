"""The rules of Búa Bao Kéo 9×9 (spec A3, B1): moves, fights, bases, PASS."""

from __future__ import annotations

import pytest

from noitu.domain.arena.actions import PASS, Fight, FightResult, Move, Pass, fight_result
from noitu.domain.arena.board import (
    BASES,
    NEIGHBOURS,
    PIECES,
    Board,
    PieceType,
    Side,
    Square,
    pieces_of,
    square,
)
from noitu.domain.arena.errors import IllegalAction, NotYourTurn
from noitu.domain.arena.match import EndReason, Match, Phase
from noitu.domain.arena.rules import legal_actions, play

# Two far-away pieces that keep both sides alive without touching the action.
KEEP_P1 = {"P1-PAPER-6": (8, 4)}
KEEP_P2 = {"P2-PAPER-6": (0, 4)}


def position(pieces: dict[str, tuple[int, int]], **options: object) -> Match:
    return Match.in_position("T", {**KEEP_P1, **KEEP_P2, **pieces}, **options)  # type: ignore[arg-type]


def move(piece_id: str, origin: tuple[int, int], target: tuple[int, int]) -> Move:
    return Move(piece_id, Square(*origin), Square(*target))


# -- the pieces and the board ----------------------------------------------------------


def test_there_are_36_pieces_named_by_side_type_and_number_in_code_point_order() -> None:
    ids = [p.id for p in PIECES]
    assert len(ids) == 36
    assert ids == sorted(ids)
    assert ids[:3] == ["P1-PAPER-1", "P1-PAPER-2", "P1-PAPER-3"]
    assert ids[17] == "P1-SCISSORS-6" and ids[18] == "P2-PAPER-1"
    for side in Side:
        own = pieces_of(side)
        assert [p.side for p in own] == [side] * 18
        for kind in PieceType:
            assert sorted(p.id for p in own if p.type is kind) == [
                f"{side}-{kind}-{n}" for n in range(1, 7)
            ]


def test_the_bases_are_a9_and_i1() -> None:
    assert BASES[Side.P1] == Square(8, 0) and Square(8, 0).label == "A9"
    assert BASES[Side.P2] == Square(0, 8) and Square(0, 8).label == "I1"
    assert Side.P1.other is Side.P2 and Side.P2.other is Side.P1


def test_each_square_has_its_one_step_neighbours_in_row_major_order() -> None:
    assert NEIGHBOURS[square(0, 0).index] == (1, 9, 10)
    middle = [divmod(i, 9) for i in NEIGHBOURS[square(4, 4).index]]
    assert middle == [(3, 3), (3, 4), (3, 5), (4, 3), (4, 5), (5, 3), (5, 4), (5, 5)]
    assert sorted(len(n) for n in NEIGHBOURS)[:4] == [3, 3, 3, 3]


@pytest.mark.parametrize(
    ("attacker", "defender", "result"),
    [
        (PieceType.ROCK, PieceType.SCISSORS, FightResult.WIN),
        (PieceType.SCISSORS, PieceType.PAPER, FightResult.WIN),
        (PieceType.PAPER, PieceType.ROCK, FightResult.WIN),
        (PieceType.SCISSORS, PieceType.ROCK, FightResult.LOSE),
        (PieceType.PAPER, PieceType.SCISSORS, FightResult.LOSE),
        (PieceType.ROCK, PieceType.PAPER, FightResult.LOSE),
        (PieceType.ROCK, PieceType.ROCK, FightResult.TIE),
        (PieceType.PAPER, PieceType.PAPER, FightResult.TIE),
        (PieceType.SCISSORS, PieceType.SCISSORS, FightResult.TIE),
    ],
)
def test_rock_beats_scissors_beats_paper_beats_rock(
    attacker: PieceType, defender: PieceType, result: FightResult
) -> None:
    assert fight_result(attacker, defender) is result
    assert attacker.beats(defender) is (result is FightResult.WIN)


# -- legal actions -----------------------------------------------------------------------


def test_legal_moves_go_one_step_in_8_directions_ordered_by_piece_then_target() -> None:
    match = position({"P1-ROCK-1": (4, 4), "P1-PAPER-1": (8, 8)})
    actions = match.legal_actions()
    pairs = [(a.piece_id, a.to.row, a.to.col) for a in actions if isinstance(a, Move)]
    assert pairs == sorted(pairs)
    assert [p for p in pairs if p[0] == "P1-PAPER-1"] == [
        ("P1-PAPER-1", 7, 7), ("P1-PAPER-1", 7, 8), ("P1-PAPER-1", 8, 7)
    ]  # a corner: three moves
    assert [(r, c) for pid, r, c in pairs if pid == "P1-ROCK-1"] == [
        (3, 3), (3, 4), (3, 5), (4, 3), (4, 5), (5, 3), (5, 4), (5, 5)
    ]
    # PAPER before ROCK (code-point order of id), whatever the squares.
    assert pairs[0][0] == "P1-PAPER-1"
    assert all(a.from_ == Square(8, 8) for a in actions if a.piece_id == "P1-PAPER-1")


def test_a_move_never_lands_on_an_own_piece_but_may_land_on_an_enemy() -> None:
    match = position({"P1-ROCK-1": (4, 4), "P1-ROCK-2": (3, 4), "P2-ROCK-1": (5, 4)})
    targets = {a.to for a in match.legal_actions() if a.piece_id == "P1-ROCK-1"}
    assert Square(3, 4) not in targets
    assert Square(5, 4) in targets
    with pytest.raises(IllegalAction):
        match.apply(move("P1-ROCK-1", (4, 4), (3, 4)))
    assert match.turn == 0 and match.sequence == 40


@pytest.mark.parametrize(
    "target",
    [(2, 4), (4, 6), (4, 4), (6, 6)],
    ids=["two-up", "two-right", "stay", "knight-ish"],
)
def test_a_move_of_more_than_one_step_is_refused(target: tuple[int, int]) -> None:
    match = position({"P1-ROCK-1": (4, 4)})
    with pytest.raises(IllegalAction):
        match.apply(move("P1-ROCK-1", (4, 4), target))


def test_moves_off_the_board_are_neither_offered_nor_accepted() -> None:
    match = position({"P1-ROCK-1": (8, 8)})
    assert all(a.to.on_board for a in match.legal_actions())
    with pytest.raises(IllegalAction):
        match.apply(move("P1-ROCK-1", (8, 8), (9, 8)))


def test_a_side_moves_only_its_own_pieces_from_where_they_stand() -> None:
    match = position({"P1-ROCK-1": (4, 4), "P2-ROCK-1": (2, 2)})
    with pytest.raises(IllegalAction):
        match.apply(move("P2-ROCK-1", (2, 2), (3, 3)))  # the opponent's piece
    with pytest.raises(IllegalAction):
        match.apply(move("P1-ROCK-1", (4, 5), (3, 5)))  # not where it stands
    with pytest.raises(IllegalAction):
        match.apply(move("P1-ROCK-2", (0, 0), (0, 1)))  # not on the board
    with pytest.raises(NotYourTurn):
        match.apply(move("P1-ROCK-1", (4, 4), (3, 4)), by=Side.P2)
    assert match.apply(move("P1-ROCK-1", (4, 4), (3, 4)), by=Side.P1) is None
    assert match.board.square_of("P1-ROCK-1") == Square(3, 4)


def test_pass_is_offered_alone_and_only_when_no_move_exists() -> None:
    board = Board.with_pieces({"P2-ROCK-1": (4, 4)})
    assert legal_actions(board, Side.P1) == (PASS,)
    assert play(board, Side.P1, Pass()) is None  # PASS changes nothing
    assert board == Board.with_pieces({"P2-ROCK-1": (4, 4)})
    assert PASS not in legal_actions(board, Side.P2)
    with pytest.raises(IllegalAction):
        play(board, Side.P2, PASS)


def test_a_pass_is_refused_while_a_move_exists() -> None:
    match = position({"P1-ROCK-1": (4, 4)})
    assert PASS not in match.legal_actions()
    with pytest.raises(IllegalAction):
        match.apply(PASS)
    assert match.turn == 0 and match.current_player is Side.P1


# -- moves and fights ----------------------------------------------------------------------


def test_a_move_to_an_empty_square_passes_the_turn() -> None:
    match = position({"P1-ROCK-1": (4, 4)})
    assert match.apply(move("P1-ROCK-1", (4, 4), (3, 3))) is None
    assert match.board.square_of("P1-ROCK-1") == Square(3, 3)
    assert match.board.piece_at(Square(4, 4)) is None
    assert (match.turn, match.sequence, match.current_player) == (1, 41, Side.P2)


def test_an_attacker_that_wins_stands_on_the_target_and_the_defender_is_eliminated() -> None:
    match = position({"P1-ROCK-1": (4, 4), "P2-SCISSORS-1": (3, 4)})
    fight = match.apply(move("P1-ROCK-1", (4, 4), (3, 4)))
    assert fight == Fight("P1-ROCK-1", "P2-SCISSORS-1", FightResult.WIN)
    assert fight.to_json() == {"attacker": "P1-ROCK-1", "defender": "P2-SCISSORS-1", "result": "WIN"}
    assert match.board.square_of("P1-ROCK-1") == Square(3, 4)
    assert match.board.square_of("P2-SCISSORS-1") is None
    assert match.board.piece_at(Square(4, 4)) is None
    assert match.board.alive_count(Side.P2) == 1
    assert match.phase is Phase.PLAYING


def test_an_attacker_that_loses_is_eliminated_and_the_defender_stays() -> None:
    match = position({"P1-ROCK-1": (4, 4), "P2-PAPER-1": (3, 4)})
    fight = match.apply(move("P1-ROCK-1", (4, 4), (3, 4)))
    assert fight == Fight("P1-ROCK-1", "P2-PAPER-1", FightResult.LOSE)
    assert match.board.square_of("P1-ROCK-1") is None
    assert match.board.piece_at(Square(4, 4)) is None
    assert match.board.square_of("P2-PAPER-1") == Square(3, 4)
    assert match.board.alive_count(Side.P1) == 1


def test_a_tie_leaves_both_where_they_are_and_the_turn_still_counts() -> None:
    match = position({"P1-SCISSORS-1": (4, 4), "P2-SCISSORS-1": (3, 5)})
    fight = match.apply(move("P1-SCISSORS-1", (4, 4), (3, 5)))
    assert fight == Fight("P1-SCISSORS-1", "P2-SCISSORS-1", FightResult.TIE)
    assert match.board.square_of("P1-SCISSORS-1") == Square(4, 4)
    assert match.board.square_of("P2-SCISSORS-1") == Square(3, 5)
    assert (match.turn, match.sequence, match.current_player) == (1, 41, Side.P2)


def test_p2_attacks_too() -> None:
    match = position({"P2-PAPER-1": (3, 3), "P1-ROCK-1": (4, 4)}, current_player=Side.P2)
    fight = match.apply(move("P2-PAPER-1", (3, 3), (4, 4)))
    assert fight == Fight("P2-PAPER-1", "P1-ROCK-1", FightResult.WIN)
    assert match.current_player is Side.P1


def test_actions_have_the_protocol_form() -> None:
    assert move("P1-ROCK-1", (4, 4), (3, 4)).to_json() == {
        "type": "MOVE",
        "pieceId": "P1-ROCK-1",
        "from": {"row": 4, "col": 4},
        "to": {"row": 3, "col": 4},
    }
    assert PASS.to_json() == {"type": "PASS"}


# -- bases ---------------------------------------------------------------------------------


def test_a_move_onto_the_empty_enemy_base_takes_it() -> None:
    match = position({"P1-ROCK-1": (1, 7)})
    assert match.apply(move("P1-ROCK-1", (1, 7), (0, 8))) is None
    assert match.phase is Phase.FINISHED
    assert match.result is not None
    assert (match.result.winner, match.result.reason, match.result.turns) == (
        Side.P1, EndReason.BASE_CAPTURED, 1
    )
    assert match.sequence == 42  # the action, then the end


def test_a_fight_won_on_the_enemy_base_takes_it() -> None:
    match = position({"P1-ROCK-1": (1, 8), "P2-SCISSORS-1": (0, 8)})
    assert match.apply(move("P1-ROCK-1", (1, 8), (0, 8))).result is FightResult.WIN
    assert match.result is not None
    assert (match.result.winner, match.result.reason) == (Side.P1, EndReason.BASE_CAPTURED)


def test_a_tie_on_a_defended_base_does_not_take_it() -> None:
    match = position({"P1-ROCK-1": (1, 8), "P2-ROCK-1": (0, 8)})
    assert match.apply(move("P1-ROCK-1", (1, 8), (0, 8))).result is FightResult.TIE
    assert match.phase is Phase.PLAYING and match.result is None
    assert match.board.piece_at(Square(0, 8)).id == "P2-ROCK-1"


def test_a_fight_lost_on_a_defended_base_does_not_take_it() -> None:
    match = position({"P1-ROCK-1": (1, 8), "P2-PAPER-1": (0, 8)})
    assert match.apply(move("P1-ROCK-1", (1, 8), (0, 8))).result is FightResult.LOSE
    assert match.phase is Phase.PLAYING


def test_p2_takes_p1s_base_by_beating_its_defender() -> None:
    match = position(
        {"P1-PAPER-1": (8, 0), "P2-SCISSORS-1": (7, 1)}, current_player=Side.P2
    )
    match.apply(move("P2-SCISSORS-1", (7, 1), (8, 0)))
    assert match.result is not None
    assert (match.result.winner, match.result.reason) == (Side.P2, EndReason.BASE_CAPTURED)


def test_a_side_may_move_onto_its_own_base() -> None:
    match = position({"P1-ROCK-1": (7, 0)})
    assert move("P1-ROCK-1", (7, 0), (8, 0)) in match.legal_actions()
    match.apply(move("P1-ROCK-1", (7, 0), (8, 0)))
    assert match.phase is Phase.PLAYING
    assert match.board.piece_at(Square(8, 0)).id == "P1-ROCK-1"
    match.apply(move("P2-PAPER-6", (0, 4), (1, 4)))
    assert move("P1-ROCK-1", (8, 0), (7, 0)) in match.legal_actions()  # and off again
