"""Where the ladder's matches are played (spec B8, B9): the driver (`PlayLadder`) asks
its stage whether a slot is idle and has it begin a match between two seats; the stage
answers, later, how the match was played.

- `RoomStage`, one machine: each match is a room of this process's host, played by
  `StartMatch` through the match queue (ladder matches wait behind every room's match
  and hold at most all slots but one); the queue's changes wake the driver.
- `BoardStage` (`board_stage.py`), several machines: each match is a room on the
  board, its match a job any worker takes, like a room's.

A bot taken off the ladder plays no ladder match it has not started (issue 30): its
owner's unranking ends, through the stage, each of its ladder matches begun and not
started yet (`cancel_waiting`: waiting for a slot or a worker), and the driver starts
none of the matches it still has to begin.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from noitu.application.arena.errors import Busy
from noitu.application.arena.rooms.create_room import CODE_TRIES
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.ports import MatchStarter
from noitu.application.arena.rooms.room import Room, RoomSeat, new_room_code
from noitu.domain.arena.match import Result


@dataclass(frozen=True, slots=True)
class Played:
    """A ladder match once archived: its id, its result and when it ended."""

    match_id: str
    result: Result
    ended_ms: int | None


#: What `LadderStage.begin` gives for a match it began: how it was played, awaited
#: (None: it ended unplayed, its room closed before the match was made).
Outcome = Callable[[], Awaitable[Played | None]]


class WaitingLadderMatches(Protocol):
    async def cancel_waiting(self, bot: str) -> int:
        """End every ladder match of `bot` begun and not started (waiting for a slot
        or for a worker): it ends unplayed, and is not rated; how many."""
        ...


class LadderStage(WaitingLadderMatches, Protocol):
    async def idle_slot(self, in_flight: int) -> bool:
        """Whether a ladder match may begin now, `in_flight` of them begun and not
        archived yet: rooms always go first."""
        ...

    def on_change(self, wake: Callable[[], None]) -> None:
        """Call `wake` when a slot may have become idle (or never: the driver's tick)."""
        ...

    def off_change(self, wake: Callable[[], None]) -> None: ...

    async def begin(self, seats: list[RoomSeat], seed: int, turn_limit: int) -> Outcome | None:
        """Make the match's room and begin its match. `Busy` when no room could be made
        (nothing left behind); what the stores raise when the match could not be
        started (its room closed); None when the room closed before its match was
        made."""
        ...


def new_ladder_room(host: RoomHost, rng: random.Random, taken: Callable[[Room], bool]) -> Room:
    """A ladder room with a fresh code (`taken(room)`: the code is in use, else keeps
    it); `Busy` when none is free after `CODE_TRIES`."""
    now = host.clock.now_ms()
    for _ in range(CODE_TRIES):
        room = Room(new_room_code(rng), now, creator="")
        if not taken(room):
            return room
    raise Busy()


class RoomStage:
    def __init__(self, host: RoomHost, start: MatchStarter, rng: random.Random) -> None:
        self._host = host
        self._start = start
        self._rng = rng

    async def idle_slot(self, in_flight: int) -> bool:
        queue = self._host.queue
        return in_flight < queue.ladder_slots and in_flight + queue.room_matches < queue.slots

    def on_change(self, wake: Callable[[], None]) -> None:
        self._host.queue.on_change(wake)

    def off_change(self, wake: Callable[[], None]) -> None:
        self._host.queue.off_change(wake)

    async def begin(self, seats: list[RoomSeat], seed: int, turn_limit: int) -> Outcome | None:
        host = self._host
        room = new_ladder_room(host, self._rng, lambda made: not host.registry.add(made))
        room.seats = list(seats)
        room.ladder = True
        room.seed = seed
        room.turn_limit = turn_limit
        host.changed(room)
        try:
            await self._start(room)
        except Exception:
            host.abandon_waiting(room)
            raise
        if room.live is None:  # closed while its match was being recorded (shutting down)
            return None

        async def outcome() -> Played | None:
            await room.concluded.wait()
            result = room.result
            assert result is not None and room.match_id is not None
            return Played(room.match_id, result, room.finished_ms)

        return outcome

    async def cancel_waiting(self, bot: str) -> int:
        """A match waiting in the queue (or for its bots, before play begins) ends
        ABANDONED: `StartMatch` archives it and closes its room as any other end."""
        cancelled = 0
        for room in self._host.registry.rooms():
            live = room.live
            if not room.ladder or live is None or live.started or live.over:
                continue
            if any(held is not None and held.seat.ref == bot for held in room.seats):
                live.abandon()
                cancelled += 1
        return cancelled
