"""Where the ladder's matches go (spec B8 "Scheduling", B9; issue 31): the slots it
may fill and the matches it hands over. The ladder seats no person: it hands each
match, the card of a room under a fresh code with both seats filled, to the match
queue as any full room's match is, and the match is watchable under that code.

`BoardSlots`: the hosts' match slots as the board shows them (a room's match waiting
for a host keeps the ladder out; at most all slots but one to the ladder). Its `play`
puts the match's card on the board (watchable, and in the lobby, from then on) and
queues its job, which a host takes (`PlayMatch`: this process on one machine, any
worker on several); the outcome is read from the card and the archive, so a web
instance that stops leaves the match to its worker (B9: a web instance's restart
abandons nothing).

A bot taken off the ladder plays no ladder match it has not started (issue 30):
`cancel_waiting` closes each of its ladder matches that no host took yet.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import replace

from noitu.application.arena.errors import Busy
from noitu.application.arena.jobs import MatchOutcome
from noitu.application.arena.live_match import Timer
from noitu.application.arena.rooms.board_rooms import BoardRooms
from noitu.application.arena.storage import MatchArchive, StorageUnavailable
from noitu.domain.arena.room import Room, RoomPhase

#: How often a ladder match's card is read until it is over while the feed is away (ms).
LOOK_EVERY_MS = 1_000
#: The phases of a room whose match is over (or that closed with none).
OVER = (RoomPhase.FINISHED.value, RoomPhase.ABANDONED.value)


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

    async def play(self, card: Room) -> MatchOutcome:
        """The match's card added (handed over), its first snapshot published, its job
        queued; then its outcome, once its card says it is over."""
        card = replace(card, handed_over=True, handed_ms=self._rooms.now_ms)
        added = await self._rooms.add(card)  # watchable, and in the lobby, from now on
        if added is None:
            raise Busy()
        await self._rooms.queue_match(added)
        return await self._outcome(card.code)

    async def _outcome(self, code: str) -> MatchOutcome:
        match_id = await self._ended(code)
        if match_id is None:
            return MatchOutcome(match_id=None)  # closed, or forgotten, before it was made
        clock = self._rooms.host.clock
        while True:
            try:
                record = await self._archive.get_match(match_id)
                break
            except StorageUnavailable:
                await self._timer.sleep_until(clock.now_ms() + LOOK_EVERY_MS)
        if record is None or record.result is None:
            return MatchOutcome(match_id=match_id)
        return MatchOutcome(match_id=match_id, result=record.result, ended_ms=record.finished_ms)

    async def _ended(self, code: str) -> str | None:
        """The match's id once it is over (None: its room closed before it was made).
        Its room's feed ends then (after the match is archived, or the room closed), and
        its last views name the match; while the feed is away, the card says it, read
        every `LOOK_EVERY_MS`."""
        rooms = self._rooms
        feed = rooms.host.feed
        while True:
            with contextlib.suppress(Busy):
                async for _views in feed.subscribe(code):
                    pass
                last = await feed.latest(code)
                if last is not None and last.room.phase in OVER:
                    return last.room.match_id
            try:
                card = await rooms.board.get(code)
            except Busy:
                card = None
            else:
                if card is None:
                    return None
                if card.ended:
                    return card.match_id
            await self._timer.sleep_until(rooms.now_ms + LOOK_EVERY_MS)

    async def cancel_waiting(self, bot: str) -> int:
        """A ladder match of `bot`'s that no host took yet is closed on the board, under
        its hold (the hold a host takes it under): no host takes it then, and its driver
        finds it closed with no match made."""
        board = self._rooms.board
        cancelled = 0
        for card in await self._rooms.cards():
            if not (_waiting(card) and any(seat is not None and seat.ref == bot for seat in card.seats)):
                continue
            async with board.hold(card.code):
                fresh = await board.get(card.code)
                if fresh is None or not _waiting(fresh):
                    continue  # a host took it meanwhile: it plays
                await self._rooms.close(fresh)
            cancelled += 1
        return cancelled


def _waiting(card: Room) -> bool:
    """A ladder match handed over that no host took yet."""
    return card.ladder and card.waits_for_a_host


def _playing(card: Room) -> bool:
    """A match handed over and not over: waiting for a host, or played by one."""
    return card.handed_over and not card.ended
