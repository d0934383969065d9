"""The judgement of a bot's ACTION line (spec A4, B3).

`judge(reply, request)` checks one reply line in the order of A4 and B3 (BAD_JSON,
WRONG_TYPE, STALE_SEQUENCE, BAD_FIELD, MISMATCH, NOT_LEGAL) and either accepts it,
handing back the server's own action object from the request's list, or rejects it with
a failure code and a short Vietnamese explanation for the bot's owner.

Integers are read with msgspec's strict typed decoding: a JSON number with no fraction
and no exponent; `3.0`, `4e1`, `"3"` and `true` are not integers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

import msgspec

from noitu.application.arena.bad_json import not_an_object, quote, undecodable, unreadable
from noitu.application.arena.protocol import TurnRequest
from noitu.domain.arena.actions import Action, Pass, shared_move
from noitu.domain.arena.board import (
    COLS,
    NEIGHBOUR_SETS,
    OWNER,
    PIECE_INDEX,
    PIECES,
    PIECES_PER_SIDE,
    ROWS,
)
from noitu.domain.arena.failure import FailureCode

# Action types the decoder knows but a bot may never send (the page's actions).
NOT_FOR_BOTS = frozenset({"SURRENDER", "PLACE", "READY", "RANDOM_PLACEMENT"})

T = TypeVar("T")


# -- the verdict ---------------------------------------------------------------------


class Accepted(msgspec.Struct, frozen=True):
    action: Action  # the server's own object, from the request's legal_actions


class Rejected(msgspec.Struct, frozen=True):
    code: FailureCode
    detail: str  # Vietnamese, for the bot's owner


Verdict = Accepted | Rejected

_ABSENT = msgspec.Raw()


class _ReplyShape(msgspec.Struct):
    type: msgspec.Raw = _ABSENT
    sequence: msgspec.Raw = _ABSENT
    action: msgspec.Raw = _ABSENT


class _ActionShape(msgspec.Struct):
    type: msgspec.Raw = _ABSENT
    pieceId: msgspec.Raw = _ABSENT
    from_: msgspec.Raw = msgspec.field(default=_ABSENT, name="from")
    to: msgspec.Raw = _ABSENT


class _SquareShape(msgspec.Struct):
    row: msgspec.Raw = _ABSENT
    col: msgspec.Raw = _ABSENT


class _WellFormedSquare(msgspec.Struct):
    row: int
    col: int


class _WellFormedMove(msgspec.Struct, tag="MOVE", tag_field="type"):
    pieceId: str
    from_: _WellFormedSquare = msgspec.field(name="from")
    to: _WellFormedSquare


class _WellFormedPass(msgspec.Struct, tag="PASS", tag_field="type"):
    pass


class _WellFormedReply(msgspec.Struct):
    type: str
    sequence: int
    action: _WellFormedMove | _WellFormedPass


_read_well_formed = msgspec.json.Decoder(_WellFormedReply).decode
_read_reply = msgspec.json.Decoder(_ReplyShape).decode
_read_action = msgspec.json.Decoder(_ActionShape).decode
_read_square = msgspec.json.Decoder(_SquareShape).decode
_read_str = msgspec.json.Decoder(str).decode
_read_int_strict = msgspec.json.Decoder(int).decode

_INTEGER_TEXT = re.compile(rb"-?(?:0|[1-9][0-9]*)")
# An integer too long for msgspec (thousands of digits) still is an integer: it stands
# for this (off the board, never a request's sequence).
_HUGE = 10**30



def _read_int(raw: msgspec.Raw) -> int | None:
    """The integer `raw` holds, or None when it holds anything else."""
    try:
        return _read_int_strict(raw)
    except msgspec.ValidationError:
        return _HUGE if _INTEGER_TEXT.fullmatch(bytes(raw)) else None


def _number(value: int) -> str:
    return str(value) if -(10**18) < value < 10**18 else "số rất lớn"


def judge(reply: bytes, request: TurnRequest) -> Verdict:
    """Judge one reply line (its bytes without the newline) against `request`."""
    # BAD_JSON: valid UTF-8, exactly one JSON object, only whitespace around it.
    why = unreadable(reply)
    if why is not None:
        return Rejected(FailureCode.BAD_JSON, why)
    # The common case in one strict, typed decoding: a well-formed ACTION with a MOVE
    # or a PASS. Anything else goes through the checks one by one, in A4's order (which
    # reach the same verdict on a well-formed reply, only slower).
    try:
        fast = _read_well_formed(reply)
    except (msgspec.DecodeError, RecursionError):  # ValidationError included
        return _judge_step_by_step(reply, request)
    if fast.type != "ACTION" or fast.sequence != request.sequence:
        return _judge_step_by_step(reply, request)
    action = fast.action
    if type(action) is _WellFormedPass:
        return _judge_pass(request)
    origin, target = action.from_, action.to
    return _judge_move(request, action.pieceId, (origin.row, origin.col), (target.row, target.col))


def _judge_step_by_step(reply: bytes, request: TurnRequest) -> Verdict:
    if not reply.strip(b" \t\r\n"):
        return Rejected(
            FailureCode.BAD_JSON,
            "Dòng trả lời trống: cần đúng một đối tượng JSON ACTION trên một dòng.",
        )
    try:
        shape = _read_reply(reply)
    except msgspec.ValidationError:
        return Rejected(FailureCode.BAD_JSON, not_an_object(reply))
    except (msgspec.DecodeError, RecursionError) as error:
        return Rejected(FailureCode.BAD_JSON, undecodable(reply, error))

    # WRONG_TYPE
    kind = _field(
        shape.type, _read_str, FailureCode.WRONG_TYPE,
        'Thiếu trường "type": cần "type":"ACTION".', '"type" phải là chuỗi "ACTION"',
    )
    if type(kind) is Rejected:
        return kind
    if kind != "ACTION":
        return Rejected(
            FailureCode.WRONG_TYPE,
            f'"type" phải đúng là "ACTION" (phân biệt chữ hoa, chữ thường), '
            f"nhưng nhận được {quote(shape.type)}.",
        )

    # STALE_SEQUENCE
    expected = request.sequence
    raw = shape.sequence
    if not raw:
        return Rejected(
            FailureCode.STALE_SEQUENCE,
            f'Thiếu trường "sequence": cần {expected}, đúng số trong YOUR_TURN vừa nhận.',
        )
    sequence = _read_int(raw)
    if sequence is None:
        return Rejected(
            FailureCode.STALE_SEQUENCE,
            f'"sequence" phải là số nguyên {expected} (không phần thập phân, không số mũ, '
            f"không ngoặc kép), nhưng nhận được {quote(raw)}.",
        )
    if sequence != expected:
        return Rejected(
            FailureCode.STALE_SEQUENCE,
            f'"sequence" là {quote(_number(sequence), 30)}, nhưng YOUR_TURN vừa gửi có sequence '
            f"{expected}: hãy chép đúng số đã nhận.",
        )

    # BAD_FIELD: the action's shape.
    action = _field(
        shape.action, _read_action, FailureCode.BAD_FIELD,
        'Thiếu trường "action": cần một hành động lấy từ legalActions.',
        '"action" phải là một đối tượng JSON {...}',
    )
    if type(action) is Rejected:
        return action
    action_type = _field(
        action.type, _read_str, FailureCode.BAD_FIELD,
        '"action" thiếu "type" ("MOVE" hoặc "PASS").', '"action.type" phải là chuỗi',
    )
    if type(action_type) is Rejected:
        return action_type
    if action_type == "PASS":
        return _judge_pass(request)
    if action_type in NOT_FOR_BOTS:
        return Rejected(
            FailureCode.NOT_LEGAL,
            f"Bot không được gửi {action_type}: chỉ chọn một hành động trong legalActions.",
        )
    if action_type != "MOVE":
        return Rejected(
            FailureCode.BAD_FIELD,
            f'Không có loại hành động {quote(action.type)}: bot chỉ gửi "MOVE" hoặc "PASS".',
        )
    piece_id = _field(
        action.pieceId, _read_str, FailureCode.BAD_FIELD,
        'MOVE thiếu "pieceId".', '"pieceId" phải là chuỗi',
    )
    if type(piece_id) is Rejected:
        return piece_id
    origin = _square_field(action.from_, "from")
    if type(origin) is Rejected:
        return origin
    target = _square_field(action.to, "to")
    if type(target) is Rejected:
        return target
    return _judge_move(request, piece_id, origin, target)  # type: ignore[arg-type]


def _field(
    raw: msgspec.Raw, read: Callable[[msgspec.Raw], T], code: FailureCode, missing: str,
    wrong: str,
) -> T | Rejected:
    """The field `raw` as `read` reads it; `missing` when it is absent, `wrong` and what
    came when it is not of that kind."""
    if not raw:
        return Rejected(code, missing)
    try:
        return read(raw)
    except msgspec.ValidationError:
        return Rejected(code, f"{wrong}, nhưng nhận được {quote(raw)}.")


def _square_field(raw: msgspec.Raw, name: str) -> tuple[int, int] | Rejected:
    shape = _field(
        raw, _read_square, FailureCode.BAD_FIELD,
        f'MOVE thiếu "{name}".', f'"{name}" phải là đối tượng {{"row":…,"col":…}}',
    )
    if type(shape) is Rejected:
        return shape
    found = []
    for part, value in (("row", shape.row), ("col", shape.col)):
        if not value:
            return Rejected(FailureCode.BAD_FIELD, f'"{name}" thiếu "{part}".')
        number = _read_int(value)
        if number is None:
            return Rejected(
                FailureCode.BAD_FIELD,
                f'"{name}.{part}" phải là số nguyên (không phần thập phân, không số mũ, '
                f"không ngoặc kép), nhưng nhận được {quote(value)}.",
            )
        found.append(number)
    return found[0], found[1]


def _judge_pass(request: TurnRequest) -> Verdict:
    for offered in request.legal_actions:
        if type(offered) is Pass:
            return Accepted(offered)
    return Rejected(
        FailureCode.NOT_LEGAL,
        f"Không được PASS khi còn nước đi: legalActions có {len(request.legal_actions)} nước MOVE.",
    )


def _at(row: int, col: int) -> str:
    return f"({quote(_number(row), 25)},{quote(_number(col), 25)})"


def _judge_move(
    request: TurnRequest, piece_id: str, origin: tuple[int, int], target: tuple[int, int]
) -> Verdict:
    # MISMATCH: the piece, where it stands, where it may go.
    side = request.side.number
    index = PIECE_INDEX.get(piece_id)
    if index is None:
        return Rejected(
            FailureCode.MISMATCH, f'Không có quân nào mang id "{quote(piece_id)}".'
        )
    if OWNER[index] != side:
        return Rejected(
            FailureCode.MISMATCH,
            f"{piece_id} là quân của đối thủ; bạn chơi {request.side.value}.",
        )
    positions = request.positions
    at = positions[index]
    if at < 0:
        return Rejected(FailureCode.MISMATCH, f"{piece_id} đã bị loại, không còn trên bàn cờ.")
    row, col = divmod(at, COLS)
    if origin != (row, col):
        return Rejected(
            FailureCode.MISMATCH,
            f'{piece_id} đang ở ô ({row},{col}), nhưng "from" là {_at(*origin)}.',
        )
    to_row, to_col = target
    if not (0 <= to_row < ROWS and 0 <= to_col < COLS):
        return Rejected(
            FailureCode.MISMATCH,
            f'"to" {_at(to_row, to_col)} nằm ngoài bàn cờ {ROWS}×{COLS} '
            f"(row từ 0 đến {ROWS - 1}, col từ 0 đến {COLS - 1}).",
        )
    to = to_row * COLS + to_col
    if to not in NEIGHBOUR_SETS[at]:
        return Rejected(
            FailureCode.MISMATCH,
            f'"to" ({to_row},{to_col}) không kề ô ({row},{col}) của {piece_id}: '
            "mỗi nước chỉ đi một ô theo 8 hướng.",
        )
    low = side * PIECES_PER_SIDE
    if to in positions[low : low + PIECES_PER_SIDE]:
        own = positions.index(to, low, low + PIECES_PER_SIDE)
        return Rejected(
            FailureCode.MISMATCH,
            f'"to" ({to_row},{to_col}) đang có quân của chính bạn ({PIECES[own].id}).',
        )
    # The server's own object, from the list it sent (a complete list holds every move
    # that passed the checks above).
    move = shared_move(index, at, to)
    if request.complete:
        return Accepted(move)  # type: ignore[arg-type]
    for offered in request.legal_actions:
        if offered is move:
            return Accepted(offered)
    return Rejected(FailureCode.NOT_LEGAL, "Nước đi này không có trong legalActions.")
