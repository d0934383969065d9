"""The process's background work in one place: named tasks, each run again and again
at its interval, started and stopped with the process (the container's
`periodic_resource` runs a `Periodic`; which tasks a process runs is the composition
root's choice, `entrypoints/periodic_tasks.py`).

Each task sleeps its interval, runs, and sleeps again, the interval counted from the end
of a run (a slow run never piles up runs behind it). A run may ask for its next one
sooner by returning the seconds to wait (never later than its interval). A run that
raises is logged with the task's name and the task goes on at its next tick; the
exceptions named `quiet` (a store that is away and logs its outage once) are not
logged. `stop()` cancels every task, a run in progress included, and returns once each
has ended. The sleep is injected, so tests drive the tasks on a fake clock.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import structlog

log = structlog.get_logger("noitu.periodic")

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class PeriodicTask:
    """A task by name, its interval in seconds, and what it runs: a coroutine function
    answering None, or how many seconds to wait before its next run if that is sooner
    than the interval. The first run comes after `first_s` (the interval by default)."""

    name: str
    every_s: float
    run: Callable[[], Awaitable[float | None]]
    first_s: float | None = None

    def __post_init__(self) -> None:
        if self.every_s <= 0:
            raise ValueError(f"task {self.name!r}: the interval must be positive")
        if self.first_s is not None and self.first_s < 0:
            raise ValueError(f"task {self.name!r}: the first delay must not be negative")


class Periodic:
    def __init__(
        self,
        tasks: Sequence[PeriodicTask],
        quiet: tuple[type[Exception], ...] = (),
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        names = [task.name for task in tasks]
        if len(set(names)) != len(names):
            raise ValueError(f"two periodic tasks share a name: {names}")
        self.tasks = tuple(tasks)
        self._quiet = quiet
        self._sleep = sleep
        self._running: list[asyncio.Task[None]] = []

    @property
    def names(self) -> list[str]:
        return [task.name for task in self.tasks]

    @property
    def running(self) -> list[str]:
        """The names of the tasks running now (none before `start` and after `stop`)."""
        return [task.get_name() for task in self._running if not task.done()]

    def start(self) -> None:
        if self._running:
            raise RuntimeError("the periodic tasks are already running")
        loop = asyncio.get_running_loop()
        self._running = [loop.create_task(self._every(task), name=task.name) for task in self.tasks]

    async def stop(self) -> None:
        running, self._running = self._running, []
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)

    async def _every(self, task: PeriodicTask) -> None:
        delay = task.every_s if task.first_s is None else task.first_s
        while True:
            await self._sleep(delay)
            delay = task.every_s
            try:
                sooner = await task.run()
            except self._quiet:
                continue
            except Exception:
                log.exception("periodic_task_failed", task=task.name)
                continue
            if sooner is not None:
                delay = min(max(sooner, 0.0), task.every_s)
