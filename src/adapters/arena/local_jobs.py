"""The in-process job queues (the embedded default, NOITU_ARENA_QUEUE=local): the builds'
(`InProcessJobs`: `Jobs` and `JobRunner` in one object) and the matches'
(`InProcessMatches`, at the end).

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
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import structlog

from noitu.application.arena.build_queue import BuildQueue, BuildTurn
from noitu.application.arena.jobs import (
    BUILD_JOB,
    MATCH_JOB,
    NOBODY,
    Finished,
    InLine,
    JobError,
    JobFailed,
    JobKind,
    JobLost,
    JobNotTaken,
    JobType,
    MatchOutcome,
    P,
    R,
)
from noitu.application.arena.match_queue import MatchQueue
from noitu.application.arena.ports import BotBuilder
from noitu.application.arena.run_build import RunBuild
from noitu.application.arena.storage import ArenaFiles
from noitu.domain.arena.room import Room

log = structlog.get_logger("noitu.arena.jobs")


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


class InProcessMatches:
    """The match jobs of one machine (NOITU_ARENA_QUEUE=local): each runs in a task of
    this process once the `MatchQueue` gives it a slot, in the fair order of its
    `InLine` (the rank and arrival its room's card keeps), played by the handler given
    (`PlayMatch`, as a worker would). `Jobs` and the match side of `JobRunner` (builds go
    to `InProcessJobs`)."""

    def __init__(self, queue: MatchQueue) -> None:
        self._queue = queue
        self._play: Callable[[Room], Awaitable[MatchOutcome]] | None = None
        self._running: dict[str, asyncio.Task[None]] = {}

    def handle(
        self, job_type: JobType[P, R], handler: Callable[[P], Awaitable[R]]
    ) -> None:
        """Play the match jobs with `handler` from now on."""
        if job_type is not MATCH_JOB:
            raise ValueError(f"{job_type.kind} jobs do not run here")
        self._play = handler  # type: ignore[assignment]

    async def submit(
        self, job_type: JobType[P, R], payload: P, line: InLine = NOBODY
    ) -> Finished[R]:
        started = time.monotonic()
        key = payload.code if isinstance(payload, Room) else ""
        outcome = await self._slot_and_play(job_type, payload, key, line)
        return Finished(outcome, round((time.monotonic() - started) * 1000))  # type: ignore[arg-type]

    async def enqueue(
        self, job_type: JobType[P, R], payload: P, key: str, line: InLine = NOBODY
    ) -> None:
        """Play the match in a task of its own (one per key at a time); what comes of
        it is the match's to record."""
        if key in self._running:
            return
        task = asyncio.create_task(self._settle(job_type, payload, key, line))
        self._running[key] = task
        task.add_done_callback(lambda _done: self._running.pop(key, None))

    async def _settle(self, job_type: JobType[P, R], payload: P, key: str, line: InLine) -> None:
        try:
            await self._slot_and_play(job_type, payload, key, line)
        except JobError as error:
            log.error("match_job_failed", room=key, error=str(error))

    async def _slot_and_play(
        self, job_type: JobType[P, R], payload: P, key: str, line: InLine
    ) -> MatchOutcome:
        play = self._play
        if play is None or job_type is not MATCH_JOB or not isinstance(payload, Room):
            raise JobNotTaken(f"no handler here runs {job_type.kind} jobs")
        slot = self._queue.slot(
            key, line.tags, line.spectacle, line.ladder, line.rank, line.arrival_ms
        )
        async with slot:
            try:
                return await play(payload)
            except Exception as error:
                raise JobFailed(f"match job failed: {error!r}") from error

    async def stop(self) -> None:
        """Cancel the matches still waiting or playing (the server stops: its rooms
        were closed first), and wait for them."""
        running = list(self._running.values())
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
