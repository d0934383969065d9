"""The in-memory session repository: the default store of one server process.

It keeps copies, as any real store keeps snapshots: `get` hands out a copy of what was
stored and `save` stores a copy, so a change never committed is lost here as it would be
in Redis (the contract tests check both).
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

from noitu.adapters.keyed_locks import KeyedLocks
from noitu.application.noitu.session import Session


class InMemorySessionRepository:
    def __init__(self) -> None:
        self._sessions: dict[str, Session] = {}
        self._owners: dict[str, str] = {}
        self._by_user: dict[int, dict[str, None]] = {}  # insertion-ordered sets
        self._playing: set[str] = set()
        self._locks = KeyedLocks()

    def lock(self, key: str) -> AbstractAsyncContextManager[None]:
        return self._locks.hold(key)

    async def get(self, session_id: str) -> Session | None:
        found = self._sessions.get(session_id)
        return None if found is None else found.copy()

    async def add(self, session: Session, max_playing: int) -> bool:
        if len(self._playing) >= max_playing:
            return False
        self._sessions[session.id] = session.copy()
        self._owners[session.owner] = session.id
        self._by_user.setdefault(session.user_id, {})[session.id] = None
        self._index(session)
        return True

    async def save(self, session: Session) -> None:
        if session.id not in self._sessions:
            return
        session.version += 1
        self._sessions[session.id] = session.copy()
        self._index(session)

    def _index(self, session: Session) -> None:
        if session.is_playing:
            self._playing.add(session.id)
        else:
            self._playing.discard(session.id)

    async def remove(self, session_id: str) -> None:
        session = self._sessions.pop(session_id, None)
        if session is None:
            return
        self._playing.discard(session_id)
        if self._owners.get(session.owner) == session_id:
            del self._owners[session.owner]
        mine = self._by_user.get(session.user_id)
        if mine is not None:
            mine.pop(session_id, None)
            if not mine:
                del self._by_user[session.user_id]

    async def find_by_owner(self, owner: str) -> Session | None:
        found = self._owners.get(owner)
        return None if found is None else await self.get(found)

    async def playing_of(self, user_id: int) -> list[Session]:
        mine = self._by_user.get(user_id, {})
        return [self._sessions[i].copy() for i in mine if i in self._playing]

    async def count_playing(self) -> int:
        return len(self._playing)

    async def ids(self) -> list[str]:
        return list(self._sessions)
