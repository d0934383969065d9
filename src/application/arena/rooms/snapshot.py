"""RoomSnapshot: everything the page shows of a room, as one frozen value whose fields
encode to camelCase JSON (msgspec). A viewer with an owner hash sees more than a
spectator: the sides they answer for (`mine`), during placement their own pieces, and
on their turn their `legalActions` (nobody else gets those).

The feed carries `RoomViews`: the spectator's snapshot, the sides each owner answers
for, and the whole view of each owner who sees more than `mine` at that moment. So any
instance shows any viewer their own view from the feed alone, without asking whoever
runs the match (B9), and a watch has one path on one machine and on several.

No owner hash is ever in a snapshot, nor a bot's stderr or compile messages (those go
only to the bot's owner, through `FailureDetails`); a failure's code and one-line
detail are public (spec B3).
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from noitu.application.arena.rooms.hosted_room import HostedRoom
from noitu.domain.arena.actions import Action, Fight, Move
from noitu.domain.arena.board import COLS, ROWS, SIDES, Board, Side
from noitu.domain.arena.match import DEFAULT_TURN_LIMIT, Phase, Result
from noitu.domain.arena.room import Room, RoomPhase, RoomSeat, SeatKind


class PositionView(msgspec.Struct, frozen=True):
    row: int
    col: int


class PieceView(msgspec.Struct, frozen=True, rename="camel"):
    """As `board.pieces` in the protocol."""

    id: str
    owner_id: str
    type: str
    status: str
    position: PositionView


class BoardView(msgspec.Struct, frozen=True):
    rows: int
    cols: int
    pieces: tuple[PieceView, ...]


class ActionView(msgspec.Struct, frozen=True, omit_defaults=True, rename="camel"):
    """As in the protocol: {type, pieceId, from, to} for a MOVE, {type} for a PASS."""

    type: str
    piece_id: str | None = None
    from_: PositionView | None = msgspec.field(default=None, name="from")
    to: PositionView | None = None


class FightView(msgspec.Struct, frozen=True):
    attacker: str
    defender: str
    result: str  # the attacker's: WIN, LOSE or TIE


class LastActionView(msgspec.Struct, frozen=True):
    turn: int  # as in the request the action answered, from 0
    player: str
    action: ActionView
    fight: FightView | None


class SeatView(msgspec.Struct, frozen=True, rename="camel"):
    player: str  # P1 or P2
    kind: str  # upload, builtin or person
    name: str
    ready: bool
    bot_id: str | None = None  # an upload's bot id
    builtin: str | None = None  # a built-in bot's name


class PiecesLeftView(msgspec.Struct, frozen=True):
    p1: int = msgspec.field(name="P1")
    p2: int = msgspec.field(name="P2")


class FailureView(msgspec.Struct, frozen=True):
    """A bot's failure, public like the winner (spec B3): its B3 code and the server's
    one-line detail. Its stderr and compile messages only through FailureDetails."""

    player: str
    code: str
    detail: str


class ResultView(msgspec.Struct, frozen=True):
    winner: str | None
    reason: str
    turns: int
    failure: FailureView | None


class RoomSnapshot(msgspec.Struct, frozen=True, rename="camel"):
    code: str
    phase: str  # WAITING, PLACEMENT, PLAYING, FINISHED, ABANDONED
    version: int  # +1 at every change of the room: drop a snapshot older than one seen
    seats: tuple[SeatView | None, SeatView | None]  # P1, P2; None when empty
    mine: tuple[str, ...]  # the sides the viewer plays or answers for (none in the feed)
    turn: int
    turn_limit: int
    current_player: str | None  # whose turn (PLAYING only)
    thinking: str | None  # the bot being asked now
    deadline_ms: int | None  # when the person to move runs out of time (ms since epoch)
    placement_deadline_ms: int | None  # when the server places what people left
    server_now_ms: int
    board: BoardView
    # The person to move's, to a viewer answering for them only (empty for anyone else,
    # for a bot, and in the feed)
    legal_actions: tuple[ActionView, ...]
    last_action: LastActionView | None
    pieces_left: PiecesLeftView
    queue_place: int | None  # its place from 1 while it waits for a slot, else None
    result: ResultView | None
    match_id: str | None
    replay_ready: bool
    ladder: bool = False  # a ladder match (spec B8): the server made it, nobody surrenders


_EMPTY_BOARD = BoardView(ROWS, COLS, ())


def _position(row: int, col: int) -> PositionView:
    return PositionView(row, col)


def board_view(board: Board) -> BoardView:
    return BoardView(
        ROWS,
        COLS,
        tuple(
            PieceView(p.id, p.side.value, p.type.value, "ALIVE", _position(at.row, at.col))
            for p, at in board.pieces()
        ),
    )


def action_view(action: Action) -> ActionView:
    if isinstance(action, Move):
        return ActionView(
            "MOVE",
            action.piece_id,
            _position(action.from_.row, action.from_.col),
            _position(action.to.row, action.to.col),
        )
    return ActionView("PASS")


def _fight_view(fight: Fight | None) -> FightView | None:
    if fight is None:
        return None
    return FightView(fight.attacker, fight.defender, fight.result.value)


def result_view(result: Result | None) -> ResultView | None:
    if result is None:
        return None
    failure = result.failure
    return ResultView(
        None if result.winner is None else result.winner.value,
        result.reason.value,
        result.turns,
        None if failure is None else FailureView(failure.side.value, failure.code.value, failure.detail),
    )


def seat_view(side: Side, held: RoomSeat | None, ready: bool) -> SeatView | None:
    if held is None:
        return None
    return SeatView(
        side.value,
        held.kind.value,
        held.name,
        ready,
        held.ref if held.kind is SeatKind.UPLOAD else None,
        held.ref if held.kind is SeatKind.BUILTIN else None,
    )


def snapshot_of(
    room: Room | HostedRoom,
    now_ms: int,
    mine: Iterable[Side] = (),
    queue_place: int | None = None,
) -> RoomSnapshot:
    """The room as a viewer answering for the sides `mine` sees it (a spectator: none):
    a card (with its place in the queue while its match waits for a host), or a hosted
    room with its match."""
    mine = tuple(mine)
    hosted = room if isinstance(room, HostedRoom) else None
    card = room.card if isinstance(room, HostedRoom) else room
    live = None if hosted is None else hosted.live
    phase = room.phase
    match = None if live is None else live.match
    seats = tuple(
        seat_view(side, card.seats[side.number], match is not None and match.is_ready(side))
        for side in SIDES
    )
    if match is None:
        board = _EMPTY_BOARD
        left = PiecesLeftView(0, 0)
    else:
        if phase is RoomPhase.PLACEMENT:
            shown = Board()
            for side in mine:
                for who, at in match.board.pieces(side):
                    shown.put(who, at)
        else:
            shown = match.board
        board = board_view(shown)
        left = PiecesLeftView(match.board.alive_count(Side.P1), match.board.alive_count(Side.P2))
    playing = phase is RoomPhase.PLAYING and live is not None and live.started
    current = match.current_player if playing and match is not None else None
    legal: tuple[ActionView, ...] = ()
    if current is not None and current in mine and live is not None and live.is_person(current):
        legal = tuple(action_view(a) for a in live.match.legal_actions())
    last = None if live is None else live.last
    return RoomSnapshot(
        code=card.code,
        phase=phase.value,
        version=card.version,
        seats=seats,  # type: ignore[arg-type]
        mine=tuple(side.value for side in mine),
        turn=0 if match is None else match.turn,
        turn_limit=DEFAULT_TURN_LIMIT if match is None else match.turn_limit,
        current_player=None if current is None else current.value,
        thinking=None if live is None or live.thinking is None else live.thinking.value,
        deadline_ms=None if live is None or not playing else live.deadline_ms,
        placement_deadline_ms=(
            hosted.placement_deadline_ms
            if hosted is not None
            and phase is RoomPhase.PLACEMENT
            and match is not None
            and match.phase is Phase.PLACEMENT
            else None
        ),
        server_now_ms=now_ms,
        board=board,
        legal_actions=legal,
        last_action=(
            None
            if last is None
            else LastActionView(
                last.turn, last.side.value, action_view(last.action), _fight_view(last.fight)
            )
        ),
        pieces_left=left,
        queue_place=queue_place,
        result=None if hosted is None else result_view(hosted.result),
        match_id=card.match_id,
        replay_ready=hosted is not None and hosted.archived and hosted.replay is not None,
        ladder=card.ladder,
    )


class RoomViews(msgspec.Struct, frozen=True):
    """One change of a room as the feed carries it: `room`, the spectator's snapshot;
    `sides`, the sides each owner (an owner key's hash) answers for; `own`, the whole
    view of an owner who sees more than a spectator plus `mine` (their pieces in
    placement, a person's legal actions on their turn). Never sent to a client as is:
    `seen_by` picks a viewer's."""

    room: RoomSnapshot
    sides: dict[str, tuple[str, ...]] = msgspec.field(default_factory=dict)
    own: dict[str, RoomSnapshot] = msgspec.field(default_factory=dict)

    @property
    def version(self) -> int:
        return self.room.version

    def seen_by(self, viewer: str) -> RoomSnapshot:
        """The room as `viewer` (an owner hash, "" for a spectator) sees it."""
        if not viewer:
            return self.room
        own = self.own.get(viewer)
        if own is not None:
            return own
        mine = self.sides.get(viewer)
        return self.room if not mine else msgspec.structs.replace(self.room, mine=mine)

    def replaced(self, *, owners_too: bool = True, **changes: object) -> RoomViews:
        """The same views with `changes` made to each snapshot (`owners_too=False`: the
        owners' own views dropped, `mine` kept through `sides`)."""
        own = (
            {who: msgspec.structs.replace(view, **changes) for who, view in self.own.items()}
            if owners_too else {}
        )
        return RoomViews(msgspec.structs.replace(self.room, **changes), self.sides, own)


def views_of(room: Room | HostedRoom, now_ms: int, queue_place: int | None = None) -> RoomViews:
    """What the feed carries of `room` now (see `RoomViews`)."""
    spectator = snapshot_of(room, now_ms, (), queue_place)
    card = room.card if isinstance(room, HostedRoom) else room
    owners = {
        held.owner
        for held in card.seats
        if held is not None and held.kind is not SeatKind.BUILTIN and held.owner
    }
    sides: dict[str, tuple[str, ...]] = {}
    own: dict[str, RoomSnapshot] = {}
    live = room.live if isinstance(room, HostedRoom) else None
    placing = live is not None and spectator.phase == RoomPhase.PLACEMENT.value
    for who in sorted(owners):
        mine = card.sides_of(who)
        if not mine:
            continue
        sides[who] = tuple(side.value for side in mine)
        to_move = live is not None and spectator.current_player is not None and any(
            side.value == spectator.current_player and live.is_person(side) for side in mine
        )
        if placing or to_move:
            own[who] = snapshot_of(room, now_ms, mine, queue_place)
    return RoomViews(spectator, sides, own)
