"""The in-memory session repository: the default store of one server process.

It hands out copies, as any real store hands out snapshots: `get` gives a copy of what
was stored, so a change never committed is lost here as it would be in Redis (the
contract tests check both). `add` stores a copy too (the starting use case keeps its
session), while `save` keeps the very session it is given, as the port allows: the unit
of work only reads a session after writing it, and a copy per write was a few percent
of a move's CPU.

A finished game is kept as a `FinishedSession`: a flat record the garbage collector does
not track, rebuilt into a Session by `Game.restore` when read (as the Redis store
rebuilds its snapshots). Finished games stay readable for two minutes, so under a load
of short games they outnumber the games in play many times over; kept as Sessions, each
would be some 25 tracked objects (one per word of its chain), and the collector's full
passes, which scan them all, would stall every request for tens to hundreds of
milliseconds. Games in play stay Sessions: they are read and written on every
move, and there are at most `max_playing` of them.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any

import msgspec

from noitu.adapters.keyed_locks import KeyedLocks
from noitu.application.noitu.ports import WriteConflict
from noitu.application.noitu.session import GameMessage, ReportState, Session, Ticket
from noitu.domain.noitu.chain import Side
from noitu.domain.noitu.game import EndReason, Game, Status
from noitu.domain.noitu.opponent import Difficulty

SIDES = tuple(Side)
SIDE_CODES = {side: code for code, side in enumerate(SIDES)}


class FinishedSession(msgspec.Struct, frozen=True, gc=False):
    """A finished session, flat: numbers, strings, tuples of numbers and references to
    objects that never refer back to it (the Lexicon, the turn clock, enum members), so
    it can be in no reference cycle and is left out of the garbage collector
    (`gc=False`). `copy()` rebuilds the Session, as `Session.copy` copies one."""

    id: str
    owner: str
    user_id: int
    first_name: str
    chat_id: int | None
    message_id: int | None
    inline_message_id: str | None
    topic_id: int | None
    expires_at: int
    daily: bool
    lexicon: Any
    turn_clock: Any
    difficulty: Difficulty
    words: tuple[int, ...]
    sides: bytes  # a code of SIDES per word
    points: tuple[int, ...]
    status: Status
    end_reason: EndReason | None
    deadline_ms: int
    ended_ms: int
    score: int
    suggestions: tuple[int, ...]
    created_ms: int
    last_active_ms: int
    last_move_ms: int
    report: ReportState
    new_record: bool
    replaced_by: str
    refused: str
    day: int
    version: int

    @classmethod
    def of(cls, session: Session) -> FinishedSession:
        ticket, game = session.ticket, session.game
        message = ticket.message
        links = game.chain.links
        return cls(
            id=session.id,
            owner=session.owner,
            user_id=ticket.user_id,
            first_name=ticket.first_name,
            chat_id=message.chat_id,
            message_id=message.message_id,
            inline_message_id=message.inline_message_id,
            topic_id=message.topic_id,
            expires_at=ticket.expires_at,
            daily=ticket.daily,
            lexicon=game.lexicon,
            turn_clock=game.clock,
            difficulty=game.difficulty,
            words=tuple(link.word.id for link in links),
            sides=bytes(SIDE_CODES[link.by] for link in links),
            points=tuple(link.points for link in links),
            status=game.status,
            end_reason=game.end_reason,
            deadline_ms=game.deadline_ms,
            ended_ms=game.ended_ms,
            score=game.score,
            suggestions=tuple(game.suggestions),
            created_ms=session.created_ms,
            last_active_ms=session.last_active_ms,
            last_move_ms=session.last_move_ms,
            report=session.report,
            new_record=session.new_record,
            replaced_by=session.replaced_by,
            refused=session.refused,
            day=session.day,
            version=session.version,
        )

    def copy(self) -> Session:
        game = Game.restore(
            self.lexicon,
            self.turn_clock,
            self.difficulty,
            zip(self.words, [SIDES[code] for code in self.sides], self.points),
            status=self.status,
            end_reason=self.end_reason,
            deadline_ms=self.deadline_ms,
            ended_ms=self.ended_ms,
            score=self.score,
            suggestions=self.suggestions,
        )
        message = GameMessage(
            chat_id=self.chat_id,
            message_id=self.message_id,
            inline_message_id=self.inline_message_id,
            topic_id=self.topic_id,
        )
        return Session(
            id=self.id,
            ticket=Ticket(self.user_id, self.first_name, message, self.expires_at, daily=self.daily),
            game=game,
            created_ms=self.created_ms,
            last_active_ms=self.last_active_ms,
            last_move_ms=self.last_move_ms,
            report=self.report,
            new_record=self.new_record,
            replaced_by=self.replaced_by,
            refused=self.refused,
            day=self.day,
            version=self.version,
        )

    @property
    def is_playing(self) -> bool:
        return False


def stored(session: Session, *, keep: bool = False) -> Session | FinishedSession:
    """What the store keeps of a session: a copy while it is played (or, with `keep`,
    the session itself), then a record."""
    if not session.is_playing:
        return FinishedSession.of(session)
    return session if keep else session.copy()


class InMemorySessionRepository:
    def __init__(self) -> None:
        self._sessions: dict[str, Session | FinishedSession] = {}
        self._owners: dict[str, str] = {}
        self._by_user: dict[int, dict[str, None]] = {}  # insertion-ordered sets
        self._playing: set[str] = set()
        self._locks = KeyedLocks()

    def lock(self, key: str) -> AbstractAsyncContextManager[None]:
        return self._locks.hold(key)

    async def get(self, session_id: str) -> Session | None:
        found = self._sessions.get(session_id)
        return None if found is None else found.copy()

    async def recent(self, session_id: str) -> Session | None:
        return await self.get(session_id)  # this store is the only copy: never lags

    async def is_current(self, session: Session) -> bool:
        found = self._sessions.get(session.id)
        return found is not None and found.version == session.version

    async def add(self, session: Session, max_playing: int) -> bool:
        if len(self._playing) >= max_playing:
            return False
        self._sessions[session.id] = stored(session)
        self._owners[session.owner] = session.id
        self._by_user.setdefault(session.user_id, {})[session.id] = None
        self._index(session)
        return True

    async def save(self, session: Session) -> None:
        found = self._sessions.get(session.id)
        if found is None or found.version != session.version:
            raise WriteConflict()
        session.version += 1
        self._sessions[session.id] = stored(session, keep=True)
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
