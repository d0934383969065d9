"""LiveMatch: a match being played, shared by its runner and the people at the board
(spec B1, B4).

The runner (`RunMatch.play`) asks the bots; a room's use cases hand in what people do
(PLACE, RANDOM_PLACEMENT, READY, MOVE, PASS, SURRENDER). Both change the match only
through a LiveMatch, which applies the change to the engine, writes the replay's
`applied` event, keeps what the page shows (who thinks, a person's deadline, the last
action) and announces the change: `on_change` is called, and whoever waits on `pulse()`
or `ended()` wakes up.

A person's turn has 60 s that never pause: the deadline is set the moment the turn
begins (when play starts, or when the action before it is applied) and `settle(now)`
ends the match as TIME_UP once it has passed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from noitu.application.arena.match_clock import MATCH_CLOCK
from noitu.application.arena.replay import (
    MatchEvents,
    Player,
    applied_event,
    end_event,
    setup_event,
)
from noitu.application.ports import Clock
from noitu.domain.arena.actions import Action, Fight
from noitu.domain.arena.board import SIDES, Side, Square
from noitu.domain.arena.errors import NotYourTurn, WrongPhase
from noitu.domain.arena.failure import FailureCode
from noitu.domain.arena.match import Match, Phase


class Timer(Protocol):
    """Waiting for a moment of the `Clock` (so tests can advance a fake clock)."""

    async def sleep_until(self, at_ms: int) -> None:
        """Return once the clock reads `at_ms` or later (at once if it already does)."""
        ...


@dataclass(frozen=True, slots=True)
class Played:
    """The last action applied: the turn it answered, who played it, and its fight."""

    turn: int
    side: Side
    action: Action
    fight: Fight | None


class LiveMatch:
    def __init__(
        self,
        match: Match,
        events: MatchEvents,
        *,
        persons: Iterable[Side] = (),
        clock: Clock | None = None,
        on_change: Callable[[], None] = lambda: None,
    ) -> None:
        self.match = match
        self.events = events
        self.persons = frozenset(persons)
        if self.persons and clock is None:
            raise ValueError("a match with a person needs a clock for the person's turns")
        self._clock = clock
        self._on_change = on_change
        #: Whether play has begun (the runner runs; the sides may act).
        self.started = False
        #: The bot being asked now, if any.
        self.thinking: Side | None = None
        #: When the turn of the person to move ends (ms since the epoch), if one is to move.
        self.deadline_ms: int | None = None
        self.last: Played | None = None
        #: The last bytes each bot wrote to stderr (P1, P2), taken the moment the match
        #: ended, before anyone is told it did: whoever sees the result can read them.
        self.stderr: tuple[bytes, bytes] = (b"", b"")
        self._stderr_source: Callable[[], tuple[bytes, bytes]] | None = None
        self._pulse = asyncio.Event()
        self._ended = asyncio.Event()
        self._setup_written = False
        self._end_written = False

    # -- reading -------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.match.phase is Phase.FINISHED

    def pulse(self) -> asyncio.Event:
        """Set at the next change. Take it before awaiting, so no change is missed."""
        return self._pulse

    def ended(self) -> asyncio.Event:
        """Set once the match is over."""
        return self._ended

    def is_person(self, side: Side) -> bool:
        return side in self.persons

    # -- announcing ----------------------------------------------------------------

    def read_stderr_from(self, source: Callable[[], tuple[bytes, bytes]]) -> None:
        """Where the bots' stderr tails are read from (the runner's processes, P1 and
        P2); read once, at the end."""
        self._stderr_source = source

    def changed(self) -> None:
        """Announce a change (the LiveMatch's own methods call it)."""
        pulse, self._pulse = self._pulse, asyncio.Event()
        if self.over:
            self.thinking = None
            self.deadline_ms = None
            if not self._ended.is_set() and self._stderr_source is not None:
                self.stderr = self._stderr_source()
            self._ended.set()
        pulse.set()
        self._on_change()

    # -- placement (people; bots are placed by the room when the match is made) -----

    def place(self, side: Side, piece_id: str, at: Square) -> None:
        if self.match.place(side, piece_id, at):
            self.changed()

    def random_placement(self, side: Side) -> None:
        if self.match.random_placement(side):
            self.changed()

    def ready(self, side: Side) -> None:
        self.match.ready(side)
        self.changed()

    def place_rest_and_ready(self) -> None:
        """The placement time is up: the server places every side's remaining pieces and
        readies it."""
        if self.match.phase is not Phase.PLACEMENT:
            return
        for side in SIDES:
            self.match.place_rest_and_ready(side)
        self.changed()

    # -- play ----------------------------------------------------------------------

    def begin(self) -> None:
        """Play begins: the first turn (P1's) starts now."""
        if self.match.phase is not Phase.PLAYING:
            raise WrongPhase("Trận chưa xếp quân xong.")
        self.started = True
        self._begin_turn()
        self.changed()

    def _begin_turn(self) -> None:
        side = self.match.current_player
        self.thinking = None
        self.deadline_ms = None
        if side is None:
            return
        if side in self.persons:
            assert self._clock is not None
            self.deadline_ms = self._clock.now_ms() + MATCH_CLOCK.person_turn_ms
        else:
            self.thinking = side

    def play(self, side: Side, action: Action) -> Fight | None:
        """Apply the action of the side to move (a bot's judged reply, or a person's
        checked action), record it in the replay and begin the next turn."""
        turn = self.match.turn
        fight = self.match.apply(action, side)
        self.events.record(applied_event(turn, side, action, fight))
        self.last = Played(turn, side, action, fight)
        self._begin_turn()
        self.changed()
        return fight

    def act(self, side: Side, action: Action) -> Fight | None:
        """A person's MOVE or PASS. Raises WrongPhase, NotYourTurn or IllegalAction (the
        rules' reason, in Vietnamese) and changes nothing when it is not one of the
        legal actions of the side to move now."""
        if not self.started or self.match.phase is not Phase.PLAYING:
            raise WrongPhase("Trận đã kết thúc." if self.over else "Trận chưa bắt đầu.")
        if self.match.current_player is not side:
            raise NotYourTurn("Chưa đến lượt bạn.")
        return self.play(side, self._shared(action))

    def _shared(self, action: Action) -> Action:
        """The engine's own object equal to `action` when it is legal (the engine then
        checks it again); `action` itself otherwise, for the engine to refuse."""
        for legal in self.match.legal_actions():
            if legal == action:
                return legal
        return action

    def settle(self, now_ms: int) -> bool:
        """End the match as TIME_UP when the person to move let the deadline pass."""
        side = self.match.current_player
        if (
            self.match.phase is Phase.PLAYING
            and side is not None
            and self.deadline_ms is not None
            and now_ms >= self.deadline_ms
        ):
            self.match.time_up(side)
            self.changed()
            return True
        return False

    # -- endings from outside --------------------------------------------------------

    def surrender(self, side: Side) -> None:
        """The side surrenders (a person, its person left, or its bot's owner)."""
        if not self.over:
            self.match.surrender(side)
            self.changed()

    def fail(self, side: Side, code: FailureCode, detail: str) -> None:
        if not self.over:
            self.match.fail(side, code, detail)
            self.changed()

    def abandon(self) -> None:
        """The server could not go on with the match: it ends with no winner."""
        if not self.over:
            self.match.abandon()
            self.changed()

    # -- the replay's first and last events ----------------------------------------

    def write_setup(self, players: Sequence[Player]) -> None:
        """The setup event, once: the placement as play starts (or none, when the
        match ended before)."""
        if not self._setup_written:
            self._setup_written = True
            self.events.record(setup_event(self.match, players))

    def write_end(self) -> None:
        """The end event, once the match is over."""
        if self.over and not self._end_written:
            assert self.match.result is not None
            self._end_written = True
            self.events.record(end_event(self.match.result))
