"""Hand-written fakes for the ports: a clock you can advance, a recording reporter,
background work the test can wait for."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any

from noitu.application.noitu.session import GameMessage, ReportState, ScoreReport

START_MS = 1_800_000_000_000


class FakeClock:
    def __init__(self, now_ms: int = START_MS) -> None:
        self.now = now_ms

    def now_ms(self) -> int:
        return self.now

    def advance(self, ms: int) -> None:
        self.now += ms


@dataclass(frozen=True)
class ReportedScore:
    user_id: int
    score: int
    message: GameMessage


class RecordingScoreReporter:
    """Records every report; answers `outcome` (OK unless a test says otherwise). An OK
    report keeps each player's best per game message as Telegram does (force=false)
    and says whether it raised it."""

    def __init__(self, outcome: ReportState = ReportState.OK) -> None:
        self.outcome = outcome
        self.reports: list[ReportedScore] = []
        self.bests: dict[tuple[str, int], int] = {}

    async def report(self, user_id: int, score: int, message: GameMessage) -> ScoreReport:
        self.reports.append(ReportedScore(user_id, score, message))
        if self.outcome is not ReportState.OK:
            return ScoreReport(self.outcome)
        key = (message.key, user_id)
        if key in self.bests and score <= self.bests[key]:
            return ScoreReport(ReportState.OK)
        self.bests[key] = score
        return ScoreReport(ReportState.OK, new_record=score > 0)


class CollectingBackground:
    """Runs spawned work on the loop; `settle()` waits until all of it is done."""

    def __init__(self) -> None:
        self.tasks: list[asyncio.Task[None]] = []
        #: What spawned work raised (the server's background logs it), kept in order.
        self.failures: list[BaseException] = []

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        task.add_done_callback(self._finished)
        self.tasks.append(task)

    def _finished(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            self.failures.append(task.exception())  # type: ignore[arg-type]

    async def settle(self, timeout_s: float = 5.0) -> None:
        # The test client may run the app on another event loop: poll, do not await.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while any(not t.done() for t in self.tasks):
            if loop.time() > deadline:
                raise TimeoutError("background work did not finish")
            await asyncio.sleep(0.002)

    async def drain(self, timeout_s: float) -> None:
        await self.settle()
