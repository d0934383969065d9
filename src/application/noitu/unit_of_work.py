"""The one way a use case changes a session: open it under its lock, change it, commit.

A session read from the store is a copy, so nothing reaches the store without a
commit. A commit that records the game's end also marks its score report "pending" in
the same write, and the report starts only once that write succeeded (B8): a failed
write reports nothing, and the instance that wrote the ending is the only one that
reports.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from noitu.application.noitu.errors import NoSession
from noitu.application.noitu.ports import ScoreReporter, SessionRepository
from noitu.application.noitu.session import ReportState, Session
from noitu.application.ports import Background, Clock


class SessionWork:
    """One session opened under its lock, and the time it was opened at."""

    def __init__(self, sessions: Sessions, session: Session, now_ms: int) -> None:
        self._sessions = sessions
        self.session = session
        self.now_ms = now_ms

    async def commit(self) -> None:
        """Write the session back; if this write records the game's end, report it."""
        await self._sessions.commit(self.session)

    async def remove(self) -> None:
        """Drop the session; a game it ends is still reported."""
        await self._sessions.remove(self.session)


class Sessions:
    """The session store as the use cases see it: units of work, the per-user start
    lock, the queries a start needs, and the score reports that follow an ending."""

    def __init__(
        self,
        repository: SessionRepository,
        reporter: ScoreReporter,
        background: Background,
        clock: Clock,
    ) -> None:
        self._repository = repository
        self._reporter = reporter
        self._background = background
        self._clock = clock

    @asynccontextmanager
    async def open(self, session_id: str, *, touch: bool = True) -> AsyncIterator[SessionWork]:
        """Hold the session's lock and read it; `NoSession` when it is gone. `touch`
        records a player's request (the idle limit counts from the last one)."""
        async with self._repository.lock(session_id):
            session = await self._repository.get(session_id)
            if session is None:
                raise NoSession()
            now = self._clock.now_ms()
            if touch:
                session.last_active_ms = now
            yield SessionWork(self, session, now)

    def lock_user(self, user_id: int) -> AbstractAsyncContextManager[None]:
        """Serializes the starts of one user across instances."""
        return self._repository.lock(f"user:{user_id}")

    async def add(self, session: Session, max_playing: int) -> bool:
        return await self._repository.add(session, max_playing)

    async def find_by_owner(self, owner: str) -> Session | None:
        return await self._repository.find_by_owner(owner)

    async def playing_of(self, user_id: int) -> list[Session]:
        return await self._repository.playing_of(user_id)

    async def count_playing(self) -> int:
        return await self._repository.count_playing()

    async def ids(self) -> list[str]:
        return await self._repository.ids()

    async def commit(self, session: Session) -> None:
        report = self._mark_ended(session)
        await self._repository.save(session)
        if report:
            self._background.spawn(self._report(session))

    async def remove(self, session: Session) -> None:
        report = self._mark_ended(session)
        await self._repository.remove(session.id)
        if report:
            self._background.spawn(self._report(session))

    @staticmethod
    def _mark_ended(session: Session) -> bool:
        """Set the report state of a game that just ended; True when it needs a report."""
        if session.is_playing or session.report is not ReportState.NONE:
            return False
        if session.game.score <= 0:
            session.report = ReportState.SKIPPED
            return False
        session.report = ReportState.PENDING
        return True

    async def _report(self, ended: Session) -> None:
        outcome = await self._reporter.report(ended.user_id, ended.game.score, ended.ticket.message)
        async with self._repository.lock(ended.id):
            stored = await self._repository.get(ended.id)
            if stored is None:
                return  # evicted or replaced meanwhile; Telegram has the score anyway
            stored.report = outcome
            await self._repository.save(stored)
