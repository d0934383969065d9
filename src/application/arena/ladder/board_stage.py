"""BoardStage: the ladder's matches on several machines (spec B8, B9). Each match is a
room on the board — both seats filled, handed over at once, shown in the lobby as a
ladder match — whose match is a job on the same queue as the rooms', taken by any
worker; its outcome is read from the board (the card says when the match is over) and
the archive (its result).

A slot is idle when no room's match waits for a worker (rooms always go first) and the
ladder's matches, with the rooms' running, leave one of the workers' match slots free
(as one machine's queue: at most all slots but one to the ladder).

A bot unranked meanwhile: its ladder rooms no worker took yet are closed on the board
(`cancel_waiting`), so no worker starts their match.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import msgspec

from noitu.application.arena.errors import Busy
from noitu.application.arena.ladder.stage import Outcome, Played, new_ladder_room
from noitu.application.arena.live_match import Timer
from noitu.application.arena.rooms.board_rooms import BoardRooms
from noitu.application.arena.rooms.cards import card_of, room_of
from noitu.application.arena.rooms.cluster_ports import RoomCard
from noitu.application.arena.rooms.create_room import CODE_TRIES
from noitu.application.arena.rooms.room import RoomSeat
from noitu.application.arena.storage import MatchArchive, StorageUnavailable

#: How often a ladder match's card is read until it is over (ms).
LOOK_EVERY_MS = 1_000


class BoardStage:
    def __init__(
        self, rooms: BoardRooms, archive: MatchArchive, timer: Timer, rng: random.Random
    ) -> None:
        self._rooms = rooms
        self._archive = archive
        self._timer = timer
        self._rng = rng

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

    async def begin(self, seats: list[RoomSeat], seed: int, turn_limit: int) -> Outcome | None:
        """The room's card added (a fresh code), its first snapshot published, its
        match queued."""
        host = self._rooms.host
        for _ in range(CODE_TRIES):
            room = new_ladder_room(host, self._rng, lambda _room: False)
            room.seats = list(seats)
            room.ladder = True
            room.seed = seed
            room.turn_limit = turn_limit
            room.handed_over = True
            room.handed_ms = host.clock.now_ms()
            # The card says version 1: the snapshot `changed` publishes below.
            if await self._rooms.board.add(msgspec.structs.replace(card_of(room), version=1)):
                break
        else:
            raise Busy()
        host.changed(room)  # its first snapshot: watchable, and in the lobby, from now on
        await self._rooms.queue_match(room)
        code = room.code

        async def outcome() -> Played | None:
            return await self._outcome(code)

        return outcome

    async def _outcome(self, code: str) -> Played | None:
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
            return None  # closed, or forgotten, before a worker made its match
        while True:
            try:
                record = await self._archive.get_match(card.match_id)
                break
            except StorageUnavailable:
                await self._timer.sleep_until(clock.now_ms() + LOOK_EVERY_MS)
        if record is None or record.result is None:
            return None
        return Played(card.match_id, record.result, record.finished_ms)

    async def cancel_waiting(self, bot: str) -> int:
        """A ladder room of `bot`'s that no worker took yet is closed on the board,
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
