"""`RoomBoard` in one process (the embedded default, and the tests): the cards in a dict,
each room's hold an asyncio lock, the workers' heartbeats as deadlines on the app's
clock. Nothing outlives the process, so no card needs a time to live here."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

from noitu.adapters.keyed_locks import KeyedLocks
from noitu.application.arena.rooms.cluster_ports import HOLD_WITHIN_S
from noitu.application.ports import Clock
from noitu.domain.arena.room import Room


class InMemoryRoomBoard:
    def __init__(self, clock: Clock, hold_within_s: float = HOLD_WITHIN_S) -> None:
        self._clock = clock
        self._hold_within_s = hold_within_s
        self._cards: dict[str, Room] = {}
        self._holds = KeyedLocks()
        #: Each worker's last beat's end (ms): alive while the clock is before it.
        self._beats: dict[str, int] = {}
        #: Each worker's matches at once, as its last beat said.
        self._matches: dict[str, int] = {}

    async def add(self, card: Room) -> bool:
        if card.code in self._cards:
            return False
        self._cards[card.code] = card
        return True

    async def get(self, code: str) -> Room | None:
        return self._cards.get(code)

    async def put(self, card: Room) -> None:
        self._cards[card.code] = card

    async def cards(self) -> list[Room]:
        # Ties in time go by code, as the Redis board's sorted set orders them.
        return sorted(self._cards.values(), key=lambda card: (card.created_ms, card.code))

    async def remove(self, code: str) -> None:
        self._cards.pop(code, None)

    def hold(self, code: str) -> AbstractAsyncContextManager[None]:
        return self._holds.hold(code, self._hold_within_s)

    async def beat(self, worker: str, ttl_ms: int, matches: int = 0) -> None:
        self._beats[worker] = self._clock.now_ms() + ttl_ms
        self._matches[worker] = matches

    async def match_slots(self) -> int:
        total = 0
        for worker in list(self._beats):
            if await self.alive(worker):
                total += self._matches.get(worker, 0)
        return total

    async def alive(self, worker: str) -> bool:
        until = self._beats.get(worker)
        if until is None:
            return False
        if self._clock.now_ms() < until:
            return True
        del self._beats[worker]  # a dead worker's beat is not kept
        self._matches.pop(worker, None)
        return False
