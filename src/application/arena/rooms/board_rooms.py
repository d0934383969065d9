"""BoardRooms: a web instance's side of the board when the arena runs on several
machines (spec B9). The room use cases of one machine run unchanged on a copy of the
board: before a change, every card is read into the host's registry as a `Room` (the
rooms whose match a worker runs with their latest snapshot, so that their phase and
the lobby are right); after it, what the change made or changed is written back, and
the registry is emptied again. One change at a time in this instance; the room being
changed is held across the cluster for the whole change (`RoomBoard.hold`), so two
instances never seat two people on one seat; so are the limits a create or a join
counts against (the owner's, the address's), so two instances never both let one room
more through. Another room a change touches (the
sweep closing a room nobody completed) is written only if nobody changed it meanwhile.

A room whose seats were just filled is handed over (`HandOverMatch`): its match is
queued as a job (`MATCH_JOB`, keyed by the room's code, so queuing it again is
harmless) once its card says so, at its place in B10's fair order (`in_line`), and the
worker that takes it plays it (`PlayMatch`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from noitu.application.arena.errors import Busy, RoomNotFound
from noitu.application.arena.jobs import MATCH_JOB, JobError, Jobs
from noitu.application.arena.rooms.cards import card_of, in_line, queue_places, room_of, spec_of
from noitu.application.arena.rooms.cluster_ports import RoomBoard, RoomCard
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.room import FINISHED_ROOM_MS, Room, is_room_code, normalize_code

T = TypeVar("T")
C = TypeVar("C")


@dataclass(slots=True)
class _Loaded:
    room: Room
    version: int
    handed_over: bool


class BoardRooms:
    def __init__(self, board: RoomBoard, host: RoomHost, jobs: Jobs) -> None:
        self.board = board
        self.host = host
        self._jobs = jobs
        self._one_at_a_time = asyncio.Lock()

    async def change(
        self,
        code: str | None,
        step: Callable[[], Awaitable[T]],
        counted: Sequence[str] = (),
    ) -> T:
        """Run `step` (a room use case) on a fresh copy of the board, room `code` held
        (None: a change that makes a room, or only reads), and write back what it did.
        `counted`: the names of the limits the change counts against (an owner's rooms,
        an address's spectacle, `limit_names`), held too, so two instances never both
        let one more through. What `step` raises is raised once its changes are written
        back."""
        names = sorted(set(counted) | ({code} if code is not None else set()))
        async with self._one_at_a_time, contextlib.AsyncExitStack() as holds:
            for name in names:  # always in one order: two changes never wait on each other
                await holds.enter_async_context(self.board.hold(name))
            loaded = await self._load()
            try:
                return await step()
            finally:
                handed = await self._write_back(loaded, code)
                for room in handed:
                    await self.queue_match(room)

    async def queue_match(self, room: Room) -> None:
        """Queue the match of a handed-over room (again: a no-op while it is queued) at
        its place in the fair order (`in_line`: the workers take it in that order)."""
        code = room.code
        try:
            await self._jobs.enqueue(MATCH_JOB, spec_of(room), code, in_line(room))
        except JobError:
            raise Busy() from None

    async def cards(self) -> list[RoomCard]:
        """Every card kept; those of rooms over for longer than a finished room is kept
        are forgotten on the way."""
        now = self.host.clock.now_ms()
        kept = []
        for card in await self.board.cards():
            ended = card.finished_ms
            if (card.over or card.closed) and ended is not None and now - ended >= FINISHED_ROOM_MS:
                await self.board.remove(card.code)
            else:
                kept.append(card)
        return kept

    async def read(self) -> list[Room]:
        """Every room on the board as it is now, its match's latest snapshot and place
        in the queue with it: copies for reading (the lobby), taking no hold and not
        this instance's lock."""
        rooms = [room_of(card) for card in await self.cards()]
        remote = [room for room in rooms if room.handed_over and not room.closed]
        latest = await asyncio.gather(*(self.host.feed.latest(room.code) for room in remote))
        places = queue_places(card_of(room) for room in remote)
        for room, views in zip(remote, latest, strict=True):
            if views is not None:
                room.remote = views.room
                room.version = max(room.version, views.version)
            if room.code in places:
                room.queued, room.queue_place = True, places[room.code]
        return rooms

    async def _load(self) -> dict[str, _Loaded]:
        registry = self.host.registry
        for room in registry.rooms():
            registry.remove(room.code)
        loaded = {}
        for room in await self.read():
            registry.add(room)
            loaded[room.code] = _Loaded(room, room.version, room.handed_over)
        return loaded

    async def _write_back(self, loaded: dict[str, _Loaded], held: str | None) -> list[Room]:
        """Write what changed; the rooms this change handed over."""
        registry = self.host.registry
        made = [room for room in registry.rooms() if room.code not in loaded]
        for room in registry.rooms():
            registry.remove(room.code)
        handed: list[Room] = []
        changed = made + [was.room for was in loaded.values() if was.room.version != was.version]
        # Answered once its snapshot is in the feed: a page that watches the room at
        # once, on any instance, finds it there.
        for room in changed:
            await self.host.published(room)
        for room in made:
            if not await self.board.add(card_of(room)):
                raise Busy()  # another instance made a room of that code at that moment
            if room.handed_over:
                handed.append(room)
        for code, was in loaded.items():
            room = was.room
            if room.version == was.version:
                continue
            if code == held:
                await self.board.put(card_of(room))
            else:
                async with self.board.hold(code):
                    card = await self.board.get(code)
                    if card is None or card.version != was.version:
                        continue  # changed elsewhere meanwhile: that change stands
                    await self.board.put(card_of(room))
            if room.handed_over and not was.handed_over:
                handed.append(room)
        return handed


class OnTheBoard(Generic[C, T]):
    """A room use case of one machine (`CreateRoom`, `JoinRoom`, `LeaveRoom`,
    `OpenRooms`) run as a change of the board (`BoardRooms.change`), the room of the
    command's `code` held, if it has one."""

    def __init__(
        self, use_case: Callable[[C], Awaitable[T]], rooms: BoardRooms, *, counted: bool = False
    ) -> None:
        """`counted`: the use case checks the command's owner's and address's limits
        (create, join): their holds are taken too (`limit_names`)."""
        self._use_case = use_case
        self._rooms = rooms
        self._counted = counted

    async def __call__(self, command: C) -> T:
        code = getattr(command, "code", None)
        held = None if code is None else normalize_code(code)
        if held is not None and not is_room_code(held):
            raise RoomNotFound()
        counted = limit_names(command) if self._counted else ()
        return await self._rooms.change(held, lambda: self._use_case(command), counted)


def limit_names(command: object) -> list[str]:
    """The holds of the limits a command counts against: its owner's live rooms (B5)
    and its address's spectacle (B10). Not room codes (those are 6 characters with no
    colon), so a limit's hold never stands in a room's way."""
    names = []
    owner = getattr(command, "owner", "")
    if owner:
        names.append(f"owner:{owner}")
    address = getattr(command, "address", "")
    if address:
        names.append(f"address:{address}")
    return names
