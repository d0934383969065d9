"""ForwardRoomCall: a room's request on several machines (spec B9, "A person's
action"): a look at the room (`get`), a placement, a move, a surrender or a leave,
asked of any web instance.

- A look is answered here, never asked of a worker: from the room's latest views in
  the feed (they say what each owner sees: `RoomViews`), or its card before any.
- While a worker runs the room's match, a change goes to that worker through the
  `RoomDesk`, which judges it with the same use case as one machine does, and its
  answer (the room as the asker sees it, or the refusal) is this call's (`busy` when no
  answer came within 2 s).
- Before that (the room waits for a player, or its match for a worker) and after it
  (the match is over), this instance makes a change with the use case on the board's
  copy (`BoardRooms.change`). Leaving a room whose match no worker took yet closes it, as
  leaving does before a match is made.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Generic, Protocol, TypeVar

import msgspec

from noitu.application.arena.errors import ARENA_ERRORS, Busy, GameError, NotSeated, RoomNotFound
from noitu.application.arena.rooms.board_rooms import BoardRooms
from noitu.application.arena.rooms.cards import room_of
from noitu.application.arena.rooms.cluster_ports import DeskRequest, RoomCard, RoomDesk
from noitu.application.arena.rooms.get_room import GetRoomCommand
from noitu.application.arena.rooms.room import Room, is_room_code, normalize_code
from noitu.application.arena.rooms.seating import check_owner
from noitu.application.arena.rooms.snapshot import RoomSnapshot


class RoomCommand(Protocol):
    @property
    def code(self) -> str: ...


C = TypeVar("C", bound=RoomCommand)

#: The request kinds a worker answers, by the command each carries.
GET, PLACE, ACT, SURRENDER, LEAVE = "get", "place", "act", "surrender", "leave"

_ERRORS: dict[str, type[GameError]] = {error.code: error for error in ARENA_ERRORS}
_snapshot = msgspec.json.Decoder(RoomSnapshot)
_encoder = msgspec.json.Encoder()


def error_of(code: str, message: str) -> GameError:
    """The error a worker answered with, as this instance raises it."""
    return _ERRORS.get(code, GameError)(message or None)


class ForwardRoomCall(Generic[C]):
    def __init__(
        self,
        kind: str,
        local: Callable[[C], Awaitable[RoomSnapshot]],
        rooms: BoardRooms,
        desk: RoomDesk,
    ) -> None:
        """`local` is the use case one machine runs for `kind` (`GetRoom`, `PlacePieces`,
        `PlayAction`, `Surrender`, `LeaveRoom`)."""
        self._kind = kind
        self._local = local
        self._rooms = rooms
        self._desk = desk

    async def __call__(self, command: C) -> RoomSnapshot:
        code = normalize_code(command.code)
        card = await self._rooms.board.get(code) if is_room_code(code) else None
        if card is None:
            raise RoomNotFound()
        if self._kind == GET:
            return await self._shown(card, command)  # the feed has every viewer's view
        if card.handed_over and card.worker and not card.over and not card.closed:
            return await self.ask(code, command)
        if self._kind == LEAVE and card.handed_over and not card.over and not card.closed:
            return await self._rooms.change(code, lambda: self._withdraw(code, command))
        return await self._rooms.change(code, lambda: self._local(command))

    async def ask(self, code: str, command: C) -> RoomSnapshot:
        """The worker's answer to the request; raises its refusal, or `Busy`."""
        request = DeskRequest(kind=self._kind, command=msgspec.Raw(_encoder.encode(command)))
        reply = await self._desk.ask(code, request)
        if reply.snapshot is not None:
            return _snapshot.decode(reply.snapshot)
        raise error_of(reply.error or Busy.code, reply.message)

    async def _shown(self, card: RoomCard, command: C) -> RoomSnapshot:
        """The room as the viewer sees it: from its latest views once handed over (the
        feed's views say what each owner sees), else from its card."""
        viewer = command.viewer if isinstance(command, GetRoomCommand) else ""
        host = self._rooms.host
        latest = await host.feed.latest(card.code) if card.handed_over else None
        if latest is None:
            return host.view(room_of(card), viewer)
        return msgspec.structs.replace(latest.seen_by(viewer), server_now_ms=host.clock.now_ms())

    async def _withdraw(self, code: str, command: C) -> RoomSnapshot:
        """Leave a room whose match waits for a worker: it closes (nobody played)."""
        who = check_owner(getattr(command, "owner", ""))
        host = self._rooms.host
        room: Room = host.room(code)
        if room.worker or room.is_over:  # a worker took it meanwhile: ask it
            return await self.ask(code, command)
        if not any(
            held is not None and (held.seated_by == who or held.controlled_by(who))
            for held in room.seats
        ):
            raise NotSeated()
        host.abandon_waiting(room)
        return host.view(room, who)
