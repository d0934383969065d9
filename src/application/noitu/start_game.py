"""StartGame: a verified game link becomes a new session (spec "api/start", B8).

A daily game's link (B13) starts the player's game of the day once: a later start that
day answers that game, resumed while it is played, finished once it is over (put back
in the session store for the finished games' time when the store had let it go).
"""

from __future__ import annotations

import random

from noitu.application.noitu.commands import StartGameCommand
from noitu.application.noitu.errors import BadRequest, Busy, NoSession, TooFast
from noitu.application.noitu.messages import BAD_DIFFICULTY, DAILY_OFF
from noitu.application.noitu.ports import (
    DailyEntry,
    DailyGames,
    StartRateLimiter,
    TokenVerifier,
)
from noitu.application.noitu.rooms.errors import RoomLink
from noitu.application.noitu.session import Session, Ticket
from noitu.application.noitu.unit_of_work import Sessions, SessionWork
from noitu.application.noitu.view import SessionView, SessionViews
from noitu.application.ports import Clock
from noitu.domain.noitu.daily import DailyPuzzle
from noitu.domain.noitu.game import Game
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.opponent import DEFAULT_DIFFICULTY, Difficulty
from noitu.domain.noitu.players_day import day_of
from noitu.domain.noitu.rules import SessionLimits, TurnClock


def parse_difficulty(value: str) -> Difficulty:
    if not value:
        return DEFAULT_DIFFICULTY
    try:
        return Difficulty(value)
    except ValueError:
        raise BadRequest(BAD_DIFFICULTY) from None


class StartGame:
    def __init__(
        self,
        lexicon: Lexicon,
        turn_clock: TurnClock,
        limits: SessionLimits,
        sessions: Sessions,
        views: SessionViews,
        tokens: TokenVerifier,
        start_limiter: StartRateLimiter,
        clock: Clock,
        rng: random.Random,
        id_source: random.Random,
        puzzle: DailyPuzzle | None = None,
        daily_games: DailyGames | None = None,
    ) -> None:
        self._lexicon = lexicon
        self._turn_clock = turn_clock
        self._limits = limits
        self._sessions = sessions
        self._views = views
        self._tokens = tokens
        self._start_limiter = start_limiter
        self._clock = clock
        self._rng = rng
        self._id_source = id_source
        self._puzzle = puzzle
        self._daily_games = daily_games

    async def __call__(self, command: StartGameCommand) -> SessionView:
        difficulty = parse_difficulty(command.difficulty)
        now = self._clock.now_ms()
        ticket = self._tokens.verify(command.token, now // 1000)
        if ticket.room:
            raise RoomLink()
        if ticket.daily and (self._puzzle is None or self._daily_games is None):
            raise BadRequest(DAILY_OFF)
        if not await self._start_limiter.allow(ticket.user_id, now):
            # The oldest start counted leaves the sliding window within one window.
            raise TooFast(retry_after_ms=self._limits.start_window_ms)

        async with self._sessions.lock_user(ticket.user_id):
            session = await self._start(ticket, difficulty, now)
        return self._views.of(session, now)

    async def _start(self, ticket: Ticket, difficulty: Difficulty, now: int) -> Session:
        day = 0
        if ticket.daily:
            assert self._daily_games is not None
            day = day_of(now)
            found = await self._daily_games.entry(ticket.user_id, day)
            if found is not None:
                again = await self._again(found)
                if again is not None:
                    return again
        playing = await self._sessions.playing_of(ticket.user_id)
        # The game this start replaces: the player's game on the same message, if it is
        # still played. Starts of a user are serialized and each ends the one it
        # replaces, so a message has at most one game in play, and it is the latest
        # (what `find_by_owner` names): looking among the games in play finds it without
        # reading the finished games a start leaves behind.
        replaced = next((s for s in playing if s.owner == ticket.owner), None)
        ending = [replaced] if replaced is not None else []
        others = [s for s in playing if s is not replaced]
        overflow = len(others) + 1 - self._limits.max_playing_per_user
        ending += others[: max(overflow, 0)]
        # The games this start ends free their slots; check before ending any of them.
        if await self._sessions.count_playing() - len(ending) >= self._limits.max_playing:
            raise Busy()
        new_id = f"{self._id_source.getrandbits(128):032x}"
        for old in ending:
            await self._end(old.id, new_id)

        if day:
            assert self._puzzle is not None and self._daily_games is not None
            game = self._puzzle.start(self._lexicon, self._turn_clock, day, now)
        else:
            game = Game.start(self._lexicon, self._turn_clock, difficulty, self._rng, now)
        session = Session(
            id=new_id,
            ticket=ticket,
            game=game,
            created_ms=now,
            last_active_ms=now,
            day=day,
        )
        if not await self._sessions.add(session, self._limits.max_playing):
            raise Busy()
        if day:
            await self._daily_games.begin(ticket.user_id, day, new_id)
        return session

    async def _again(self, found: DailyEntry) -> Session | None:
        """The player's game of the day, started before: resumed from the session store,
        or, once the store has let it go, the finished game put back for the finished
        games' time. None when it was lost without its end recorded (a store restarted):
        a new game then."""
        try:
            return await self._sessions.change(found.session_id, _resume)
        except NoSession:
            pass
        session = found.finished
        if session is None:
            return None
        session.game.ended_ms = self._clock.now_ms()  # readable again from now
        if not await self._sessions.add(session, self._limits.max_playing):
            raise Busy()
        return session

    async def _end(self, session_id: str, replaced_by: str) -> None:
        """Settle a session this start replaces or pushes out; its score is still reported.

        It ends as the spec says (given up, or no_legal_move in a dead end) and records
        which session took its place, so that a tab still showing it can say so instead
        of reporting a give-up the player never made. A turn that had run out already
        ends as it ran out, with no such note: the start did not end that game."""
        def end(work: SessionWork) -> None:
            game = work.session.game
            if game.is_over:
                return
            if not game.settle(work.now_ms):  # a turn that ran out ends as it ran out
                game.give_up(work.now_ms)
                work.session.replaced_by = replaced_by
            work.commit()

        try:
            await self._sessions.change(session_id, end, touch=False)
        except NoSession:
            return


def _resume(work: SessionWork) -> Session:
    """A start of a game already under way, as `api/state` answers it: a turn that ran
    out is settled; the start counts as the player's request."""
    work.session.game.settle(work.now_ms)
    work.commit()
    return work.session
