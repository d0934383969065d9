"""The in-memory adapters of the room ports: one server process's rooms, member
credentials, room cards, chat leaderboards and live feed. Like the session store, it
keeps copies: `get` hands one out and `save` stores one, so an uncommitted change is
lost here as it would be in Redis (the contract tests run against both)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from noitu.adapters.keyed_locks import KeyedLocks
from noitu.application.noitu.rooms.ports import (
    AddRoom,
    LeaderboardEntry,
    LeaderboardRow,
    ranked,
)
from noitu.application.noitu.rooms.record import MemberSeat, RoomCard, RoomRecord

LOCK_TIMEOUT_S = 5.0


class InMemoryRoomStore:
    def __init__(self) -> None:
        self._locks = KeyedLocks()
        self._rooms: dict[str, RoomRecord] = {}
        self._due: dict[str, int] = {}

    def lock(self, key: str) -> AbstractAsyncContextManager[None]:
        return self._locks.hold(f"room:{key}", LOCK_TIMEOUT_S)

    async def get(self, key: str) -> RoomRecord | None:
        record = self._rooms.get(key)
        return record.copy() if record is not None else None

    async def add(self, record: RoomRecord, max_rooms: int, max_per_chat: int) -> AddRoom:
        if record.key not in self._rooms:
            in_chat = sum(1 for r in self._rooms.values() if r.chat_id == record.chat_id)
            if in_chat >= max_per_chat:
                return AddRoom.TOO_MANY_IN_CHAT
            if len(self._rooms) >= max_rooms:
                return AddRoom.TOO_MANY
        record.version += 1
        self._rooms[record.key] = record.copy()
        return AddRoom.ADDED

    async def save(self, record: RoomRecord, due_ms: int | None) -> None:
        if record.key not in self._rooms:
            return  # a room that is gone is not brought back
        record.version += 1
        self._rooms[record.key] = record.copy()
        if due_ms is None:
            self._due.pop(record.key, None)
        else:
            self._due[record.key] = due_ms

    async def remove(self, key: str) -> None:
        self._rooms.pop(key, None)
        self._due.pop(key, None)

    async def due(self, now_ms: int) -> list[str]:
        return sorted((k for k, due in self._due.items() if due <= now_ms), key=self._due.__getitem__)

    async def next_due(self) -> int | None:
        return min(self._due.values(), default=None)

    async def keys(self) -> list[str]:
        return list(self._rooms)

    async def count(self) -> int:
        return len(self._rooms)


class InMemoryMemberCredentials:
    def __init__(self) -> None:
        self._seats: dict[str, MemberSeat] = {}
        self._credential_of: dict[MemberSeat, str] = {}

    async def replace(self, credential: str, seat: MemberSeat) -> None:
        await self.revoke(seat)
        self._seats[credential] = seat
        self._credential_of[seat] = credential

    async def find(self, credential: str) -> MemberSeat | None:
        return self._seats.get(credential)

    async def revoke(self, seat: MemberSeat) -> None:
        old = self._credential_of.pop(seat, None)
        if old is not None:
            self._seats.pop(old, None)


class InMemoryRoomCards:
    def __init__(self, keep_ms: int) -> None:
        self._keep_ms = keep_ms
        self._cards: dict[tuple[int, int], RoomCard] = {}

    async def record(self, card: RoomCard) -> None:
        self._cards[(card.chat_id, card.message_id)] = card

    async def find(self, chat_id: int, message_id: int, now_ms: int) -> RoomCard | None:
        card = self._cards.get((chat_id, message_id))
        if card is None:
            return None
        if now_ms - card.last_play_ms > self._keep_ms:
            del self._cards[(chat_id, message_id)]
            return None
        card = RoomCard(card.chat_id, card.message_id, card.topic_id, card.made_ms, now_ms)
        self._cards[(chat_id, message_id)] = card
        return card


class InMemoryChatLeaderboard:
    def __init__(self) -> None:
        self._rows: dict[int, dict[int, LeaderboardRow]] = {}

    async def record(self, chat_id: int, entries: list[LeaderboardEntry]) -> None:
        rows = self._rows.setdefault(chat_id, {})
        for entry in entries:
            row = rows.get(entry.user_id) or LeaderboardRow(entry.user_id, entry.name, 0, 0, 0)
            rows[entry.user_id] = LeaderboardRow(
                entry.user_id, entry.name or row.name, row.games + 1,
                row.wins + int(entry.won), max(row.best, entry.score),
            )

    async def top(self, chat_id: int, limit: int) -> list[LeaderboardRow]:
        return ranked(list(self._rows.get(chat_id, {}).values()), limit)


class InMemoryRoomFeed:
    """Each subscriber has a flag raised by every change of its room; changes that come
    faster than it reads are one notice (each message is a full view anyway)."""

    def __init__(self) -> None:
        self._listeners: dict[str, set[asyncio.Event]] = {}

    async def publish(self, key: str) -> None:
        for flag in self._listeners.get(key, ()):
            flag.set()

    async def publish_all(self) -> None:
        """Wake every subscriber (after changes may have been missed)."""
        for flags in self._listeners.values():
            for flag in flags:
                flag.set()

    @asynccontextmanager
    async def subscribe(self, key: str) -> AsyncIterator[AsyncIterator[None]]:
        flag = asyncio.Event()
        listeners = self._listeners.setdefault(key, set())
        listeners.add(flag)
        try:
            yield self._notices(flag)
        finally:
            listeners.discard(flag)
            if not listeners:
                self._listeners.pop(key, None)

    @staticmethod
    async def _notices(flag: asyncio.Event) -> AsyncIterator[None]:
        while True:
            await flag.wait()
            flag.clear()
            yield None
