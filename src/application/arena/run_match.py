"""RunMatch: one match between two bot programs, from the start of play to the result
(spec A1, A4, A6, B1–B4).

Both processes start when play starts. Each bot's first request has 25 s from the
moment it is written (start-up included), every later one 2 s; a process failure of the
bot that is NOT being asked (it exits, floods stdout, runs out of memory while the
other one thinks) ends the match as soon as it happens. A reply is judged and applied
before anything that followed it on stdout. At the end both processes are closed
(stdin closed, 1 s, then killed with everything they started).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from noitu.application.arena.ports import (
    FIRST_REQUEST_TIMEOUT_S,
    REQUEST_TIMEOUT_S,
    Artefact,
    BotLauncher,
    BotProcess,
    ProcessFailure,
    Reply,
)
from noitu.application.arena.judge import Rejected, judge
from noitu.application.arena.protocol import your_turn
from noitu.application.arena.replay import (
    MatchEvents,
    Player,
    applied_event,
    end_event,
    received_event,
    sent_event,
    setup_event,
)
from noitu.domain.arena.board import SIDES, Side
from noitu.domain.arena.match import DEFAULT_TURN_LIMIT, Match, Phase, Result


@dataclass(frozen=True, slots=True)
class BotSeat:
    """A side played by a program: who it is, and the artefact that runs — or why there
    is none (a COMPILE_ERROR: the bot then loses as it would by failing to start)."""

    player: Player
    artefact: Artefact | ProcessFailure


@dataclass(frozen=True, slots=True)
class MatchCommand:
    match_id: str
    seed: int
    seats: tuple[BotSeat, BotSeat]  # P1, P2
    turn_limit: int = DEFAULT_TURN_LIMIT


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    result: Result
    # The last bytes each bot wrote to stderr, for its owner only (P1, P2).
    stderr: tuple[bytes, bytes]


@dataclass(frozen=True, slots=True)
class Timing:
    """The clock of A6 (tests shorten it; matches on the server never do)."""

    first_request_s: float = FIRST_REQUEST_TIMEOUT_S
    request_s: float = REQUEST_TIMEOUT_S


class RunMatch:
    def __init__(self, launcher: BotLauncher, timing: Timing = Timing()) -> None:
        self._launcher = launcher
        self._timing = timing

    async def __call__(self, command: MatchCommand, events: MatchEvents) -> MatchOutcome:
        match = Match.between_bots(command.match_id, command.seed, command.turn_limit)
        if tuple(seat.player.side for seat in command.seats) != SIDES:
            raise ValueError("the seats are P1 then P2")
        events.record(setup_event(match, [seat.player for seat in command.seats]))
        processes: list[BotProcess | None] = [None, None]
        try:
            launched = await asyncio.gather(*(self._launch(seat) for seat in command.seats))
            for side, started in zip(SIDES, launched):
                if isinstance(started, ProcessFailure):
                    if match.phase is Phase.PLAYING:
                        match.fail(side, started.code, started.detail)
                else:
                    processes[side.number] = started
            if match.phase is Phase.PLAYING:
                await self._play(match, processes, events)  # type: ignore[arg-type]
        finally:
            await asyncio.gather(*(p.close() for p in processes if p is not None))
        assert match.result is not None
        events.record(end_event(match.result))
        return MatchOutcome(
            match.result,
            tuple(p.stderr_tail() if p is not None else b"" for p in processes),  # type: ignore[arg-type]
        )

    async def _launch(self, seat: BotSeat) -> BotProcess | ProcessFailure:
        if isinstance(seat.artefact, ProcessFailure):
            return seat.artefact
        return await self._launcher.launch(seat.artefact)

    async def _play(self, match: Match, processes: Sequence[BotProcess], events: MatchEvents) -> None:
        asked = [False, False]
        while match.phase is Phase.PLAYING:
            if self._fail_pending(match, processes):
                return
            side = match.current_player
            assert side is not None
            request = your_turn(match)
            timeout = self._timing.request_s if asked[side.number] else self._timing.first_request_s
            asked[side.number] = True
            events.record(sent_event(side, request.sequence, request.line))
            answer = await self._ask(processes, side, request.line, timeout)
            if match.phase is not Phase.PLAYING:
                return
            if isinstance(answer, tuple):  # the other side failed while this one thought
                failed, failure = answer
                match.fail(failed, failure.code, failure.detail)
                return
            if isinstance(answer, ProcessFailure):
                match.fail(side, answer.code, answer.detail)
                return
            events.record(received_event(side, answer.line, answer.ms))
            verdict = judge(answer.line, request)
            if isinstance(verdict, Rejected):
                match.fail(side, verdict.code, verdict.detail)
                return
            fight = match.apply(verdict.action, side)
            events.record(applied_event(request.turn, side, verdict.action, fight))

    @staticmethod
    def _fail_pending(match: Match, processes: Sequence[BotProcess]) -> bool:
        """A failure already recorded (output after a reply, an exit meanwhile) ends the
        match now; the side to move is looked at first."""
        side = match.current_player
        assert side is not None
        for looked in (side, side.other):
            failure = processes[looked.number].pending_failure()
            if failure is not None:
                match.fail(looked, failure.code, failure.detail)
                return True
        return False

    @staticmethod
    async def _ask(
        processes: Sequence[BotProcess], side: Side, line: str, timeout_s: float
    ) -> Reply | ProcessFailure | tuple[Side, ProcessFailure]:
        """The reply of `side`, or its failure; or (the other side, its failure) when
        the other process fails first, in which case the late reply is dropped."""
        asking = asyncio.ensure_future(processes[side.number].ask(line, timeout_s))
        watching = asyncio.ensure_future(processes[side.other.number].failure())
        try:
            await asyncio.wait({asking, watching}, return_when=asyncio.FIRST_COMPLETED)
            if asking.done():
                return asking.result()
            return side.other, watching.result()
        finally:
            for task in (asking, watching):
                if not task.done():
                    task.cancel()
            await asyncio.gather(asking, watching, return_exceptions=True)
