"""The bot protocol's request (spec A2, B1): the YOUR_TURN line the server writes.

`your_turn(match)` builds the request for the side to move: compact JSON, fields in the
order of A2's example, pieces and pieceIds in code-point order of id, legalActions by
pieceId, then to.row, then to.col. Its reply is judged by `judge.judge`.
"""

from __future__ import annotations

from operator import add, attrgetter

import msgspec

from noitu.domain.arena.actions import MOVE_KEYS, PASS, Action, Move, Pass, shared_move
from noitu.domain.arena.board import (
    COLS,
    PIECE_INDEX,
    PIECES,
    ROWS,
    SIDES,
    SQUARE_COUNT,
    SQUARES,
    Board,
    Side,
    pieces_of,
    square,
)
from noitu.domain.arena.match import Match, Phase
from noitu.domain.arena.rules import legal_actions as legal_actions_of

# -- the request ---------------------------------------------------------------------


class TurnRequest(msgspec.Struct, frozen=True):
    """One YOUR_TURN: what is written to the bot and what its reply is judged against."""

    match_id: str
    side: Side
    sequence: int
    turn: int
    line: str  # compact JSON, no newline
    data: bytes  # `line` in UTF-8 (write data + b"\n")
    # `line` as a JSON string (quotes included): what the replay's `sent` event holds.
    quoted: msgspec.Raw
    legal_actions: tuple[Action, ...]
    positions: tuple[int, ...]  # the board as sent: Board.positions()
    # Whether legal_actions is exactly the rules' list for `positions` and `side` (always
    # so for your_turn; a fixture's list may be anything).
    complete: bool = True


class _BoardOut(msgspec.Struct):
    rows: int
    cols: int
    pieces: list[msgspec.Raw]


class _StateOut(msgspec.Struct, rename="camel"):
    phase: str
    current_player: str
    board: _BoardOut
    players: msgspec.Raw


class _YourTurnOut(msgspec.Struct, rename="camel"):
    type: str
    match_id: str
    turn: int
    sequence: int
    player: str
    state: _StateOut
    legal_actions: list[msgspec.Raw]


_encode = msgspec.json.Encoder().encode

_PLAYERS = msgspec.Raw(
    _encode(
        [
            {
                "id": side.value,
                "name": side.display_name,
                "pieceIds": [p.id for p in pieces_of(side)],
            }
            for side in SIDES
        ]
    )
)

# Encoded `board.pieces` entries: piece index * (SQUARE_COUNT + 1) + 1 + square index
# (so that the square index -1, off the board, finds the None in front of each piece's).
_PIECE_STRIDE = SQUARE_COUNT + 1
_PIECE_OFFSETS = tuple(index * _PIECE_STRIDE + 1 for index in range(len(PIECES)))


def _encode_piece(index: int, at: int) -> msgspec.Raw:
    who, where = PIECES[index], SQUARES[at]
    return msgspec.Raw(
        _encode(
            {
                "id": who.id,
                "ownerId": who.side.value,
                "type": who.type.value,
                "status": "ALIVE",
                "position": {"row": where.row, "col": where.col},
            }
        )
    )


_PIECE_JSON: tuple[msgspec.Raw | None, ...] = tuple(
    None if at < 0 else _encode_piece(index, at)
    for index in range(len(PIECES))
    for at in range(-1, SQUARE_COUNT)
)

# Encoded shared moves, by Move.key (filled as they are first sent). One more slot at the
# end stays None: a hand-built Move's key, -1, lands there and is encoded on the spot.
_MOVE_JSON: list[msgspec.Raw | None] = [None] * (MOVE_KEYS + 1)
_PASS_JSON = msgspec.Raw(_encode(PASS.to_json()))


def _shared(action: Action) -> Action:
    """The engine's shared object equal to `action` (itself when there is none)."""
    if type(action) is Pass:
        return PASS
    if type(action) is Move:
        index = PIECE_INDEX.get(action.piece_id)
        origin, target = action.from_, action.to
        if index is not None and origin.on_board and target.on_board:
            found = shared_move(index, origin.index, target.index)
            if found is not None and found == action:
                return found
    return action


def _action_json(action: Action) -> msgspec.Raw:
    if type(action) is Pass:
        return _PASS_JSON
    encoded = msgspec.Raw(_encode(action.to_json()))
    if type(action) is Move and action.key >= 0:
        _MOVE_JSON[action.key] = encoded
    return encoded


# -- the line from its parts ---------------------------------------------------------
#
# A YOUR_TURN is a fixed frame around six parts that change (the match id, the turn, the
# sequence, the side twice, the pieces, the legal actions). The frame is what msgspec
# writes for `_YourTurnOut` with a marker in each part, cut at the markers, so the line
# is the structs' encoding byte for byte (a unit test compares them). Each part and each
# piece or move fragment is also kept as it reads inside a JSON string, so the replay's
# `sent` event is joined from those instead of escaping 10 KB of quotes every turn.


def _escaped(data: bytes | msgspec.Raw) -> bytes:
    """`data` (UTF-8) as it reads inside a JSON string, without the quotes."""
    return _encode(bytes(data).decode())[1:-1]


_MARKS = (b'"\\u0001"', b"1111111111", b"2222222222", b'"\\u0002"', b"\x03", b"\x04")
_FRAME = _encode(
    _YourTurnOut(
        "YOUR_TURN", "\x01", 1111111111, 2222222222, "\x02",
        _StateOut("PLAYING", "\x02", _BoardOut(ROWS, COLS, [msgspec.Raw(b"\x03")]), _PLAYERS),
        [msgspec.Raw(b"\x04")],
    )
)


def _cut_frame(frame: bytes) -> tuple[tuple[bytes, ...], tuple[int, ...]]:
    """The frame's fixed pieces, and which part (an index into _MARKS) follows each."""
    pieces: list[bytes] = []
    order: list[int] = []
    rest = frame
    while True:
        found = [(rest.find(mark), index) for index, mark in enumerate(_MARKS)]
        hits = [(at, index) for at, index in found if at >= 0]
        if not hits:
            pieces.append(rest)
            return tuple(pieces), tuple(order)
        at, index = min(hits)
        pieces.append(rest[:at])
        order.append(index)
        rest = rest[at + len(_MARKS[index]) :]


_FRAME_PIECES, _FRAME_ORDER = _cut_frame(_FRAME)
_FRAME_PIECES_ESCAPED = tuple(map(_escaped, _FRAME_PIECES))
_PIECE_BYTES: tuple[bytes | None, ...] = tuple(
    None if fragment is None else bytes(fragment) for fragment in _PIECE_JSON
)
_PIECE_BYTES_ESCAPED: tuple[bytes | None, ...] = tuple(
    None if fragment is None else _escaped(fragment) for fragment in _PIECE_JSON
)
# Shared moves' JSON as bytes (joining bytes is quicker than joining msgspec.Raw), and
# inside a JSON string, by Move.key; filled the first time a move is sent.
_MOVE_BYTES: list[bytes | None] = [None] * (MOVE_KEYS + 1)
_MOVE_BYTES_ESCAPED: list[bytes | None] = [None] * (MOVE_KEYS + 1)
_SIDE_JSON = {side: _encode(side.value) for side in SIDES}
_SIDE_JSON_ESCAPED = {side: _escaped(_SIDE_JSON[side]) for side in SIDES}
_MOVE_KEY = attrgetter("key")


def _joined_actions(legal_actions: tuple[Action, ...]) -> tuple[bytes, bytes]:
    """The actions' JSON joined by commas, and the same inside a JSON string."""
    if legal_actions and type(legal_actions[0]) is Move:
        try:  # every move sent before: two passes in C (a None fails the join)
            return (
                b",".join(map(_MOVE_BYTES.__getitem__, map(_MOVE_KEY, legal_actions))),
                b",".join(map(_MOVE_BYTES_ESCAPED.__getitem__, map(_MOVE_KEY, legal_actions))),
            )
        except TypeError:
            pass
    plain, escaped = [], []
    for action in legal_actions:
        fragment = bytes(_action_json(action))
        quoted = _escaped(fragment)
        if type(action) is Move and action.key >= 0:
            _MOVE_BYTES[action.key] = fragment
            _MOVE_BYTES_ESCAPED[action.key] = quoted
        plain.append(fragment)
        escaped.append(quoted)
    return b",".join(plain), b",".join(escaped)


def _request(
    match_id: str,
    side: Side,
    sequence: int,
    turn: int,
    positions: tuple[int, ...],
    legal_actions: tuple[Action, ...],
    complete: bool,
) -> TurnRequest:
    offsets = list(map(add, _PIECE_OFFSETS, positions))
    actions, actions_escaped = _joined_actions(legal_actions)
    match_json = _encode(match_id)
    parts = (
        match_json, b"%d" % turn, b"%d" % sequence, _SIDE_JSON[side],
        b",".join(filter(None, map(_PIECE_BYTES.__getitem__, offsets))), actions,
    )
    parts_escaped = (
        _escaped(match_json), parts[1], parts[2], _SIDE_JSON_ESCAPED[side],
        b",".join(filter(None, map(_PIECE_BYTES_ESCAPED.__getitem__, offsets))),
        actions_escaped,
    )
    data = _fill(_FRAME_PIECES, parts)
    quoted = b'"' + _fill(_FRAME_PIECES_ESCAPED, parts_escaped) + b'"'
    return TurnRequest(
        match_id, side, sequence, turn, data.decode(), data, msgspec.Raw(quoted),
        legal_actions, positions, complete,
    )


def _fill(frame: tuple[bytes, ...], parts: tuple[bytes, ...]) -> bytes:
    out = [frame[0]]
    for index, piece in zip(_FRAME_ORDER, frame[1:]):
        out.append(parts[index])
        out.append(piece)
    return b"".join(out)


def encoded_your_turn(request: TurnRequest) -> bytes:
    """The request encoded through the structs (msgspec), as the frame stands for: for
    the test that holds `_request`'s joined line to it."""
    actions = [_action_json(action) for action in request.legal_actions]
    pieces = [
        piece for piece in map(_PIECE_JSON.__getitem__, map(add, _PIECE_OFFSETS, request.positions))
        if piece is not None
    ]
    return _encode(
        _YourTurnOut(
            "YOUR_TURN", request.match_id, request.turn, request.sequence, request.side.value,
            _StateOut(
                "PLAYING", request.side.value, _BoardOut(ROWS, COLS, list(pieces)), _PLAYERS
            ),
            actions,
        )
    )


def your_turn(match: Match) -> TurnRequest:
    """The YOUR_TURN for the side to move (the match must be PLAYING)."""
    side = match.current_player
    if match.phase is not Phase.PLAYING or side is None:
        raise ValueError(f"no side to move: the match is {match.phase.value}")
    return _request(
        match.match_id,
        side,
        match.sequence,
        match.turn,
        match.board.positions(),
        match.legal_actions(),
        True,
    )


def turn_request(
    match_id: str,
    side: Side,
    sequence: int,
    turn: int,
    board: Board,
    legal_actions: tuple[Action, ...] | list[Action],
) -> TurnRequest:
    """A YOUR_TURN from its parts, for fixtures and tests: any board, any list (e.g. a
    PASS-only one). `your_turn` is this with the match's own parts."""
    actions = tuple(_shared(a) for a in legal_actions)
    rules = legal_actions_of(board, side)
    complete = len(actions) == len(rules) and all(a is b for a, b in zip(actions, rules))
    return _request(match_id, side, sequence, turn, board.positions(), actions, complete)


def action_line(sequence: int, action: Action) -> str:
    """The ACTION line a bot would answer with this action (no newline)."""
    return _encode({"type": "ACTION", "sequence": sequence, "action": action.to_json()}).decode()


# -- a request read back -------------------------------------------------------------


class _SquareIn(msgspec.Struct):
    row: int
    col: int


class _PieceIn(msgspec.Struct):
    id: str
    position: _SquareIn


class _BoardIn(msgspec.Struct):
    pieces: list[_PieceIn]


class _StateIn(msgspec.Struct):
    board: _BoardIn


class _ActionIn(msgspec.Struct, rename="camel"):
    type: str
    piece_id: str | None = None
    from_: _SquareIn | None = msgspec.field(default=None, name="from")
    to: _SquareIn | None = None


class _YourTurnIn(msgspec.Struct, rename="camel"):
    type: str
    match_id: str
    turn: int
    sequence: int
    player: str
    state: _StateIn
    legal_actions: list[_ActionIn]


_read_your_turn = msgspec.json.Decoder(_YourTurnIn).decode


def request_from_line(line: str) -> TurnRequest:
    """A recorded YOUR_TURN line (a replay's `sent`) as the request it was, to judge a
    reply against (ValueError, saying what is wrong, for a line that is not one)."""
    try:
        message = _read_your_turn(line)
        if message.type != "YOUR_TURN":
            raise ValueError(f"type là {message.type!r}, không phải YOUR_TURN")
        side = Side(message.player)
        board = Board.with_pieces(
            {piece.id: (piece.position.row, piece.position.col) for piece in message.state.board.pieces}
        )
        actions = [_action_in(action) for action in message.legal_actions]
    except (msgspec.DecodeError, KeyError, ValueError) as error:
        raise ValueError(f"không phải một dòng YOUR_TURN đọc được: {error}") from None
    return turn_request(message.match_id, side, message.sequence, message.turn, board, actions)


def _action_in(action: _ActionIn) -> Action:
    if action.type == "PASS":
        return PASS
    if action.type != "MOVE" or action.piece_id is None or action.from_ is None or action.to is None:
        raise ValueError(f"nước đi không đọc được: {action}")
    return Move(
        action.piece_id,
        square(action.from_.row, action.from_.col),
        square(action.to.row, action.to.col),
    )
