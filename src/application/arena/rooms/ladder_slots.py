"""Where the ladder's matches go (spec B8 "Scheduling", B9; issue 31): the slots it
may fill and the matches it hands over. The ladder makes no room: it hands each match,
a `MatchSpec` under a fresh room code, to `PlayMatch` — in this process on one machine,
as a job for the workers on several — and the match is watchable under that code.

- `QueueSlots`, one machine: this process's match queue (ladder matches wait behind
  every room's match and hold at most all slots but one); its changes wake the driver.
  `PlayMatch` is called in-process.
- `BoardSlots`, several machines: the workers' slots as the board shows them (a room's
  match waiting for a worker keeps the ladder out; at most all slots but one to the
  ladder). Its `play` puts the match's card on the board (watchable, and in the lobby,
  from then on, as a room's handed-over match) and queues its job, which any worker
  takes (`PlayMatch` there); the outcome is read from the card and the archive, so a
  web instance that stops leaves the match to its worker (B9: a web instance's
  restart abandons nothing).

A bot taken off the ladder plays no ladder match it has not started (issue 30):
`cancel_waiting` ends each of its ladder matches submitted and not started yet.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from noitu.application.arena.errors import Busy
from noitu.application.arena.jobs import MatchOutcome, MatchSpec
from noitu.application.arena.live_match import Timer
from noitu.application.arena.rooms.board_rooms import BoardRooms
from noitu.application.arena.rooms.cards import card_of, room_for, room_of
from noitu.application.arena.rooms.cluster_ports import RoomCard
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.storage import MatchArchive, StorageUnavailable

#: How often a ladder match's card is read until it is over (ms).
LOOK_EVERY_MS = 1_000


class QueueSlots:
    def __init__(self, host: RoomHost) -> None:
        self._host = host

    async def idle_slot(self, in_flight: int) -> bool:
        queue = self._host.queue
        return in_flight < queue.ladder_slots and in_flight + queue.room_matches < queue.slots

    def on_change(self, wake: Callable[[], None]) -> None:
        self._host.queue.on_change(wake)

    def off_change(self, wake: Callable[[], None]) -> None:
        self._host.queue.off_change(wake)

    async def cancel_waiting(self, bot: str) -> int:
        """A match being recorded, waiting in the queue or for its bots (before play
        begins) ends ABANDONED: `StartMatch` archives it and closes its room as any
        other end."""
        cancelled = 0
        for room in self._host.registry.rooms():
            live = room.live
            if not room.ladder or room.closed or (live is not None and (live.started or live.over)):
                continue
            if not any(held is not None and held.seat.ref == bot for held in room.seats):
                continue
            if live is None:  # being recorded: `StartMatch` then archives it ABANDONED
                self._host.abandon_waiting(room)
            else:
                live.abandon()
            cancelled += 1
        return cancelled


class BoardSlots:
    def __init__(self, rooms: BoardRooms, archive: MatchArchive, timer: Timer) -> None:
        self._rooms = rooms
        self._archive = archive
        self._timer = timer

    async def idle_slot(self, in_flight: int) -> bool:
        cards = await self._rooms.cards()
        rooms = [card for card in cards if _playing(card) and not card.ladder]
        if any(not card.worker for card in rooms):
            return False  # a room's match waits for a worker
        slots = await self._rooms.board.match_slots()
        return in_flight < slots - 1 and in_flight + len(rooms) < slots

    def on_change(self, wake: Callable[[], None]) -> None:
        """Nothing to listen to: the driver's tick looks again."""

    def off_change(self, wake: Callable[[], None]) -> None:
        """Nothing was listened to."""

    async def play(self, spec: MatchSpec) -> MatchOutcome:
        """The match's card added (handed over), its first snapshot published, its job
        queued; then its outcome, once its card says it is over."""
        host = self._rooms.host
        room = room_for(spec)
        room.handed_over = True
        room.handed_ms = host.clock.now_ms()
        # The card says version 1: the snapshot `changed` publishes below.
        if not await self._rooms.board.add(msgspec.structs.replace(card_of(room), version=1)):
            raise Busy()
        host.changed(room)  # its first snapshot: watchable, and in the lobby, from now on
        await self._rooms.queue_match(room)
        return await self._outcome(spec.code)

    async def _outcome(self, code: str) -> MatchOutcome:
        clock = self._rooms.host.clock
        while True:
            try:
                card = await self._rooms.board.get(code)
            except Busy:
                card = None
            else:
                if card is None or card.over or card.closed:
                    break
            await self._timer.sleep_until(clock.now_ms() + LOOK_EVERY_MS)
        if card is None or card.match_id is None:
            return MatchOutcome(match_id=None)  # closed, or forgotten, before it was made
        while True:
            try:
                record = await self._archive.get_match(card.match_id)
                break
            except StorageUnavailable:
                await self._timer.sleep_until(clock.now_ms() + LOOK_EVERY_MS)
        if record is None or record.result is None:
            return MatchOutcome(match_id=card.match_id)
        return MatchOutcome(
            match_id=card.match_id, result=record.result, ended_ms=record.finished_ms
        )

    async def cancel_waiting(self, bot: str) -> int:
        """A ladder match of `bot`'s that no worker took yet is closed on the board,
        under its hold (the hold a worker takes it under): no worker takes it then, and
        its driver finds it closed with no match made."""
        board, host = self._rooms.board, self._rooms.host
        cancelled = 0
        for card in await self._rooms.cards():
            if not (_waiting(card) and any(seat is not None and seat.ref == bot for seat in card.seats)):
                continue
            async with board.hold(card.code):
                fresh = await board.get(card.code)
                if fresh is None or not _waiting(fresh):
                    continue  # a worker took it meanwhile: it plays
                room = room_of(fresh)
                room.closed = True
                room.finished_ms = host.clock.now_ms()
                host.changed(room)
                host.close(room)
                await host.published(room)
                await board.put(card_of(room))
            cancelled += 1
        return cancelled


def _waiting(card: RoomCard) -> bool:
    """A ladder match handed over that no worker took yet."""
    return card.ladder and _playing(card) and not card.worker


def _playing(card: RoomCard) -> bool:
    """A match handed over and not over: waiting for a worker, or played by one."""
    return card.handed_over and not card.over and not card.closed
