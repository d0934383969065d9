"""CheckBot (`noitu arena check`, spec A7) with scripted bot processes: a silent bot ends
the check at its first request with what to look at, and a failing case carries the
bot's stderr."""

from __future__ import annotations

import json
from pathlib import Path

from noitu.application.arena.check_bot import CheckBot, fixtures
from noitu.application.arena.ports import Artefact, Language, ProcessFailure, Reply
from noitu.domain.arena.failure import FailureCode
from support.scripted_process import QuietProcess

BOT = Artefact(Language.PYTHON, Path("/bot"))
RANDOM = Artefact(Language.PYTHON, Path("/random"))


class Process:
    """Answers each request with `answer(request)` and says `stderr` it wrote."""

    def __init__(self, answer, stderr: bytes = b"") -> None:
        self.answer = answer
        self.stderr = stderr

    async def ask(self, line: str, timeout_s: float) -> Reply | ProcessFailure:
        return self.answer(json.loads(line))

    async def failure(self) -> ProcessFailure:
        raise AssertionError("a single request never waits on the other side")

    def pending_failure(self) -> ProcessFailure | None:
        return None

    def stderr_tail(self) -> bytes:
        return self.stderr

    def on_stderr(self, listener) -> None:
        listener(self.stderr)

    async def close(self) -> None:
        return None


class Launcher:
    def __init__(self, make) -> None:
        self.make = make
        self.launched = 0

    async def launch(self, artefact: Artefact) -> Process:
        self.launched += 1
        return self.make()


def silent(request: dict) -> ProcessFailure:
    return ProcessFailure(FailureCode.TIMEOUT, "Bot không trả lời trong 25 giây.")


def thinks_aloud(request: dict) -> Reply:
    return Reply(f"thinking about turn {request['turn']}".encode(), 3)


async def test_a_silent_bot_stops_the_check_at_its_first_request_with_what_to_check():
    launcher = Launcher(lambda: Process(silent, b"started\n"))
    shown = []
    verdicts = await CheckBot(launcher)(BOT, RANDOM, on_verdict=shown.append)
    assert len(fixtures()) > 1 and launcher.launched == 1
    assert verdicts == shown and len(verdicts) == 1
    (verdict,) = verdicts
    assert not verdict.ok and verdict.code is FailureCode.TIMEOUT
    assert all(word in verdict.hint for word in ("flush", "xuống dòng", "từng dòng"))
    assert verdict.stderr == b"started\n"


async def test_every_failing_request_keeps_the_bots_stderr_and_the_check_goes_on():
    launcher = Launcher(lambda: Process(thinks_aloud, b"Traceback: boom\n"))
    verdicts = await CheckBot(launcher)(BOT, RANDOM, turn_limit=4)
    single = verdicts[: len(fixtures())]
    assert len(single) == len(fixtures()) and not any(v.ok for v in single)
    assert all(v.code is FailureCode.BAD_JSON and "stderr" in v.detail for v in single)
    assert all(v.stderr == b"Traceback: boom\n" and not v.hint for v in single)


class Answering(QuietProcess):
    """A bot that answers every request with its first legal action, and never fails
    while the other side thinks."""

    def __init__(self, log: list[tuple]) -> None:
        self.log = log

    async def ask(self, line: str, timeout_s: float) -> Reply:
        request = json.loads(line)
        reply = {"type": "ACTION", "sequence": request["sequence"], "action": request["legalActions"][0]}
        return Reply(json.dumps(reply).encode(), 2)



async def test_each_case_is_told_as_it_starts_before_it_runs_and_as_it_ends():
    """`noitu arena check` prints a line as each case starts: a whole match takes many
    seconds, during which nothing else would show (issue 30)."""
    log: list[tuple] = []

    class Recording:
        async def launch(self, artefact: Artefact) -> Answering:
            log.append(("launch",))
            return Answering(log)

    verdicts = await CheckBot(Recording())(
        BOT, RANDOM, turn_limit=6,
        on_start=lambda start: log.append(("start", start.case, start.turns)),
        on_verdict=lambda verdict: log.append(("end", verdict.case)),
    )
    assert len(verdicts) == len(fixtures()) + 2 and all(v.ok for v in verdicts), verdicts
    cases = [entry for entry in log if entry[0] != "launch"]
    assert cases == [
        step
        for verdict, turns in zip(verdicts, [None] * len(fixtures()) + [6, 6])
        for step in (("start", verdict.case, turns), ("end", verdict.case))
    ]
    # Each case's processes start after its own "start" and before its "end".
    starts = [i for i, entry in enumerate(log) if entry[0] == "start"]
    ends = [i for i, entry in enumerate(log) if entry[0] == "end"]
    for start, end, turns in zip(starts, ends, [None] * len(fixtures()) + [6, 6]):
        launched = sum(1 for entry in log[start:end] if entry == ("launch",))
        assert launched == (1 if turns is None else 2), log[start:end]
