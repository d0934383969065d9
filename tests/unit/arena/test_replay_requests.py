"""ReplayRequests (`noitu arena replay-requests`, spec B12) with scripted bot processes:
one side's recorded requests are sent in order, each answer judged and compared with
what the recorded match applied; a failure ends the run at its turn; a replay with no
requests for the side is refused with a sentence saying why."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from noitu.application.arena.ports import Artefact, Language, ProcessFailure, Reply
from noitu.application.arena.protocol import action_line, your_turn
from noitu.application.arena.replay import (
    applied_event,
    end_event,
    received_event,
    sent_event,
)
from noitu.application.arena.replay_requests import (
    ReplayRequests,
    UnusableReplay,
    recorded_turns,
)
from noitu.domain.arena.board import Side
from noitu.domain.arena.failure import FailureCode
from noitu.domain.arena.match import EndReason, Failure, Match, Result
from support.scripted_process import QuietProcess

BOT = Artefact(Language.PYTHON, Path("/bot"))


def recorded_match(seed: int, turns: int, failing_last: Side | None = None) -> list[dict]:
    """A replay's events of a match of random moves (as the runner writes them): with
    `failing_last`, that side's last request got no applied action (it failed)."""
    rng = random.Random(seed)
    match = Match.between_bots(f"RR{seed:06d}", seed, turns)
    events: list[dict] = [{"event": "setup"}]
    while match.result is None:
        side = match.current_player
        request = your_turn(match)
        events.append(dict(sent_event(side, request.sequence, request.line)))
        action = rng.choice(match.legal_actions())
        line = action_line(request.sequence, action).encode()
        events.append(dict(received_event(side, line, 5)))
        if failing_last is side and match.turn == turns - 1:
            failure = Failure(side, FailureCode.MISMATCH, "…")
            events.append(dict(end_event(Result(side.other, EndReason.BOT_FAILED, turns, failure))))
            return events
        fight = match.apply(action)
        events.append(dict(applied_event(match.turn, side, action, fight)))
    events.append(dict(end_event(match.result)))
    return events


class Process(QuietProcess):
    """Answers each request line with `answer(request dict, how many asked before)`."""

    def __init__(self, answer) -> None:
        self.answer = answer
        self.asked = 0

    async def ask(self, line: str, timeout_s: float) -> Reply | ProcessFailure:
        self.asked += 1
        return self.answer(json.loads(line), self.asked - 1)


class Launcher:
    def __init__(self, process: Process | ProcessFailure) -> None:
        self.process = process

    async def launch(self, artefact: Artefact) -> Process | ProcessFailure:
        return self.process


def replaying(events: list[dict], side: Side):
    """A bot that answers what the recorded match applied, or the first legal action."""
    applied = [e["action"] for e in events if e["event"] == "applied" and e["player"] == side.value]

    def answer(request: dict, index: int) -> Reply:
        action = applied[index] if index < len(applied) else request["legalActions"][0]
        return Reply(json.dumps({"type": "ACTION", "sequence": request["sequence"], "action": action}).encode(), 1)

    return answer


async def test_the_same_answers_differ_nowhere_and_other_ones_are_shown_at_their_turn() -> None:
    events = recorded_match(3, 40)
    turns = recorded_turns(events, Side.P2)
    assert len(turns) == 20 and all(turn.request.side is Side.P2 for turn in turns)
    assert [turn.request.sequence for turn in turns] == [
        e["sequence"] for e in events if e["event"] == "sent" and e["player"] == "P2"
    ]
    process = Process(replaying(events, Side.P2))
    result = await ReplayRequests(Launcher(process))(turns, BOT)
    assert (len(result.answers), result.differing, result.failure) == (20, 0, None)
    assert process.asked == 20 and process.closed

    # Always the first legal action: it differs exactly where the random player chose
    # another one.
    first = Process(lambda request, _: Reply(json.dumps(
        {"type": "ACTION", "sequence": request["sequence"], "action": request["legalActions"][0]}
    ).encode(), 1))
    shown = []
    result = await ReplayRequests(Launcher(first))(turns, BOT, on_answer=shown.append)
    expected = sum(t.action != t.request.legal_actions[0].to_json() for t in turns)
    assert 0 < result.differing == expected
    assert shown == list(result.answers)
    assert all(a.action == a.turn.request.legal_actions[0].to_json() for a in result.answers)


async def test_a_failure_ends_the_run_at_its_turn() -> None:
    turns = recorded_turns(recorded_match(5, 30), Side.P1)

    def breaks_on_the_third(request: dict, index: int) -> Reply:
        if index == 2:
            return Reply(b"not json", 3)
        return replaying([], Side.P1)(request, 99)

    process = Process(breaks_on_the_third)
    result = await ReplayRequests(Launcher(process))(turns, BOT)
    assert len(result.answers) == 3 and process.asked == 3 and process.closed
    failed = result.failure
    assert failed is not None and failed.failure is not None
    assert failed.failure.code is FailureCode.BAD_JSON and failed.turn is turns[2]

    stale = Process(lambda request, _: Reply(b'{"type":"ACTION","sequence":1,"action":{"type":"PASS"}}', 1))
    result = await ReplayRequests(Launcher(stale))(turns, BOT)
    assert result.failure is not None and result.failure.failure.code is FailureCode.STALE_SEQUENCE

    gone = ProcessFailure(FailureCode.START_FAILED, "Không khởi động được bot.")
    result = await ReplayRequests(Launcher(gone))(turns, BOT)
    assert result.failure is not None and result.failure.failure == gone


async def test_a_request_the_recorded_bot_failed_on_compares_with_nothing() -> None:
    events = recorded_match(8, 20, failing_last=Side.P2)
    turns = recorded_turns(events, Side.P2)
    assert turns[-1].action is None and all(turn.action is not None for turn in turns[:-1])
    result = await ReplayRequests(Launcher(Process(replaying(events, Side.P2))))(turns, BOT)
    assert [answer.differs for answer in result.answers] == [False] * (len(turns) - 1) + [True]


def test_a_replay_without_requests_is_refused_saying_why() -> None:
    events = recorded_match(2, 10)
    journaled = [e for e in events if e["event"] != "sent"]  # what an ABANDONED replay keeps
    with pytest.raises(UnusableReplay, match="ABANDONED"):
        recorded_turns(journaled, Side.P1)
    with pytest.raises(UnusableReplay, match="không có yêu cầu nào gửi cho P2"):
        recorded_turns([{"event": "setup"}, {"event": "end"}], Side.P2)
    broken = [{"event": "sent", "player": "P1", "sequence": 1, "line": '{"type":"YOUR_TURN"}'}]
    with pytest.raises(UnusableReplay, match="Sự kiện thứ 1"):
        recorded_turns(broken, Side.P1)
