"""The in-process job queue (the embedded default, NOITU_ARENA_QUEUE=local): `Jobs` and
`JobRunner` in one object.

A job runs in the submitter's own task, once its kind's `BuildQueue` gives it a turn
(the builds: one per core at once, the rest in the fair order of B10 by the tags of
their `InLine`); a kind without a queue runs at once. Nothing is serialised and there is no
runner to lose: the process that waits is the one that runs. A job still waiting for
its turn after `take_within_s` (None: it waits as long as it takes) is withdrawn
(`JobNotTaken`), and so is one of a kind no handler was given for; one that runs past
its timeout is cancelled (`JobLost`); cancelling the submitter cancels the job.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from noitu.application.arena.build_queue import BuildQueue, BuildTurn
from noitu.application.arena.jobs import (
    BUILD_JOB,
    NOBODY,
    Finished,
    InLine,
    JobError,
    JobFailed,
    JobKind,
    JobLost,
    JobNotTaken,
    JobType,
    P,
    R,
)
from noitu.application.arena.ports import BotBuilder
from noitu.application.arena.run_build import RunBuild
from noitu.application.arena.storage import ArenaFiles


class InProcessJobs:
    def __init__(
        self, slots: Mapping[JobKind, BuildQueue], take_within_s: float | None = None
    ) -> None:
        self._slots = dict(slots)
        self._take_within_s = take_within_s
        self._handlers: dict[JobKind, Callable[[Any], Awaitable[Any]]] = {}
        self._running: dict[str, asyncio.Task[None]] = {}

    def handle(self, job_type: JobType[P, R], handler: Callable[[P], Awaitable[R]]) -> None:
        self._handlers[job_type.kind] = handler

    async def submit(
        self, job_type: JobType[P, R], payload: P, line: InLine = NOBODY
    ) -> Finished[R]:
        handler = self._handlers.get(job_type.kind)
        if handler is None:
            raise JobNotTaken(f"no handler here runs {job_type.kind} jobs")
        async with contextlib.AsyncExitStack() as held:
            turn = await self._turn(held, job_type.kind, line)
            try:
                async with asyncio.timeout(job_type.timeout_s):
                    result = await handler(payload)
            except TimeoutError as error:
                raise JobLost(f"{job_type.kind} job ran past {job_type.timeout_s:g} s") from error
            except Exception as error:
                raise JobFailed(f"{job_type.kind} job failed: {error!r}") from error
            return Finished(result, turn.waited_ms)

    async def enqueue(
        self, job_type: JobType[P, R], payload: P, key: str, line: InLine = NOBODY
    ) -> None:
        """Run the job in a task of its own (one per key at a time); its errors are its
        handler's to record."""
        if key in self._running:
            return
        task = asyncio.create_task(self._settle(job_type, payload, line))
        self._running[key] = task
        task.add_done_callback(lambda _done: self._running.pop(key, None))

    async def _settle(self, job_type: JobType[P, R], payload: P, line: InLine) -> None:
        with contextlib.suppress(JobError):
            await self.submit(job_type, payload, line)

    async def _turn(
        self, held: contextlib.AsyncExitStack, kind: JobKind, line: InLine
    ) -> BuildTurn:
        queue = self._slots.get(kind)
        if queue is None:
            return BuildTurn()
        try:
            async with asyncio.timeout(self._take_within_s):
                return await held.enter_async_context(queue.turn(line.tags))
        except TimeoutError:
            raise JobNotTaken(
                f"{kind} job waited {self._take_within_s:g} s for a free place"
            ) from None

    async def run(self) -> None:
        """Nothing to take: jobs run in their submitters' tasks. Waits until cancelled."""
        await asyncio.Event().wait()


def local_builds(
    builder: BotBuilder | None,
    files: ArenaFiles,
    queue: BuildQueue | None,
    take_within_s: float | None = None,
) -> InProcessJobs | None:
    """The in-process queue that builds uploads with `builder` (None when there is none:
    then nothing here builds, and uploads are refused), one `queue` turn each."""
    if builder is None:
        return None
    jobs = InProcessJobs({} if queue is None else {JobKind.BUILD: queue}, take_within_s)
    jobs.handle(BUILD_JOB, RunBuild(files, builder))
    return jobs
