"""The bot protocol (spec A2, A4, B1, B3): the YOUR_TURN line and the judging of replies."""

from __future__ import annotations

import json
import random

import msgspec
import pytest

from noitu.application.arena.judge import Accepted, Rejected, judge
from noitu.application.arena.protocol import (
    TurnRequest,
    action_line,
    encoded_your_turn,
    request_from_line,
    turn_request,
    your_turn,
)
from noitu.domain.arena.actions import PASS, Move, Pass
from noitu.domain.arena.board import Board, Side, Square
from noitu.domain.arena.failure import FailureCode
from noitu.domain.arena.match import Match

PIECE_IDS_P1 = (
    '["P1-PAPER-1","P1-PAPER-2","P1-PAPER-3","P1-PAPER-4","P1-PAPER-5","P1-PAPER-6",'
    '"P1-ROCK-1","P1-ROCK-2","P1-ROCK-3","P1-ROCK-4","P1-ROCK-5","P1-ROCK-6",'
    '"P1-SCISSORS-1","P1-SCISSORS-2","P1-SCISSORS-3","P1-SCISSORS-4","P1-SCISSORS-5",'
    '"P1-SCISSORS-6"]'
)
PIECE_IDS_P2 = PIECE_IDS_P1.replace("P1-", "P2-")


def a2_example() -> Match:
    """The position of A2's example: P1's ROCK at (4,4), P2's SCISSORS at (3,4)."""
    return Match.in_position(
        "A1B2C3D4", {"P1-ROCK-1": (4, 4), "P2-SCISSORS-1": (3, 4)}, turn=12, sequence=104
    )


def test_the_your_turn_line_is_compact_json_in_the_order_of_a2s_example() -> None:
    request = your_turn(a2_example())

    def step(row: int, col: int) -> str:
        return (
            '{"type":"MOVE","pieceId":"P1-ROCK-1","from":{"row":4,"col":4},'
            f'"to":{{"row":{row},"col":{col}}}}}'
        )

    expected = (
        '{"type":"YOUR_TURN","matchId":"A1B2C3D4","turn":12,"sequence":104,"player":"P1",'
        '"state":{"phase":"PLAYING","currentPlayer":"P1",'
        '"board":{"rows":9,"cols":9,"pieces":['
        '{"id":"P1-ROCK-1","ownerId":"P1","type":"ROCK","status":"ALIVE","position":{"row":4,"col":4}},'
        '{"id":"P2-SCISSORS-1","ownerId":"P2","type":"SCISSORS","status":"ALIVE","position":{"row":3,"col":4}}]},'
        '"players":[{"id":"P1","name":"Player 1","pieceIds":' + PIECE_IDS_P1 + "},"
        '{"id":"P2","name":"Player 2","pieceIds":' + PIECE_IDS_P2 + "}]},"
        '"legalActions":['
        + ",".join(step(r, c) for r, c in [(3, 3), (3, 4), (3, 5), (4, 3), (4, 5), (5, 3), (5, 4), (5, 5)])
        + "]}"
    )
    assert request.line == expected
    assert request.data == expected.encode()
    assert (request.side, request.sequence, request.turn, request.match_id) == (
        Side.P1, 104, 12, "A1B2C3D4"
    )
    assert [a.to for a in request.legal_actions][1] == Square(3, 4)


def test_a_request_for_p2_in_a_real_match() -> None:
    match = Match.between_bots("XY", seed=5)
    first = your_turn(match)
    assert (first.side, first.turn, first.sequence) == (Side.P1, 0, 40)
    match.apply(first.legal_actions[0])
    second = your_turn(match)
    assert (second.side, second.turn, second.sequence) == (Side.P2, 1, 41)
    data = json.loads(second.line)
    assert data["player"] == data["state"]["currentPlayer"] == "P2"
    assert data["state"]["phase"] == "PLAYING"
    pieces = data["state"]["board"]["pieces"]
    assert [p["id"] for p in pieces] == sorted(p["id"] for p in pieces)
    assert len(pieces) == 36
    assert data["legalActions"] == [a.to_json() for a in second.legal_actions]
    assert all(a["pieceId"].startswith("P2-") for a in data["legalActions"])
    assert json.dumps(data, separators=(",", ":"), ensure_ascii=False) == second.line


def test_the_line_joined_from_its_parts_is_the_structs_encoding_byte_for_byte() -> None:
    """`your_turn` joins the line from a frame cut out of the structs' encoding; it must
    stay the same bytes as encoding the structs (and `quoted` the line as a JSON string,
    what the replay's `sent` event holds), through whole matches."""
    rng = random.Random(7)
    requests = []
    for seed in range(4):
        match = Match.between_bots(f"PR{seed:06d}", seed, 200)
        while match.result is None:
            requests.append(your_turn(match))
            match.apply(rng.choice(match.legal_actions()))
    odd_id = 'Trận "số" 1 \\ ✓'
    board = Match.between_bots("PR000009", 9).board
    requests.append(turn_request(odd_id, Side.P2, 9, 4, board, [PASS]))
    for request in requests:
        assert request.data == encoded_your_turn(request)
        assert request.line == request.data.decode()
        assert bytes(request.quoted) == msgspec.json.encode(request.line)
    assert json.loads(requests[-1].line)["matchId"] == odd_id


def test_a_recorded_line_reads_back_as_the_request_it_was() -> None:
    rng = random.Random(11)
    match = Match.between_bots("RB000001", 11, 200)
    while match.result is None:
        request = your_turn(match)
        back = request_from_line(request.line)
        assert back.line == request.line and back.positions == request.positions
        assert back.legal_actions == request.legal_actions and back.complete
        match.apply(rng.choice(match.legal_actions()))
    for line in ("{}", "not json", '{"type":"ACTION"}', request.line.replace('"player":"', '"player":"X', 1)):
        with pytest.raises(ValueError, match="YOUR_TURN"):
            request_from_line(line)


def test_eliminated_pieces_leave_the_board_but_stay_in_piece_ids() -> None:
    match = Match.in_position(
        "M", {"P1-ROCK-1": (4, 4), "P2-SCISSORS-1": (3, 4), "P2-ROCK-3": (0, 0)}
    )
    match.apply(Move("P1-ROCK-1", Square(4, 4), Square(3, 4)))
    data = json.loads(your_turn(match).line)
    assert [p["id"] for p in data["state"]["board"]["pieces"]] == ["P1-ROCK-1", "P2-ROCK-3"]
    players = data["state"]["players"]
    assert [p["name"] for p in players] == ["Player 1", "Player 2"]
    assert "P2-SCISSORS-1" in players[1]["pieceIds"] and len(players[1]["pieceIds"]) == 18


def test_there_is_no_request_unless_a_side_is_to_move() -> None:
    match = Match("M", seed=1)
    with pytest.raises(ValueError):
        your_turn(match)


# -- judging ---------------------------------------------------------------------------------


@pytest.fixture
def request_() -> TurnRequest:
    return your_turn(a2_example())


def reply(sequence: object = 104, action: object = None, **extra: object) -> bytes:
    body: dict[str, object] = {"type": "ACTION", "sequence": sequence}
    if action is not None:
        body["action"] = action
    body.update(extra)
    return json.dumps(body, separators=(",", ":")).encode()


def move_json(piece_id: object = "P1-ROCK-1", origin: object = None, target: object = None) -> dict:
    return {
        "type": "MOVE",
        "pieceId": piece_id,
        "from": {"row": 4, "col": 4} if origin is None else origin,
        "to": {"row": 3, "col": 4} if target is None else target,
    }


def rejected(verdict: object, code: FailureCode) -> str:
    assert isinstance(verdict, Rejected), verdict
    assert verdict.code is code, verdict
    assert verdict.detail and len(verdict.detail) < 400
    return verdict.detail


def test_a_legal_move_is_accepted_as_the_servers_own_object(request_: TurnRequest) -> None:
    verdict = judge(reply(action=move_json()), request_)
    assert isinstance(verdict, Accepted)
    assert verdict.action is request_.legal_actions[1]


@pytest.mark.parametrize(
    "line",
    [
        (b'  {"type":"ACTION","sequence":104,"action":{"type":"MOVE","pieceId":"P1-ROCK-1",'
        b'"from":{"row":4,"col":4},"to":{"row":3,"col":4}}}\t\r'),
        (b'{"action":{"to":{"col":4,"row":3},"from":{"col":4,"row":4},"pieceId":"P1-ROCK-1",'
        b'"type":"MOVE"},"sequence":104,"type":"ACTION"}'),
        (b'{"type":"ACTION","sequence":104,"note":[1,{"x":null}],"action":{"type":"MOVE",'
        b'"pieceId":"P1-ROCK-\\u0031","from":{"row":4,"col":4,"z":1},"to":{"row":3,"col":4},'
        b'"score":9.5},"player":"P2"}'),
    ],
    ids=["whitespace-around", "any-field-order", "extra-fields-and-escapes"],
)
def test_whitespace_field_order_and_extra_fields_do_not_matter(line: bytes, request_: TurnRequest) -> None:
    verdict = judge(line, request_)
    assert isinstance(verdict, Accepted)
    assert verdict.action is request_.legal_actions[1]


def test_a_pass_is_accepted_when_it_is_the_only_action() -> None:
    board = Board.with_pieces({"P1-ROCK-1": (4, 4), "P2-ROCK-1": (0, 0)})
    request = turn_request("M", Side.P2, 41, 1, board, [Pass()])
    assert '"legalActions":[{"type":"PASS"}]}' in request.line
    verdict = judge(b'{"type":"ACTION","sequence":41,"action":{"type":"PASS","why":1}}', request)
    assert isinstance(verdict, Accepted)
    assert verdict.action is request.legal_actions[0] is PASS


@pytest.mark.parametrize(
    "line",
    [
        b"",
        b"   \t",
        b"\xff\xfe",
        b'{"type":"ACTION","sequence":104,"x":"\xc3"}',
        b'{"type":"ACTION","sequence":104,"x":"\xed\xa0\x80"}',  # an encoded surrogate
        b"NaN",
        b'{"type":"ACTION","sequence":NaN}',
        b'{"type":"ACTION"}{"type":"ACTION"}',
        b'{"type":"ACTION"} x',
        b'[{"type":"ACTION"}]',
        b'"ACTION"',
        b"104",
        b"null",
        b"true",
        b'{"type":"ACTION",',
        b'{"type":"ACTION",}',
        b"\xef\xbb\xbf{}",  # a byte-order mark
        b'```json {"type":"ACTION"} ```',
        b"{'type':'ACTION'}",
        b'{"x":' + b"[" * 300 + b"]" * 300 + b"}",
    ],
)
def test_bad_json(line: bytes, request_: TurnRequest) -> None:
    rejected(judge(line, request_), FailureCode.BAD_JSON)


@pytest.mark.parametrize(
    "line",
    [
        b'{"sequence":104,"action":{"type":"PASS"}}',
        b'{"type":"action","sequence":104}',
        b'{"type":"YOUR_TURN","sequence":104}',
        b'{"type":" ACTION","sequence":104}',
        b'{"type":5,"sequence":104}',
        b'{"type":null,"sequence":104}',
        b'{"type":"ACTIONS","sequence":"stale too"}',  # the type is checked first
    ],
)
def test_wrong_type(line: bytes, request_: TurnRequest) -> None:
    rejected(judge(line, request_), FailureCode.WRONG_TYPE)


@pytest.mark.parametrize(
    "sequence", ["missing", 103, 105, 40, 104.0, "104", None, True, 10**40]
)
def test_stale_sequence(sequence: object, request_: TurnRequest) -> None:
    if sequence == "missing":
        line = reply(action={"type": "bogus"}).replace(b'"sequence":104,', b"")
    else:
        line = reply(sequence, {"type": "bogus"})
    rejected(judge(line, request_), FailureCode.STALE_SEQUENCE)


@pytest.mark.parametrize("text", [b"4e1", b"40.0", b"40E0", b"true", b'"40"', b"40.5"])
def test_a_sequence_is_an_integer_with_no_fraction_no_exponent_and_no_boolean(text: bytes) -> None:
    match = Match.between_bots("M", seed=1)
    request = your_turn(match)
    assert request.sequence == 40
    good = action_line(40, request.legal_actions[0]).encode()
    assert isinstance(judge(good, request), Accepted)
    line = good.replace(b'"sequence":40', b'"sequence":' + text)
    assert line != good
    rejected(judge(line, request), FailureCode.STALE_SEQUENCE)


def test_true_is_not_the_sequence_1() -> None:
    board = Board.with_pieces({"P1-ROCK-1": (4, 4), "P2-ROCK-1": (0, 0)})
    only = Move("P1-ROCK-1", Square(4, 4), Square(3, 4))
    request = turn_request("M", Side.P1, 1, 0, board, [only])
    good = reply(1, move_json())
    assert isinstance(judge(good, request), Accepted)
    stale = good.replace(b'"sequence":1', b'"sequence":true')
    rejected(judge(stale, request), FailureCode.STALE_SEQUENCE)


@pytest.mark.parametrize(
    "action",
    [
        "missing",
        None,
        [],
        "MOVE",
        7,
        {},
        {"type": 3},
        {"type": None},
        {"type": "ATTACK"},
        {"type": "move", "pieceId": "P1-ROCK-1", "from": {"row": 4, "col": 4}, "to": {"row": 3, "col": 4}},
        {"type": "MOVE", "from": {"row": 4, "col": 4}, "to": {"row": 3, "col": 4}},
        {"type": "MOVE", "pieceId": "P1-ROCK-1", "to": {"row": 3, "col": 4}},
        {"type": "MOVE", "pieceId": "P1-ROCK-1", "from": {"row": 4, "col": 4}},
        move_json(piece_id=7),
        move_json(piece_id=None),
        move_json(origin=[4, 4]),
        move_json(origin={"row": 4}),
        move_json(target={"col": 4}),
        move_json(origin={"row": 4.0, "col": 4}),
        move_json(target={"row": 3, "col": "4"}),
        move_json(target={"row": True, "col": 4}),
        move_json(target={"row": 3, "col": None}),
    ],
)
def test_bad_field(action: object, request_: TurnRequest) -> None:
    line = reply(104) if action == "missing" else reply(104, action)
    if action is None:
        line = b'{"type":"ACTION","sequence":104,"action":null}'
    rejected(judge(line, request_), FailureCode.BAD_FIELD)


def test_an_exponent_in_a_row_is_a_bad_field(request_: TurnRequest) -> None:
    line = reply(104, move_json()).replace(b'"to":{"row":3', b'"to":{"row":3e0')
    detail = rejected(judge(line, request_), FailureCode.BAD_FIELD)
    assert "3e0" in detail and "to.row" in detail


def test_mismatch_cases() -> None:
    match = Match.in_position(
        "M",
        {"P1-ROCK-1": (4, 4), "P1-PAPER-1": (3, 3), "P2-SCISSORS-1": (3, 4), "P2-ROCK-1": (0, 0)},
    )
    # Eliminate nothing yet; P1-ROCK-2 never stood on the board.
    request = your_turn(match)
    cases = [
        move_json(piece_id="P1-ROCK-9"),  # no such piece
        move_json(piece_id="p1-rock-1"),  # ids are case-sensitive
        move_json(piece_id="P2-SCISSORS-1", origin={"row": 3, "col": 4}, target={"row": 4, "col": 4}),
        move_json(piece_id="P1-ROCK-2"),  # not on the board
        move_json(origin={"row": 4, "col": 5}),  # not where it stands
        move_json(origin={"row": -1, "col": 99}),
        move_json(target={"row": 2, "col": 4}),  # two steps
        move_json(target={"row": 4, "col": 4}),  # standing still
        move_json(target={"row": 3, "col": 3}),  # onto its own piece
        move_json(target={"row": 10**40, "col": 4}),  # off the board
    ]
    for action in cases:
        rejected(judge(reply(40, action), request), FailureCode.MISMATCH)


def test_an_eliminated_piece_and_the_edge_are_mismatches() -> None:
    match = Match.in_position(
        "M", {"P1-ROCK-1": (8, 8), "P1-ROCK-2": (4, 4), "P2-PAPER-1": (3, 4), "P2-ROCK-1": (0, 0)}
    )
    match.apply(Move("P1-ROCK-2", Square(4, 4), Square(3, 4)))  # loses
    match.apply(Move("P2-ROCK-1", Square(0, 0), Square(0, 1)))
    request = your_turn(match)
    detail = rejected(
        judge(reply(request.sequence, move_json(piece_id="P1-ROCK-2")), request), FailureCode.MISMATCH
    )
    assert "P1-ROCK-2" in detail
    off = move_json(origin={"row": 8, "col": 8}, target={"row": 9, "col": 9})
    rejected(judge(reply(request.sequence, off), request), FailureCode.MISMATCH)


@pytest.mark.parametrize("kind", ["SURRENDER", "PLACE", "READY", "RANDOM_PLACEMENT"])
def test_the_pages_actions_are_not_legal_for_bots(kind: str, request_: TurnRequest) -> None:
    action = {"type": kind, "pieceId": "P1-ROCK-1", "to": {"row": 7, "col": 0}}
    detail = rejected(judge(reply(104, action), request_), FailureCode.NOT_LEGAL)
    assert kind in detail


def test_a_pass_while_moves_exist_is_not_legal(request_: TurnRequest) -> None:
    rejected(judge(reply(104, {"type": "PASS"}), request_), FailureCode.NOT_LEGAL)


def test_a_move_missing_from_a_fixtures_list_is_not_legal() -> None:
    board = Board.with_pieces({"P1-ROCK-1": (4, 4), "P2-ROCK-1": (0, 0)})
    request = turn_request("M", Side.P1, 40, 0, board, [PASS])
    rejected(judge(reply(40, move_json()), request), FailureCode.NOT_LEGAL)


def test_details_quote_little_of_the_bots_text(request_: TurnRequest) -> None:
    huge = "x" * 60000
    for line in (
        reply(104, move_json(piece_id=huge)),
        reply(huge, {"type": "PASS"}),
        json.dumps({"type": huge}).encode(),
        json.dumps({"type": "ACTION", "sequence": 104, "action": {"type": huge}}).encode(),
        b'{"type":"ACTION"} ' + huge.encode(),
    ):
        verdict = judge(line, request_)
        assert isinstance(verdict, Rejected)
        assert len(verdict.detail) < 300


def test_the_checks_run_in_the_order_of_the_spec(request_: TurnRequest) -> None:
    # Each line is wrong in several ways; the first in A4's order decides.
    assert judge(b'{"type":"X","sequence":"y","action":5}', request_).code is FailureCode.WRONG_TYPE
    assert judge(b'{"type":"ACTION","sequence":"y","action":5}', request_).code is FailureCode.STALE_SEQUENCE
    assert judge(b'{"type":"ACTION","sequence":104,"action":5}', request_).code is FailureCode.BAD_FIELD
    line = reply(104, move_json(piece_id="P2-NOPE", target={"row": 3.5, "col": 4}))
    assert judge(line, request_).code is FailureCode.BAD_FIELD
    line = reply(104, move_json(piece_id="P2-NOPE"))
    assert judge(line, request_).code is FailureCode.MISMATCH


def test_every_legal_action_is_accepted_and_every_other_move_refused() -> None:
    rng = random.Random(5)
    for seed in range(40):
        match = Match.between_bots("M", seed)
        for _ in range(rng.randint(0, 60)):
            if match.result is not None:
                break
            match.apply(rng.choice(match.legal_actions()))
        if match.result is not None:
            continue
        request = your_turn(match)
        legal = request.legal_actions
        for action in legal:
            verdict = judge(action_line(request.sequence, action).encode(), request)
            assert isinstance(verdict, Accepted) and verdict.action is action
        mine = [p for p, _ in match.board.pieces(request.side)]
        for _ in range(50):
            who = rng.choice(mine)
            at = match.board.square_of(who)
            target = Square(at.row + rng.randint(-2, 2), at.col + rng.randint(-2, 2))
            candidate = Move(who.id, at, target)
            verdict = judge(action_line(request.sequence, candidate).encode(), request)
            if candidate in legal:
                assert isinstance(verdict, Accepted)
            else:
                rejected(verdict, FailureCode.MISMATCH)


def test_the_quick_path_and_the_step_by_step_checks_agree() -> None:
    """judge() decodes a well-formed reply in one go and falls back to the checks one by
    one otherwise; on any reply both reach the same verdict."""
    from noitu.application.arena.judge import _judge_step_by_step

    rng = random.Random(9)
    values: list[object] = [
        0, 1, 3, -1, 8, 9, 40, 104, 3.0, 4e1, "3", "ACTION", "MOVE", "PASS", True, False, None,
        [], {}, {"row": 3, "col": 4}, {"row": 4, "col": 4}, "P1-ROCK-1", "P2-SCISSORS-1", "READY",
    ]
    paths = [
        ("type",), ("sequence",), ("action",), ("action", "type"), ("action", "pieceId"),
        ("action", "from"), ("action", "to"), ("action", "from", "row"), ("action", "to", "col"),
        ("extra",), ("action", "extra"),
    ]
    request = your_turn(a2_example())
    for _ in range(3000):
        body = json.loads(action_line(104, rng.choice(request.legal_actions + (PASS,))))
        for _ in range(rng.randint(0, 2)):
            *parents, last = rng.choice(paths)
            node = body
            for key in parents:
                node = node.get(key) if isinstance(node, dict) else None
            if isinstance(node, dict):
                if rng.random() < 0.25:
                    node.pop(last, None)
                else:
                    node[last] = rng.choice(values)
        line = json.dumps(body, separators=(",", ":")).encode()
        assert judge(line, request) == _judge_step_by_step(line, request), line


def test_a_moves_key_is_not_part_of_its_value() -> None:
    request = your_turn(a2_example())
    shared = request.legal_actions[1]
    by_hand = Move("P1-ROCK-1", Square(4, 4), Square(3, 4))
    assert shared == by_hand and hash(shared) == hash(by_hand)
    assert shared.key >= 0 and by_hand.key == -1
    # A fixture listing hand-built moves gets the engine's own objects.
    board = Board.with_pieces({"P1-ROCK-1": (4, 4), "P2-SCISSORS-1": (3, 4)})
    fixture = turn_request("A1B2C3D4", Side.P1, 104, 12, board, [by_hand])
    assert fixture.legal_actions[0] is shared
    assert isinstance(judge(reply(104, move_json()), fixture), Accepted)


def test_brackets_inside_strings_do_not_count_as_nesting(request_: TurnRequest) -> None:
    note = '\\"' + "[" * 300 + '{\\\\'  # an escaped quote, brackets, an escaped backslash
    line = reply(104, move_json()).replace(b'"type":"ACTION"', f'"type":"ACTION","note":"{note}"'.encode())
    assert json.loads(line)["note"].startswith('"[[[')
    verdict = judge(line, request_)
    assert isinstance(verdict, Accepted)
    deep = reply(104, move_json()).replace(b'"type":"ACTION"', b'"type":"ACTION","n":' + b"[" * 257 + b"]" * 257)
    rejected(judge(deep, request_), FailureCode.BAD_JSON)
    shallow = reply(104, move_json()).replace(b'"type":"ACTION"', b'"type":"ACTION","n":' + b"[" * 255 + b"]" * 255)
    assert isinstance(judge(shallow, request_), Accepted)


@pytest.mark.parametrize("line", [b"thinking about turn 0", b"debug: x=3", b"42 is the answer"])
def test_a_bad_json_line_that_is_plainly_not_json_says_debug_output_goes_to_stderr(
    line: bytes, request_: TurnRequest
) -> None:
    detail = rejected(judge(line, request_), FailureCode.BAD_JSON)
    assert "stderr" in detail


@pytest.mark.parametrize("line", [b'{"type":"ACTION",', b"true", b"[1,2]", b'"ACTION"'])
def test_a_bad_json_line_that_is_json_or_nearly_gets_no_stderr_hint(
    line: bytes, request_: TurnRequest
) -> None:
    assert "stderr" not in rejected(judge(line, request_), FailureCode.BAD_JSON)
