"""The ports only nối từ's use cases need, one small Protocol per capability."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Protocol

from noitu.application.noitu.session import GameMessage, ScoreReport, Session, Ticket


class WriteConflict(Exception):
    """`save` found the stored session changed (or gone) since this copy was read."""


class SessionRepository(Protocol):
    """Where sessions live.

    `get` and `recent` hand out independent copies: a change reaches the store only
    through `save` (the unit of work's commit). `get` reads the store; `recent` may
    answer from what this instance saw last, so that a change costs one write. Changes are optimistic: each copy carries the
    version it was read at, and `save` writes it only if the stored version is still
    that one (then the version goes up), else raises `WriteConflict`; the unit of work
    reads again and retries. `lock(key)` serializes what must not overlap at all, such
    as the starts of one user (key: `user:<id>`), across all server instances sharing
    the store.
    """

    def lock(self, key: str) -> AbstractAsyncContextManager[None]: ...

    async def get(self, session_id: str) -> Session | None: ...

    async def recent(self, session_id: str) -> Session | None:
        """A copy to change, which may lag behind the store (a store may keep the
        sessions it saw last, and another instance may have written since): `save`
        refuses a copy that lags, and `is_current` tells before acting on it otherwise.
        None when the store knows the session is gone."""
        ...

    async def is_current(self, session: Session) -> bool:
        """Whether the store still holds this copy's version; when not, the next
        `recent` reads the newer one."""
        ...

    async def add(self, session: Session, max_playing: int) -> bool:
        """Store a new session unless `max_playing` unfinished ones exist already;
        the check and the write are one atomic step."""
        ...

    async def save(self, session: Session) -> None:
        """Write a changed session back if nobody wrote it since it was read, else
        `WriteConflict`; a session that is gone stays gone (`WriteConflict` too, so the
        unit of work reads again and finds it gone). The session
        given is the store's afterwards (a store may keep it rather than a copy): the
        caller may read it, and reads the session again to change it."""
        ...

    async def remove(self, session_id: str) -> None: ...

    async def find_by_owner(self, owner: str) -> Session | None:
        """The session of a player on one game message, if any."""
        ...

    async def playing_of(self, user_id: int) -> list[Session]:
        """The user's unfinished sessions, oldest first."""
        ...

    async def count_playing(self) -> int: ...

    async def ids(self) -> list[str]:
        """Every stored session id (for the minutely sweep)."""
        ...


class TokenVerifier(Protocol):
    def verify(self, token: str, now_s: int) -> Ticket:
        """The ticket a token carries; raises BadToken or TokenExpired."""
        ...


class TokenIssuer(Protocol):
    def issue(self, ticket: Ticket) -> str: ...


class StartRateLimiter(Protocol):
    async def allow(self, user_id: int, now_ms: int) -> bool:
        """Count a start and say yes, or say no without counting it."""
        ...


class ScoreReporter(Protocol):
    async def report(self, user_id: int, score: int, message: GameMessage) -> ScoreReport:
        """Put a score on the game message's high-score table: OK or FAILED, and
        whether it raised the player's best there."""
        ...


@dataclass(frozen=True, slots=True)
class HighScore:
    """One row of a game message's high-score table (Telegram's GameHighScore)."""

    position: int  # 1 for the best
    user_id: int
    name: str  # "" when the table does not know it
    score: int


class HighScoresUnavailable(Exception):
    """The table could not be read (Telegram down, refused, or not answering)."""


class HighScores(Protocol):
    async def table(self, user_id: int, message: GameMessage) -> list[HighScore]:
        """Rows of the game message's table, by position: at least the top 3 and the
        user's own row when the user has one (Telegram's getGameHighScores gives those
        and the user's neighbours). Raises HighScoresUnavailable."""
        ...


@dataclass(frozen=True, slots=True)
class DailyEntry:
    """A player's game of one day (spec B13): its session, and the finished game once
    it is over (kept all day, after the session store has let the session go)."""

    session_id: str
    finished: Session | None = None


class DailyGames(Protocol):
    """Each player's daily game and streak (spec B13), shared by every instance.

    Days are the players' day numbers (`players_day.day_of`). An entry lives at least
    until the end of the day after its own; a streak while it can still grow."""

    async def entry(self, user_id: int, day: int) -> DailyEntry | None:
        """The user's game of the day, if one was started."""
        ...

    async def begin(self, user_id: int, day: int, session_id: str) -> None:
        """Name the user's game of the day (the starts of a user are serialized; a
        finished game recorded for the day is never replaced)."""
        ...

    async def finish(self, session: Session) -> int:
        """Record a finished daily game (a copy, shown again on a later start; a later
        call replaces it, e.g. once its score report is done) and count its day in the
        player's streak, once. Answers the streak."""
        ...

    async def streak(self, user_id: int, day: int) -> int:
        """The user's streak as it stands on `day` (`Streak.on`)."""
        ...
