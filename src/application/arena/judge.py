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

import msgspec

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
# Deeper nesting than this (in fields the server would ignore anyway) is refused as
# BAD_JSON, so that the verdict never depends on the server's own stack depth.
MAX_DEPTH = 256
# At most this many characters of the bot's own text are quoted in a detail.
QUOTE_LIMIT = 60



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
_BYTE_AT = re.compile(r"\(byte (\d+)\)")
_KIND_BY_FIRST_BYTE = {
    ord("["): "một mảng",
    ord('"'): "một chuỗi",
    ord("t"): "true",
    ord("f"): "false",
    ord("n"): "null",
}


def _quote(text: bytes | str, limit: int = QUOTE_LIMIT) -> str:
    """At most `limit` characters of the bot's text, for a detail."""
    if not isinstance(text, str):
        text = bytes(text).decode("utf-8", "replace")
    return text if len(text) <= limit else text[:limit] + "…"


def _read_int(raw: msgspec.Raw) -> int | None:
    """The integer `raw` holds, or None when it holds anything else."""
    try:
        return _read_int_strict(raw)
    except msgspec.ValidationError:
        return _HUGE if _INTEGER_TEXT.fullmatch(bytes(raw)) else None


def _number(value: int) -> str:
    return str(value) if -(10**18) < value < 10**18 else "số rất lớn"


def _too_deep(reply: bytes) -> bool:
    """Whether brackets outside strings nest deeper than MAX_DEPTH. Only a reply with
    that many brackets is scanned, byte by byte (linear, whatever the bot sent)."""
    if len(reply) <= MAX_DEPTH or reply.count(b"[") + reply.count(b"{") <= MAX_DEPTH:
        return False
    depth = 0
    in_string = escaped = False
    for byte in reply:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte == 0x5B or byte == 0x7B:  # [ {
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif byte == 0x5D or byte == 0x7D:  # ] }
            depth -= 1
    return False


_REASONS = (
    ("invalid character", "có ký tự không hợp lệ"),
    ("invalid number", "có một số viết sai"),
    ("trailing comma", "có dấu phẩy thừa"),
    ("expected ':'", "thiếu dấu hai chấm"),
    ("expected ','", "thiếu dấu phẩy"),
    ("hex escape", "có chuỗi thoát \\u không hợp lệ"),
    ("escape", "có chuỗi thoát \\ không hợp lệ"),
    ("control character", "có ký tự điều khiển trong chuỗi"),
)


#: Added to a BAD_JSON whose line is plainly not JSON (debug text on stdout).
STDERR_HINT = "Dòng này không phải JSON: stdout chỉ dành cho dòng ACTION, log hãy ghi ra stderr."


def _plainly_not_json(reply: bytes) -> bool:
    """Not an object and not JSON at all: text such as `thinking about turn 0`."""
    text = reply.strip(b" \t\r\n")
    if text.startswith((b"{", b"[")):
        return False
    try:
        msgspec.json.decode(text)
    except (msgspec.DecodeError, RecursionError):
        return True
    return False


def _bad_json(reply: bytes, error: Exception) -> Rejected:
    rejected = _bad_json_detail(reply, error)
    if _plainly_not_json(reply):
        return Rejected(FailureCode.BAD_JSON, _with_hint(rejected.detail))
    return rejected


def _with_hint(detail: str) -> str:
    return f"{detail if detail.endswith('.') else detail + '.'} {STDERR_HINT}"


def _bad_json_detail(reply: bytes, error: Exception) -> Rejected:
    message = str(error)
    where = _BYTE_AT.search(message)
    if isinstance(error, RecursionError):
        detail = "JSON lồng nhau quá sâu."
    elif "truncated" in message:
        detail = "JSON bị cụt: thiếu dấu đóng } hoặc ], hoặc thiếu một giá trị."
    elif "trailing characters" in message and where is not None:
        # msgspec's byte is one past the first extra character.
        at = max(int(where.group(1)) - 1, 0)
        detail = (
            f"Sau đối tượng JSON còn dữ liệu thừa (từ byte {at}): {_quote(reply[at:], 40)}. "
            "Mỗi dòng chỉ được có đúng một đối tượng JSON."
        )
    else:
        reason = next((vi for en, vi in _REASONS if en in message), "không hợp lệ")
        if where is not None:
            at = int(where.group(1))
            near = _quote(reply[max(at - 30, 0) : at + 30])
            detail = f"JSON {reason} (gần byte {at}): {near}"
        else:
            detail = f"JSON {reason}."
    return Rejected(FailureCode.BAD_JSON, detail)


def judge(reply: bytes, request: TurnRequest) -> Verdict:
    """Judge one reply line (its bytes without the newline) against `request`."""
    # BAD_JSON: valid UTF-8, exactly one JSON object, only whitespace around it.
    try:
        reply.decode("utf-8")
    except UnicodeDecodeError as error:
        return Rejected(
            FailureCode.BAD_JSON,
            f"Dòng trả lời không phải UTF-8 hợp lệ (byte lỗi ở vị trí {error.start}).",
        )
    if _too_deep(reply):
        return Rejected(FailureCode.BAD_JSON, f"JSON lồng nhau quá sâu (hơn {MAX_DEPTH} tầng).")
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
        text = reply.strip(b" \t\r\n")
        kind = _KIND_BY_FIRST_BYTE.get(text[0], "một số")
        detail = f"Cần một đối tượng JSON {{...}}, nhưng nhận được {kind}: {_quote(text, 40)}."
        if _plainly_not_json(reply):
            detail = _with_hint(detail)
        return Rejected(FailureCode.BAD_JSON, detail)
    except (msgspec.DecodeError, RecursionError) as error:
        return _bad_json(reply, error)

    # WRONG_TYPE
    raw = shape.type
    if not raw:
        return Rejected(FailureCode.WRONG_TYPE, 'Thiếu trường "type": cần "type":"ACTION".')
    try:
        kind = _read_str(raw)
    except msgspec.ValidationError:
        return Rejected(
            FailureCode.WRONG_TYPE, f'"type" phải là chuỗi "ACTION", nhưng nhận được {_quote(raw)}.'
        )
    if kind != "ACTION":
        return Rejected(
            FailureCode.WRONG_TYPE,
            f'"type" phải đúng là "ACTION" (phân biệt chữ hoa, chữ thường), '
            f"nhưng nhận được {_quote(raw)}.",
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
            f"không ngoặc kép), nhưng nhận được {_quote(raw)}.",
        )
    if sequence != expected:
        return Rejected(
            FailureCode.STALE_SEQUENCE,
            f'"sequence" là {_quote(_number(sequence), 30)}, nhưng YOUR_TURN vừa gửi có sequence '
            f"{expected}: hãy chép đúng số đã nhận.",
        )

    # BAD_FIELD: the action's shape.
    raw = shape.action
    if not raw:
        return Rejected(
            FailureCode.BAD_FIELD, 'Thiếu trường "action": cần một hành động lấy từ legalActions.'
        )
    try:
        action = _read_action(raw)
    except msgspec.ValidationError:
        return Rejected(
            FailureCode.BAD_FIELD,
            f'"action" phải là một đối tượng JSON {{...}}, nhưng nhận được {_quote(raw)}.',
        )
    raw = action.type
    if not raw:
        return Rejected(FailureCode.BAD_FIELD, '"action" thiếu "type" ("MOVE" hoặc "PASS").')
    try:
        action_type = _read_str(raw)
    except msgspec.ValidationError:
        return Rejected(
            FailureCode.BAD_FIELD, f'"action.type" phải là chuỗi, nhưng nhận được {_quote(raw)}.'
        )
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
            f'Không có loại hành động {_quote(raw)}: bot chỉ gửi "MOVE" hoặc "PASS".',
        )
    raw = action.pieceId
    if not raw:
        return Rejected(FailureCode.BAD_FIELD, 'MOVE thiếu "pieceId".')
    try:
        piece_id = _read_str(raw)
    except msgspec.ValidationError:
        return Rejected(
            FailureCode.BAD_FIELD, f'"pieceId" phải là chuỗi, nhưng nhận được {_quote(raw)}.'
        )
    origin = _square_field(action.from_, "from")
    if type(origin) is Rejected:
        return origin
    target = _square_field(action.to, "to")
    if type(target) is Rejected:
        return target
    return _judge_move(request, piece_id, origin, target)  # type: ignore[arg-type]


def _square_field(raw: msgspec.Raw, name: str) -> tuple[int, int] | Rejected:
    if not raw:
        return Rejected(FailureCode.BAD_FIELD, f'MOVE thiếu "{name}".')
    try:
        shape = _read_square(raw)
    except msgspec.ValidationError:
        return Rejected(
            FailureCode.BAD_FIELD,
            f'"{name}" phải là đối tượng {{"row":…,"col":…}}, nhưng nhận được {_quote(raw)}.',
        )
    found = []
    for part, value in (("row", shape.row), ("col", shape.col)):
        if not value:
            return Rejected(FailureCode.BAD_FIELD, f'"{name}" thiếu "{part}".')
        number = _read_int(value)
        if number is None:
            return Rejected(
                FailureCode.BAD_FIELD,
                f'"{name}.{part}" phải là số nguyên (không phần thập phân, không số mũ, '
                f"không ngoặc kép), nhưng nhận được {_quote(value)}.",
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
    return f"({_quote(_number(row), 25)},{_quote(_number(col), 25)})"


def _judge_move(
    request: TurnRequest, piece_id: str, origin: tuple[int, int], target: tuple[int, int]
) -> Verdict:
    # MISMATCH: the piece, where it stands, where it may go.
    side = request.side.number
    index = PIECE_INDEX.get(piece_id)
    if index is None:
        return Rejected(
            FailureCode.MISMATCH, f'Không có quân nào mang id "{_quote(piece_id)}".'
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
