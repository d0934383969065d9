"""RunMatch with scripted bot processes (no subprocesses): the order of a match's
events, the clock each request gets, and every way a match can end on a bot's account."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from noitu.application.arena.ports import Artefact, Language, ProcessFailure, Reply
from noitu.application.arena.replay import Player, SeatKind
from noitu.application.arena.run_match import BotSeat, MatchCommand, RunMatch
from noitu.domain.arena.board import Side
from noitu.domain.arena.failure import FailureCode

Answer = Callable[[dict], "bytes | ProcessFailure | None"]


def first_legal(request: dict) -> bytes:
    action = request["legalActions"][0]
    return json.dumps({"type": "ACTION", "sequence": request["sequence"], "action": action}).encode()


class ScriptedProcess:
    """A bot process that answers each request with `answer(request)`; None means it
    never answers (the caller's timeout then counts). It records every ask."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.asked: list[tuple[dict, float]] = []
        self.closed = False
        self._failure: ProcessFailure | None = None
        self._failed = asyncio.Event()

    def fail_now(self, failure: ProcessFailure) -> None:
        self._failure = self._failure or failure
        self._failed.set()

    async def ask(self, line: str, timeout_s: float) -> Reply | ProcessFailure:
        request = json.loads(line)
        self.asked.append((request, timeout_s))
        reply = self.answer(request)
        if reply is None:
            await asyncio.sleep(3600)
        if isinstance(reply, ProcessFailure):
            self.fail_now(reply)
            return reply
        await asyncio.sleep(0)
        return Reply(reply, 1)

    async def failure(self) -> ProcessFailure:
        await self._failed.wait()
        assert self._failure is not None
        return self._failure

    def pending_failure(self) -> ProcessFailure | None:
        return self._failure

    def stderr_tail(self) -> bytes:
        return b"log"

    async def close(self) -> None:
        self.closed = True


class ScriptedLauncher:
    def __init__(self, *processes: ScriptedProcess | ProcessFailure) -> None:
        self.processes = list(processes)

    async def launch(self, artefact: Artefact) -> ScriptedProcess | ProcessFailure:
        return self.processes.pop(0)


class Events:
    def __init__(self) -> None:
        self.events: list[dict] = []

    def record(self, event) -> None:
        self.events.append(dict(event))

    def kinds(self) -> list[str]:
        return [e["event"] for e in self.events]


def command(turn_limit: int = 200) -> MatchCommand:
    artefact = Artefact(Language.PYTHON, Path("/nowhere"))
    seats = (
        BotSeat(Player(Side.P1, "một", SeatKind.UPLOAD), artefact),
        BotSeat(Player(Side.P2, "hai", SeatKind.BUILTIN), artefact),
    )
    return MatchCommand("M1", seed=5, seats=seats, turn_limit=turn_limit)


async def run(*processes, turn_limit: int = 200):
    events = Events()
    outcome = await RunMatch(ScriptedLauncher(*processes)).__call__(command(turn_limit), events)
    return outcome, events


async def test_a_whole_match_writes_every_event_in_order():
    p1, p2 = ScriptedProcess(first_legal), ScriptedProcess(first_legal)
    outcome, events = await run(p1, p2, turn_limit=12)
    kinds = events.kinds()
    assert kinds[0] == "setup" and kinds[-1] == "end"
    assert kinds[1:-1] == ["sent", "received", "applied"] * outcome.result.turns
    setup = events.events[0]
    assert (setup["matchId"], setup["seed"], setup["turnLimit"]) == ("M1", 5, 12)
    assert setup["players"] == [
        {"id": "P1", "name": "một", "kind": "upload"}, {"id": "P2", "name": "hai", "kind": "builtin"},
    ]
    assert len(setup["pieces"]) == 36
    # P1's first request is sequence 40; a bot's next one is 2 later (B1).
    assert [r["sequence"] for r, _ in p1.asked[:3]] == [40, 42, 44]
    assert [r["sequence"] for r, _ in p2.asked[:2]] == [41, 43]
    # The first request of each bot has 25 s, later ones 2 s (A6).
    assert [t for _, t in p1.asked[:2]] == [25.0, 2.0] and [t for _, t in p2.asked[:2]] == [25.0, 2.0]
    applied = [e for e in events.events if e["event"] == "applied"]
    assert [e["turn"] for e in applied] == list(range(len(applied)))
    assert [e["player"] for e in applied[:2]] == ["P1", "P2"]
    assert events.events[-1]["reason"] == outcome.result.reason.value
    assert p1.closed and p2.closed and outcome.stderr == (b"log", b"log")


async def test_a_bad_reply_loses_with_its_code():
    p1 = ScriptedProcess(lambda r: b'{"type":"ACTION","sequence":"40","action":{"type":"PASS"}}')
    p2 = ScriptedProcess(first_legal)
    outcome, events = await run(p1, p2)
    result = outcome.result
    assert (result.winner, result.reason.value, result.turns) == (Side.P2, "BOT_FAILED", 0)
    assert (result.failure.side, result.failure.code) == (Side.P1, FailureCode.STALE_SEQUENCE)
    assert events.kinds() == ["setup", "sent", "received", "end"]
    assert events.events[-1]["failure"]["code"] == "STALE_SEQUENCE"
    assert p2.asked == []


async def test_a_silent_bot_loses_on_its_timeout():
    def silent(request: dict) -> ProcessFailure:
        return ProcessFailure(FailureCode.TIMEOUT, "Bot không trả lời trong 2 giây.")

    outcome, _ = await run(ScriptedProcess(first_legal), ScriptedProcess(silent))
    assert outcome.result.failure.code is FailureCode.TIMEOUT
    assert (outcome.result.winner, outcome.result.turns) == (Side.P1, 1)


async def test_the_other_bot_failing_while_one_thinks_ends_the_match_at_once():
    p2 = ScriptedProcess(first_legal)

    def thinks_forever(request: dict) -> None:
        p2.fail_now(ProcessFailure(FailureCode.EXITED, "Tiến trình bot đã thoát."))

    p1 = ScriptedProcess(thinks_forever)
    outcome, events = await asyncio.wait_for(run(p1, p2), 5)
    assert (outcome.result.winner, outcome.result.failure.code) == (Side.P1, FailureCode.EXITED)
    assert "received" not in events.kinds()  # P1's late reply is dropped
    assert p1.closed and p2.closed


async def test_output_after_a_reply_fails_the_bot_after_its_move_is_applied():
    p1 = ScriptedProcess(first_legal)
    original = p1.ask

    async def ask_then_chatter(line: str, timeout_s: float):
        reply = await original(line, timeout_s)
        p1.fail_now(ProcessFailure(FailureCode.EXTRA_OUTPUT, "Bot in thêm sau câu trả lời."))
        return reply

    p1.ask = ask_then_chatter
    outcome, events = await run(p1, ScriptedProcess(first_legal))
    assert events.kinds() == ["setup", "sent", "received", "applied", "end"]
    assert (outcome.result.failure.code, outcome.result.turns) == (FailureCode.EXTRA_OUTPUT, 1)


async def test_a_bot_that_cannot_start_loses_and_the_other_is_closed():
    p2 = ScriptedProcess(first_legal)
    outcome, events = await run(ProcessFailure(FailureCode.START_FAILED, "Không chạy được bot."), p2)
    assert (outcome.result.winner, outcome.result.failure.code) == (Side.P2, FailureCode.START_FAILED)
    assert events.kinds() == ["setup", "end"] and p2.closed
    assert outcome.stderr == (b"", b"log")


@pytest.mark.parametrize("limit", [1, 2, 7])
async def test_the_turn_limit_ends_a_match_of_legal_bots(limit):
    outcome, _ = await run(ScriptedProcess(first_legal), ScriptedProcess(first_legal), turn_limit=limit)
    assert outcome.result.turns <= limit


async def test_a_bot_that_did_not_compile_loses_with_compile_error():
    p2 = ScriptedProcess(first_legal)
    artefact = Artefact(Language.PYTHON, Path("/nowhere"))
    seats = (
        BotSeat(Player(Side.P1, "một", SeatKind.UPLOAD), ProcessFailure(FailureCode.COMPILE_ERROR, "lỗi")),
        BotSeat(Player(Side.P2, "hai", SeatKind.BUILTIN), artefact),
    )
    events = Events()
    outcome = await RunMatch(ScriptedLauncher(p2))(MatchCommand("M2", 1, seats), events)
    assert (outcome.result.winner, outcome.result.failure.code) == (Side.P2, FailureCode.COMPILE_ERROR)
    assert events.kinds() == ["setup", "end"] and p2.closed
