"""`Periodic`, the process's background tasks, on a fake clock: the intervals, a run
asking for its next one sooner, a failing run that is logged and does not stop its task,
and a stop that cancels every task, a run in progress included. No real time passes."""

from __future__ import annotations

import asyncio
import heapq
import itertools

import pytest
from structlog.testing import capture_logs

from noitu.adapters.periodic import Periodic, PeriodicTask
from noitu.application.errors import Busy


class FakeTime:
    """An injected sleep on a clock that moves only when a test advances it."""

    def __init__(self) -> None:
        self.now = 0.0
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    async def sleep(self, seconds: float) -> None:
        woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.now + seconds, next(self._order), woken))
        await woken

    @property
    def sleeping(self) -> int:
        return sum(1 for _, _, woken in self._sleepers if not woken.done())

    async def advance(self, seconds: float) -> None:
        """Move the clock on by `seconds`, waking each sleeper at its moment, in order,
        and letting what it woke run until it sleeps again."""
        end = self.now + seconds
        while self._sleepers and self._sleepers[0][0] <= end:
            at, _, woken = heapq.heappop(self._sleepers)
            if woken.done():  # its task was cancelled
                continue
            self.now = at
            woken.set_result(None)
            await _let_run()
        self.now = end


async def _let_run() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


def recorder(runs: list[tuple[str, float]], name: str, time: FakeTime, answers=()):
    """A task's run that notes (name, moment) and answers the next of `answers` (None
    once they run out); an answer that is an exception is raised."""
    left = list(answers)

    async def run() -> float | None:
        runs.append((name, time.now))
        answer = left.pop(0) if left else None
        if isinstance(answer, Exception):
            raise answer
        return answer

    return run


async def test_each_task_runs_at_its_interval_after_its_first_delay() -> None:
    time, runs = FakeTime(), []
    periodic = Periodic(
        [
            PeriodicTask("often", 1.0, recorder(runs, "often", time)),
            PeriodicTask("beat", 2.5, recorder(runs, "beat", time), first_s=0.0),
        ],
        sleep=time.sleep,
    )
    periodic.start()
    await _let_run()
    await time.advance(5.0)
    assert [at for name, at in runs if name == "often"] == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert [at for name, at in runs if name == "beat"] == [0.0, 2.5, 5.0]
    assert periodic.running == ["often", "beat"]
    await periodic.stop()


async def test_a_run_may_ask_for_its_next_one_sooner_never_later() -> None:
    time, runs = FakeTime(), []
    # Answers: 0.25 s (sooner), then 10 s (later than its interval: capped), then -1.
    run = recorder(runs, "due", time, answers=[0.25, 10.0, -1.0])
    periodic = Periodic([PeriodicTask("due", 0.5, run)], sleep=time.sleep)
    periodic.start()
    await _let_run()
    await time.advance(2.0)
    assert [at for _, at in runs] == [0.5, 0.75, 1.25, 1.25, 1.75]
    await periodic.stop()


async def test_a_failing_run_is_logged_with_its_name_and_its_task_goes_on() -> None:
    time, runs = FakeTime(), []
    failing = recorder(runs, "sweep", time, answers=[None, RuntimeError("disk full"), None])
    away = recorder(runs, "follow", time, answers=[Busy(), Busy()])
    periodic = Periodic(
        [PeriodicTask("sweep", 1.0, failing), PeriodicTask("follow", 1.0, away)],
        quiet=(Busy,),
        sleep=time.sleep,
    )
    periodic.start()
    await _let_run()
    with capture_logs() as logs:
        await time.advance(4.0)
    assert [at for name, at in runs if name == "sweep"] == [1.0, 2.0, 3.0, 4.0]
    assert [at for name, at in runs if name == "follow"] == [1.0, 2.0, 3.0, 4.0]
    failures = [entry for entry in logs if entry["event"] == "periodic_task_failed"]
    assert [entry["task"] for entry in failures] == ["sweep"]  # Busy is not logged
    assert failures[0]["log_level"] == "error" and failures[0].get("exc_info") is True
    await periodic.stop()


async def test_stop_cancels_every_task_and_a_run_in_progress() -> None:
    time, runs = FakeTime(), []
    stuck = asyncio.Event()  # never set: a run that waits on something that never comes
    ended: list[str] = []

    async def slow() -> None:
        runs.append(("slow", time.now))
        try:
            await stuck.wait()
        finally:
            ended.append("slow")

    periodic = Periodic(
        [PeriodicTask("slow", 1.0, slow), PeriodicTask("quick", 1.0, recorder(runs, "q", time))],
        sleep=time.sleep,
    )
    periodic.start()
    await _let_run()
    await time.advance(1.0)
    assert runs == [("slow", 1.0), ("q", 1.0)] and time.sleeping == 1  # slow is running
    await periodic.stop()
    assert ended == ["slow"] and periodic.running == []
    await time.advance(10.0)
    assert len(runs) == 2  # nothing runs after the stop


async def test_tasks_are_named_once_and_started_once() -> None:
    async def nothing() -> None:
        return None

    with pytest.raises(ValueError, match="share a name"):
        Periodic([PeriodicTask("a", 1.0, nothing), PeriodicTask("a", 2.0, nothing)])
    with pytest.raises(ValueError, match="positive"):
        PeriodicTask("a", 0.0, nothing)
    periodic = Periodic([PeriodicTask("a", 1.0, nothing)], sleep=FakeTime().sleep)
    periodic.start()
    with pytest.raises(RuntimeError, match="already running"):
        periodic.start()
    await periodic.stop()
    assert periodic.running == []
