"""RunMatch: one match, from the start of play to the result (spec A1, A4, A6, B1–B4).
A side is a bot program or a person in the browser.

Both bots' processes start when play starts. Each bot's first request has 25 s from the
moment it is written (start-up included), every later one 2 s; a process failure of the
bot that is NOT being asked (it exits, floods stdout, runs out of memory while the
other side thinks) ends the match as soon as it happens. A reply is judged and applied
before anything that followed it on stdout. A person's turn has 60 s (the `Timer`
wakes the runner at the deadline); the person's action itself arrives through the
`LiveMatch` (`LiveMatch.act`), never through the runner. A match that ends from outside
(a surrender, a person who left) ends the wait at once: a bot's late reply is dropped.
At the end every process is closed (stdin closed, 1 s, then killed with everything it
started).

The replay: setup, then for each bot's turn `sent`, `received`, `applied`; a person's
turn writes `applied` alone (there is no line to or from a person), and last `end`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from noitu.application.arena.judge import Rejected, judge
from noitu.application.arena.live_match import LiveMatch, Timer
from noitu.application.arena.match_clock import MATCH_CLOCK
from noitu.application.arena.ports import (
    Artefact,
    BotLauncher,
    BotProcess,
    ProcessFailure,
    Reply,
)
from noitu.application.arena.protocol import your_turn
from noitu.application.arena.replay import MatchEvents, Player, received_event, sent_event
from noitu.domain.arena.board import SIDES, Side
from noitu.domain.arena.match import Match, Phase, Result


@dataclass(frozen=True, slots=True)
class BotSeat:
    """A side played by a program: who it is, and the artefact that runs — or why there
    is none (a COMPILE_ERROR: the bot then loses as it would by failing to start)."""

    player: Player
    artefact: Artefact | ProcessFailure


@dataclass(frozen=True, slots=True)
class PersonSeat:
    """A side played by a person in the browser (its actions come through LiveMatch)."""

    player: Player


MatchSeat = BotSeat | PersonSeat


@dataclass(frozen=True, slots=True)
class MatchCommand:
    match_id: str
    seed: int
    seats: tuple[BotSeat, BotSeat]  # P1, P2
    turn_limit: int = MATCH_CLOCK.turn_limit


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    result: Result
    # The last bytes each bot wrote to stderr, for its owner only (P1, P2; empty for a
    # person).
    stderr: tuple[bytes, bytes]


@dataclass(frozen=True, slots=True)
class Timing:
    """The clock of A6 (tests shorten it; matches on the server never do)."""

    first_request_s: float = MATCH_CLOCK.first_reply_s
    request_s: float = MATCH_CLOCK.reply_s


#: Where a bot's stderr goes as it arrives (an author's own machine): (side, bytes).
StderrSink = Callable[[Side, bytes], None]


class _Ended:
    """The match ended from outside while a side was being waited for."""


_ENDED = _Ended()
T = TypeVar("T")


class RunMatch:
    def __init__(
        self, launcher: BotLauncher, timing: Timing = Timing(), timer: Timer | None = None
    ) -> None:
        self._launcher = launcher
        self._timing = timing
        self._timer = timer  # needed only for a person's turns

    async def __call__(
        self, command: MatchCommand, events: MatchEvents, stderr: StderrSink | None = None
    ) -> MatchOutcome:
        """A match between two bots, placed by the server from the seed (the CLI's)."""
        if not all(isinstance(seat, BotSeat) for seat in command.seats):
            raise ValueError("RunMatch(command) plays bots only; people play through play()")
        match = Match.between_bots(command.match_id, command.seed, command.turn_limit)
        return await self.play(LiveMatch(match, events), command.seats, stderr)

    async def play(
        self,
        live: LiveMatch,
        seats: Sequence[MatchSeat],
        stderr: StderrSink | None = None,
        *,
        when_over: Callable[[], Awaitable[None]] | None = None,
    ) -> MatchOutcome:
        """Play `live`'s match (PLAYING, both sides placed and ready) to its end.
        `stderr`, when given, gets each bot's whole stderr as it arrives. `when_over` is
        awaited once the match is over and before the bots' processes are closed (which
        may take them a second): the room archives the result then."""
        if tuple(seat.player.side for seat in seats) != SIDES:
            raise ValueError("the seats are P1 then P2")
        persons = {seat.player.side for seat in seats if isinstance(seat, PersonSeat)}
        if persons != live.persons:
            raise ValueError("the LiveMatch must know the same person seats")
        if persons and self._timer is None:
            raise ValueError("a match with a person needs RunMatch's timer")
        match = live.match
        live.write_setup([seat.player for seat in seats])
        processes: list[BotProcess | None] = [None, None]
        try:
            launched = await asyncio.gather(*(self._launch(seat) for seat in seats))
            for side, started in zip(SIDES, launched):
                if started is not None and not isinstance(started, ProcessFailure):
                    processes[side.number] = started
                    if stderr is not None:
                        started.on_stderr(_for_side(stderr, side))
            live.read_stderr_from(lambda: (_tail(processes[0]), _tail(processes[1])))
            for side, started in zip(SIDES, launched):
                if isinstance(started, ProcessFailure):
                    live.fail(side, started.code, started.detail)
            if match.phase is Phase.PLAYING:
                live.begin()
                await self._play(live, processes)
            if when_over is not None:
                await when_over()
        finally:
            await asyncio.gather(*(p.close() for p in processes if p is not None))
        assert match.result is not None
        live.write_end()
        return MatchOutcome(
            match.result,
            (_tail(processes[0]), _tail(processes[1])),
        )

    async def _launch(self, seat: MatchSeat) -> BotProcess | ProcessFailure | None:
        if isinstance(seat, PersonSeat):
            return None
        if isinstance(seat.artefact, ProcessFailure):
            return seat.artefact
        return await self._launcher.launch(seat.artefact)

    async def _play(self, live: LiveMatch, processes: Sequence[BotProcess | None]) -> None:
        watch = _Watch(live, processes)
        try:
            await self._turns(live, processes, watch)
        finally:
            await watch.stop()

    async def _turns(
        self, live: LiveMatch, processes: Sequence[BotProcess | None], watch: _Watch
    ) -> None:
        match = live.match
        asked = [False, False]
        while match.phase is Phase.PLAYING:
            if self._fail_pending(live, processes):
                return
            side = match.current_player
            assert side is not None
            process = processes[side.number]
            if process is None:
                await self._person_turn(live, watch)
                continue
            request = your_turn(match)
            timeout = self._timing.request_s if asked[side.number] else self._timing.first_request_s
            asked[side.number] = True
            live.events.record(sent_event(side, request.sequence, request.quoted))
            answer = await watch.wait(side, process.ask(request.line, timeout))
            if answer is _ENDED or match.phase is not Phase.PLAYING:
                return  # ended from outside: the late reply, if any, is dropped
            if isinstance(answer, tuple):  # the other side failed while this one thought
                failed, failure = answer
                live.fail(failed, failure.code, failure.detail)
                return
            if isinstance(answer, ProcessFailure):
                live.fail(side, answer.code, answer.detail)
                return
            assert isinstance(answer, Reply)
            live.events.record(received_event(side, answer.line, answer.ms))
            verdict = judge(answer.line, request)
            if isinstance(verdict, Rejected):
                live.fail(side, verdict.code, verdict.detail)
                return
            live.play(side, verdict.action)

    async def _person_turn(self, live: LiveMatch, watch: _Watch) -> None:
        """Wait until the person to move acts, the match ends, the other side's process
        fails, or the deadline passes (TIME_UP)."""
        assert self._timer is not None and live.deadline_ms is not None
        side = live.match.current_player
        assert side is not None
        deadline = live.deadline_ms
        pulse = live.pulse()
        answer = await watch.wait(side, _first(pulse.wait(), self._timer.sleep_until(deadline)))
        if isinstance(answer, tuple):
            failed, failure = answer
            live.fail(failed, failure.code, failure.detail)
        elif answer == 1:  # the timer: the clock reads the deadline or later
            live.settle(deadline)

    @staticmethod
    def _fail_pending(live: LiveMatch, processes: Sequence[BotProcess | None]) -> bool:
        """A failure already recorded (output after a reply, an exit meanwhile) ends the
        match now; the side to move is looked at first."""
        side = live.match.current_player
        assert side is not None
        for looked in (side, side.other):
            process = processes[looked.number]
            failure = process.pending_failure() if process is not None else None
            if failure is not None:
                live.fail(looked, failure.code, failure.detail)
                return True
        return False


class _Watch:
    """What may end a wait for a side, watched for the whole match rather than once a
    turn (creating and cancelling two tasks a turn was a third of the server's CPU per
    turn between instant bots): the match ending from outside, and each bot's process
    failing."""

    def __init__(self, live: LiveMatch, processes: Sequence[BotProcess | None]) -> None:
        self._ending = asyncio.ensure_future(live.ended().wait())
        self._failing = [
            asyncio.ensure_future(p.failure()) if p is not None else None for p in processes
        ]

    async def wait(
        self, side: Side, waiting: Awaitable[T]
    ) -> T | tuple[Side, ProcessFailure] | _Ended:
        """What `waiting` gives for `side`; or (the other side, its failure) when the
        other side's process fails first; or _ENDED when the match ends from outside
        first. `waiting` is cancelled when it did not finish. A future (a pipe's
        answer) is awaited as it is: no task around it, and the answer wakes this
        task at once (the watches cancel it instead of racing it)."""
        asking = asyncio.ensure_future(waiting)
        watching = self._failing[side.other.number]
        watches = [self._ending] if watching is None else [self._ending, watching]

        def interrupt(_: object) -> None:
            asking.cancel()

        for watch in watches:
            watch.add_done_callback(interrupt)
        try:
            return await asking
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # this runner itself is being cancelled
            if watching is not None and watching.done():
                return side.other, watching.result()
            if self._ending.done():
                return _ENDED
            raise
        finally:
            for watch in watches:
                watch.remove_done_callback(interrupt)
            if not asking.done():
                asking.cancel()
                await asyncio.gather(asking, return_exceptions=True)

    async def stop(self) -> None:
        watchers = [self._ending, *(f for f in self._failing if f is not None)]
        for watcher in watchers:
            watcher.cancel()
        await asyncio.gather(*watchers, return_exceptions=True)


async def _first(*waits: Coroutine[Any, Any, object]) -> int:
    """The index of the first of these to finish (the others are cancelled)."""
    tasks = [asyncio.ensure_future(w) for w in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        return next(i for i, task in enumerate(tasks) if task.done())
    finally:
        for task in tasks:
            if not task.done():
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _for_side(sink: StderrSink, side: Side) -> Callable[[bytes], None]:
    return lambda chunk: sink(side, chunk)


def _tail(process: BotProcess | None) -> bytes:
    return process.stderr_tail() if process is not None else b""
