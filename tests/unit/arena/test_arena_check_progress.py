"""What `noitu arena check` prints as it goes (issue 30): a line on stderr as each case
starts (a whole match says how many turns it may last), then the case's verdict on
stdout with the time it took, on a clock the test moves."""

from __future__ import annotations

import pytest

from noitu.application.arena.check_bot import CaseStart, Verdict
from noitu.entrypoints.cli.arena_view import CheckProgress


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_each_case_starts_on_stderr_and_ends_on_stdout_with_its_time(capsys: pytest.CaptureFixture[str]) -> None:
    clock = Clock()
    progress = CheckProgress(clock)

    progress.started(CaseStart("Chỉ được PASS"))
    assert capsys.readouterr() == ("", "CHẠY Chỉ được PASS…\n")
    clock.now += 0.34
    progress.ended(Verdict("Chỉ được PASS", True, None, "PASS, 121 ms"))
    assert capsys.readouterr() == ("ĐẠT  Chỉ được PASS — PASS, 121 ms · 0,3 giây\n", "")

    case = "Cả một trận với bot random, bot là P1"
    progress.started(CaseStart(case, 200))
    assert capsys.readouterr().err == f"CHẠY {case} (tối đa 200 lượt)…\n"
    clock.now += 12.76
    progress.ended(Verdict(case, True, None, "200 lượt, thắng (TURN_LIMIT)"))
    assert capsys.readouterr().out == f"ĐẠT  {case} — 200 lượt, thắng (TURN_LIMIT) · 12,8 giây\n"
