"""The ports of group rooms, one small Protocol per capability: the rooms, the member
credentials, the room cards, the chat leaderboard, the live feed, the announcement."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from noitu.application.noitu.rooms.record import MemberSeat, RoomCard, RoomRecord
from noitu.application.noitu.session import GameMessage


class AddRoom(str, Enum):
    ADDED = "added"
    TOO_MANY_IN_CHAT = "too_many_in_chat"
    TOO_MANY = "too_many"


class RoomStore(Protocol):
    """Where rooms live. `get` hands out an independent copy; `lock(key)` serializes
    every change to one room across all instances sharing the store."""

    def lock(self, key: str) -> AbstractAsyncContextManager[None]: ...

    async def get(self, key: str) -> RoomRecord | None: ...

    async def add(self, record: RoomRecord, max_rooms: int, max_per_chat: int) -> AddRoom:
        """Store a new room unless the server or the chat has too many; the checks and
        the write are one atomic step."""
        ...

    async def save(self, record: RoomRecord, due_ms: int | None) -> None:
        """Write a room back, with the first time something happens to it by itself
        (`RoomRecord.due_ms`; None: nothing will)."""
        ...

    async def remove(self, key: str) -> None:
        """The room closes: it and every trace of it in the store go."""
        ...

    async def due(self, now_ms: int) -> list[str]:
        """Rooms with something due at `now_ms` or before, the earliest first."""
        ...

    async def next_due(self) -> int | None:
        """The earliest time any room has something due, or None."""
        ...

    async def keys(self) -> list[str]: ...

    async def count(self) -> int: ...


class MemberCredentials(Protocol):
    async def replace(self, credential: str, seat: MemberSeat) -> None:
        """Give the member a new credential; their previous one stops working."""
        ...

    async def find(self, credential: str) -> MemberSeat | None: ...

    async def revoke(self, seat: MemberSeat) -> None:
        """The member's credential stops working (they left)."""
        ...


class RoomCards(Protocol):
    async def record(self, card: RoomCard) -> None: ...

    async def find(self, chat_id: int, message_id: int, now_ms: int) -> RoomCard | None:
        """A card still kept (played within 30 days), touched as played now."""
        ...


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    user_id: int
    name: str
    won: bool
    score: int


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    user_id: int
    name: str
    games: int
    wins: int
    best: int


def ranked(rows: list[LeaderboardRow], limit: int) -> list[LeaderboardRow]:
    """The chat leaderboard's order: by wins, then best score, then fewer games (then
    the earlier user id, so the order is stable)."""
    return sorted(rows, key=lambda r: (-r.wins, -r.best, r.games, r.user_id))[:limit]


class ChatLeaderboard(Protocol):
    async def record(self, chat_id: int, entries: list[LeaderboardEntry]) -> None: ...

    async def top(self, chat_id: int, limit: int) -> list[LeaderboardRow]:
        """By wins, then best score, then fewer games."""
        ...


class RoomFeed(Protocol):
    """Tells every instance that a room changed; a subscriber hears each change."""

    async def publish(self, key: str) -> None: ...

    def subscribe(self, key: str) -> AbstractAsyncContextManager[AsyncIterator[None]]: ...


class RoomAnnouncer(Protocol):
    async def announce(self, card: GameMessage, text: str) -> None:
        """One text in the card's chat (and topic); failures are the adapter's to log."""
        ...
