"""The one way a use case changes a session: read it, change it, write it back.

A session read from the store is a copy, so nothing reaches the store without a
commit. Changes are optimistic rather than locked: a use case hands `Sessions.change`
a step, a plain function of the session that marks it to be committed or removed; the
session is read (`recent`: the store may answer from the copy it saw last), the step
runs, and the write succeeds only if nobody wrote the session since that copy (the
store compares versions). If somebody did, the session is read again and the step
runs again on the newer copy, up to `WRITE_ATTEMPTS` times (then `Busy`). A step that
writes nothing, removes the session or fails is acted on only once the store confirms
the copy was current (`is_current`), so no answer comes from a copy that lagged. A step therefore does no I/O and may run more than once: it decides from
the copy it is given, and only the attempt that was written counts.

A commit that records the game's end also marks its score report "pending" in the same
write, and the report starts only once that write succeeded (B8): a failed write
reports nothing, and the instance that wrote the ending is the only one that reports.
A daily game's end is recorded in the daily games' store (B13: the finished game, the
streak) once the write succeeded, before the answer; again when its report is done.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import TypeVar

from noitu.application.errors import Busy
from noitu.application.noitu.errors import NoSession
from noitu.application.noitu.ports import (
    DailyGames,
    ScoreReporter,
    SessionRepository,
    WriteConflict,
)
from noitu.application.noitu.session import ReportState, Session
from noitu.application.ports import Background, Clock

T = TypeVar("T")

#: Reads of one session a change may take when other writers keep coming first. A
#: player's requests come one at a time, so a conflict needs a second writer (the
#: sweep, a score report, another tab) on the same session at the same moment: more
#: than a few in a row means the store is overloaded, which is `Busy`.
WRITE_ATTEMPTS = 8


class Write(enum.Enum):
    NOTHING = "nothing"
    COMMIT = "commit"
    REMOVE = "remove"


class SessionWork:
    """One read of a session, the time it was read at, and what to write back."""

    __slots__ = ("now_ms", "session", "write")

    def __init__(self, session: Session, now_ms: int) -> None:
        self.session = session
        self.now_ms = now_ms
        self.write = Write.NOTHING

    def commit(self) -> None:
        """Write the session back when the step returns; if this write records the
        game's end, report it."""
        self.write = Write.COMMIT

    def remove(self) -> None:
        """Drop the session when the step returns; a game it ends is still reported."""
        self.write = Write.REMOVE


class Sessions:
    """The session store as the use cases see it: optimistic changes, the per-user start
    lock, the queries a start needs, and the score reports that follow an ending."""

    def __init__(
        self,
        repository: SessionRepository,
        reporter: ScoreReporter,
        background: Background,
        clock: Clock,
        daily: DailyGames | None = None,
    ) -> None:
        self._repository = repository
        self._reporter = reporter
        self._background = background
        self._clock = clock
        self._daily = daily

    async def change(
        self, session_id: str, step: Callable[[SessionWork], T], *, touch: bool = True
    ) -> T:
        """Read the session, run `step` on it and write back what it marked; again on a
        newer copy while another write comes first. `NoSession` when it is gone; an error
        the step raises writes nothing. `touch` records a player's request (the idle
        limit counts from the last one)."""
        repository = self._repository
        for _ in range(WRITE_ATTEMPTS):
            session = await repository.recent(session_id)
            if session is None:
                raise NoSession()
            now = self._clock.now_ms()
            if touch:
                session.last_active_ms = now
            work = SessionWork(session, now)
            try:
                result = step(work)
            except Exception:
                if await repository.is_current(session):
                    raise
                continue  # decided on a copy that lagged: decide again on the newer one
            try:
                if work.write is Write.COMMIT:
                    await self._commit(session)  # the write checks the version itself
                elif not await repository.is_current(session):
                    continue
                elif work.write is Write.REMOVE:
                    await self._remove(session)
            except WriteConflict:
                continue
            return result
        raise Busy()

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

    async def _commit(self, session: Session) -> None:
        ended = self._just_ended(session)
        report = self._mark_ended(session)
        await self._repository.save(session)
        if ended:
            await self._after_end(session, report)

    async def _remove(self, session: Session) -> None:
        ended = self._just_ended(session)
        report = self._mark_ended(session)
        await self._repository.remove(session.id)
        if ended:
            await self._after_end(session, report)

    async def _after_end(self, session: Session, report: bool) -> None:
        """A write recorded the game's end: a daily game's goes to the daily store (the
        streak counts it before the answer), then its score report starts."""
        if session.day and self._daily is not None:
            await self._daily.finish(session)
        if report:
            self._background.spawn(self._report(session))

    @staticmethod
    def _just_ended(session: Session) -> bool:
        """Whether this write records the game's end (its report state is still unset)."""
        return not session.is_playing and session.report is ReportState.NONE

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

        def record(work: SessionWork) -> Session:
            work.session.report = outcome.state
            work.session.new_record = outcome.new_record
            work.commit()
            return work.session

        try:
            final = await self.change(ended.id, record, touch=False)
        except NoSession:
            # Evicted or replaced meanwhile; Telegram has the score anyway.
            final = ended.copy()
            final.report = outcome.state
            final.new_record = outcome.new_record
        if final.day and self._daily is not None:
            await self._daily.finish(final)  # the daily game kept says the report is done
