"""Whole matches through the real runner and sandbox: every reply failure code of B3
reached by a real bot process (the process codes have their own tests in
tests/contract/test_arena_bot_process.py), and the first-turn clock fair to P2."""

from __future__ import annotations

from pathlib import Path

import pytest

from noitu.adapters.arena.bubblewrap import BubblewrapLauncher
from noitu.adapters.arena.sandbox import Sandbox
from noitu.application.arena.ports import Artefact, Language
from noitu.application.arena.replay import Player, SeatKind
from noitu.application.arena.run_match import BotSeat, MatchCommand, RunMatch, Timing
from noitu.domain.arena.board import Side
from noitu.domain.arena.failure import FailureCode
from support.arena_bots import BOTS

# What the failing bot answers to its first request; {seq} is the request's sequence,
# {move} the first legal action as sent, {piece} its pieceId.
REPLIES = {
    FailureCode.BAD_JSON: '{"type":"ACTION","sequence":{seq},"action":{move}',
    FailureCode.WRONG_TYPE: '{"type":"action","sequence":{seq},"action":{move}}',
    FailureCode.STALE_SEQUENCE: '{"type":"ACTION","sequence":true,"action":{move}}',
    FailureCode.BAD_FIELD: '{"type":"ACTION","sequence":{seq},"action":{"type":"MOVE","pieceId":"{piece}"}}',
    FailureCode.MISMATCH: '{"type":"ACTION","sequence":{seq},"action":{"type":"MOVE","pieceId":"P2-ROCK-1","from":{"row":0,"col":0},"to":{"row":0,"col":1}}}',
    FailureCode.NOT_LEGAL: '{"type":"ACTION","sequence":{seq},"action":{"type":"PASS"}}',
}

BOT = """import json, sys
TEMPLATE = {template!r}
for line in sys.stdin:
    request = json.loads(line)
    move = request["legalActions"][0]
    reply = (TEMPLATE.replace("{{seq}}", str(request["sequence"]))
             .replace("{{move}}", json.dumps(move, separators=(",", ":")))
             .replace("{{piece}}", move.get("pieceId", "")))
    print(reply, flush=True)
"""


def artefact_of(source: str, folder: Path) -> Artefact:
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(source, encoding="utf-8")
    return Artefact(Language.PYTHON, folder)


def seats(p1: Artefact, p2: Artefact) -> tuple[BotSeat, BotSeat]:
    return (
        BotSeat(Player(Side.P1, "p1", SeatKind.UPLOAD), p1),
        BotSeat(Player(Side.P2, "p2", SeatKind.UPLOAD), p2),
    )


class Recorder:
    def __init__(self) -> None:
        self.events: list[dict] = []

    def record(self, event) -> None:
        self.events.append(dict(event))


@pytest.mark.parametrize("code", list(REPLIES), ids=lambda c: c.value)
async def test_each_reply_failure_loses_the_match_with_its_code(
    code: FailureCode, arena_sandbox: Sandbox, tmp_path: Path
) -> None:
    good = artefact_of((BOTS / "a5_minimal.py").read_text(), tmp_path / "good")
    bad = artefact_of(BOT.format(template=REPLIES[code]), tmp_path / "bad")
    events = Recorder()
    outcome = await RunMatch(BubblewrapLauncher(arena_sandbox))(
        MatchCommand("CODES001", 5, seats(good, bad)), events
    )
    result = outcome.result
    assert (result.winner, result.reason.value, result.turns) == (Side.P1, "BOT_FAILED", 1)
    assert (result.failure.side, result.failure.code) == (Side.P2, code)
    received = [e for e in events.events if e["event"] == "received"]
    assert received[-1]["player"] == "P2"  # the bad line is in the replay, as read


async def test_p1s_slow_first_turn_does_not_eat_p2s_first_clock(
    arena_sandbox: Sandbox, tmp_path: Path
) -> None:
    slow = (BOTS / "slow_first_turn.py").read_text()
    # 1.5 s for a first request: P1 answers after 1.0 s, P2 1.2 s after ITS request,
    # that is 2.2 s after play started. Counted from the start of play, P2 would fail.
    timing = Timing(first_request_s=1.5, request_s=2.0)
    events = Recorder()
    outcome = await RunMatch(BubblewrapLauncher(arena_sandbox), timing)(
        MatchCommand("FAIR0001", 3, seats(artefact_of(slow, tmp_path / "a"), artefact_of(slow, tmp_path / "b")),
                     turn_limit=4),
        events,
    )
    assert outcome.result.failure is None, outcome.result
    assert (outcome.result.reason.value, outcome.result.turns) == ("TURN_LIMIT", 4)
    first_p2 = next(e for e in events.events if e["event"] == "received" and e["player"] == "P2")
    assert 1100 <= first_p2["ms"] < 1500
