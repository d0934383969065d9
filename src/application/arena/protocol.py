"""The bot protocol's request (spec A2, B1): the YOUR_TURN line the server writes.

`your_turn(match)` builds the request for the side to move: compact JSON, fields in the
order of A2's example, pieces and pieceIds in code-point order of id, legalActions by
pieceId, then to.row, then to.col. Its reply is judged by `judge.judge`.
"""

from __future__ import annotations

from operator import add

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


def _request(
    match_id: str,
    side: Side,
    sequence: int,
    turn: int,
    positions: tuple[int, ...],
    legal_actions: tuple[Action, ...],
    complete: bool,
) -> TurnRequest:
    pieces = list(filter(None, map(_PIECE_JSON.__getitem__, map(add, _PIECE_OFFSETS, positions))))
    if legal_actions and type(legal_actions[0]) is Move:
        table = _MOVE_JSON
        moves: tuple[Move, ...] = legal_actions  # type: ignore[assignment]
        actions = [table[move.key] for move in moves]
        if not all(actions):  # a move not sent before
            actions = [table[move.key] or _action_json(move) for move in moves]
    else:
        actions = [_action_json(action) for action in legal_actions]
    message = _YourTurnOut(
        "YOUR_TURN",
        match_id,
        turn,
        sequence,
        side.value,
        _StateOut("PLAYING", side.value, _BoardOut(ROWS, COLS, pieces), _PLAYERS),
        actions,
    )
    data = _encode(message)
    return TurnRequest(
        match_id, side, sequence, turn, data.decode(), data, legal_actions, positions, complete
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
