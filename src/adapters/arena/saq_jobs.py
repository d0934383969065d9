"""The job queue on SAQ (NOITU_ARENA_QUEUE=saq; spec B9): jobs in Redis, run by
`noitu arena worker` processes on any machine.

- One SAQ queue per job kind (`QUEUE_NAMES`), each a `FairRedisQueue`
  (`fair_redis_queue.py`): a worker takes builds and matches from their own queues with
  their own slots, so waiting matches never delay an upload's verdict, nor builds a
  match (B14); and each queue keeps its waiting jobs in B10's fair order.
- `SaqJobs` (the web process's side): a job is one SAQ job whose function is the kind
  and whose one argument is the payload as JSON; its result comes back as JSON too. The
  submitter follows the job's status through SAQ's notifications, reading the job again
  at least every `RECHECK_S` (a notification may be missed while the subscription is
  being made). Still queued after the take-within time, the job is aborted
  (`JobNotTaken`); once taken, a job that SAQ finds stuck — past its timeout, or its
  worker's heartbeat older than the kind's — is aborted (`JobLost`), as is one SAQ's
  sweep aborted; a failed job is `JobFailed`; Redis unreachable is `QueueUnavailable`.
  Cancelling the submitter aborts the job (a worker cancels it within about a second).
- `SaqJobRunner` (the worker's side): a `saq.Worker` per kind, on that kind's queue, at
  most that kind's slots at once. While a job runs, its heartbeat is written every
  third of the kind's heartbeat time. Stopping (cancelling `run`) takes no more jobs
  and waits for the running ones up to their timeout (or the runner's grace); a job
  cut short is handed back to the queue.

Each attempt is one: a job is not retried after a failure, a timeout or a lost worker
(the submitter is waiting, and answers at once). SAQ's web UI is never started.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import msgspec
import structlog
from redis.asyncio import Redis
from redis.exceptions import RedisError
from saq import Queue, Worker
from saq.job import TERMINAL_STATUSES, Job, Status

from noitu.adapters.arena.fair_redis_queue import LINE_META, FairRedisQueue
from noitu.application.arena.jobs import (
    NOBODY,
    TAKE_WITHIN_S,
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

#: Each kind's queue's name in Redis (its keys are `saq:noitu-arena-build:*`,
#: `saq:job:noitu-arena-build:*`, and so on).
QUEUE_NAMES = {kind: f"noitu-arena-{kind.value}" for kind in JobKind}
#: The submitter reads its job again at least this often (seconds).
RECHECK_S = 0.5
#: A finished job (and its result) is kept this long for its submitter (seconds).
KEEP_S = 600
#: Beyond a job's timeout and heartbeat, how long its submitter waits for SAQ's verdict.
VERDICT_MARGIN_S = 10.0
#: The worker's upkeep (seconds): aborts seen and jobs scheduled every second, dead
#: workers' jobs swept and this worker's record written every 5 s (also the longest a
#: stop waits for the upkeep to notice it).
WORKER_TIMERS = {"schedule": 1, "abort": 1, "sweep": 5, "worker_info": 5}
#: An unreachable Redis is given up after this long (seconds); a refused connection at once.
CONNECT_TIMEOUT_S = 2.0
#: A worker's wait for a job before it looks again whether it is stopping (seconds).
DEQUEUE_WAIT_S = 1.0

TAKEN = frozenset({Status.ACTIVE, Status.ABORTING, *TERMINAL_STATUSES})

log = structlog.get_logger("noitu.worker")


class QueueUnavailable(JobError):
    """Redis could not be reached."""


def saq_queues(url: str) -> dict[JobKind, Queue]:
    """The arena's queues on the Redis at `url`, one per job kind (each its own
    connections). SAQ's own log says every job at INFO, with its whole description:
    only its warnings are kept (a worker logs one `arena_job` line per job)."""
    logging.getLogger("saq").setLevel(logging.WARNING)
    return {
        kind: FairRedisQueue(
            Redis.from_url(url, socket_connect_timeout=CONNECT_TIMEOUT_S), name=name
        )
        for kind, name in QUEUE_NAMES.items()
    }


async def connect_queues(queues: Mapping[JobKind, Queue]) -> None:
    for queue in queues.values():
        await queue.connect()


async def close_queues(queues: Mapping[JobKind, Queue]) -> None:
    """Close the queues' connections; a Redis already gone is no error here."""
    for queue in queues.values():
        with contextlib.suppress(RedisError, OSError):
            await queue.disconnect()


class SaqJobs:
    def __init__(
        self, queues: Mapping[JobKind, Queue], take_within_s: float = TAKE_WITHIN_S
    ) -> None:
        self._queues = dict(queues)
        self._take_within_s = take_within_s

    def _job(self, job_type: JobType[P, R], payload: P, line: InLine, **terms: Any) -> Job:
        return Job(
            function=job_type.kind.value,
            kwargs={"payload": msgspec.json.encode(payload).decode()},
            timeout=math.ceil(job_type.timeout_s),
            heartbeat=math.ceil(job_type.heartbeat_s),
            retries=1,
            ttl=KEEP_S,
            meta={LINE_META: msgspec.to_builtins(line)},
            **terms,
        )

    async def submit(
        self, job_type: JobType[P, R], payload: P, line: InLine = NOBODY
    ) -> Finished[R]:
        queue = self._queues[job_type.kind]
        job = self._job(job_type, payload, line)
        try:
            await queue.enqueue(job)
            try:
                return await self._follow(queue, job_type, job.key)
            except BaseException:
                await asyncio.shield(self._abort(queue, job.key, "withdrawn by its submitter"))
                raise
        except (RedisError, OSError) as error:
            raise QueueUnavailable(f"the job queue is unreachable: {error!r}") from error

    async def enqueue(
        self, job_type: JobType[P, R], payload: P, key: str, line: InLine = NOBODY
    ) -> None:
        job = self._job(job_type, payload, line, key=f"{job_type.kind.value}:{key}")
        try:
            # None when that key is queued or running
            await self._queues[job_type.kind].enqueue(job)
        except (RedisError, OSError) as error:
            raise QueueUnavailable(f"the job queue is unreachable: {error!r}") from error

    async def _follow(self, queue: Queue, job_type: JobType[P, R], key: str) -> Finished[R]:
        kind = job_type.kind
        take_within_s = job_type.take_within_s or self._take_within_s
        job = await self._watch(queue, key, lambda job: job.status in TAKEN, take_within_s)
        if job is None:
            raise JobLost(f"{kind} job vanished from the queue")
        if job.status not in TAKEN:
            raise JobNotTaken(f"no worker took the {kind} job in {take_within_s:g} s")
        within = job_type.timeout_s + job_type.heartbeat_s + VERDICT_MARGIN_S
        job = await self._watch(
            queue, key, lambda job: job.status in TERMINAL_STATUSES or job.stuck, within
        )
        if job is None:
            raise JobLost(f"{kind} job vanished from the queue")
        if job.status is Status.COMPLETE:
            result = msgspec.json.decode(job.result, type=job_type.result)
            return Finished(result, max((job.started or job.queued) - job.queued, 0))
        if job.status is Status.FAILED and _timed_out(job):
            raise JobLost(f"{kind} job ran past {job.timeout} s on {job.worker_id}")
        if job.status is Status.FAILED:
            raise JobFailed(f"{kind} job failed on {job.worker_id}: {_last_line(job.error)}")
        if job.status is Status.ABORTED:
            raise JobLost(f"{kind} job aborted on {job.worker_id}: {job.error}")
        raise JobLost(f"{kind} job stuck on {job.worker_id} (status {job.status.value})")

    @staticmethod
    async def _watch(
        queue: Queue, key: str, done: Callable[[Job], bool], within_s: float
    ) -> Job | None:
        """The job once `done(job)`, or as it is after `within_s`; None if it is gone."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within_s
        while True:
            job = await queue.job(key)
            left = deadline - loop.time()
            if job is None or done(job) or left <= 0:
                return job
            with contextlib.suppress(TimeoutError):
                await queue.listen(
                    [key], lambda _key, _status: True, timeout=min(left, RECHECK_S)
                )

    @staticmethod
    async def _abort(queue: Queue, key: str, why: str) -> None:
        with contextlib.suppress(RedisError, OSError):
            job = await queue.job(key)
            if job is not None and job.status not in TERMINAL_STATUSES:
                await queue.abort(job, why)


def _timed_out(job: Job) -> bool:
    """Whether SAQ stopped the job at its timeout (which it records as a failure)."""
    ran_ms = (job.completed or 0) - (job.started or 0)
    return bool(job.timeout) and job.started > 0 and ran_ms >= job.timeout * 1000


def _last_line(text: str | None) -> str:
    lines = (text or "").strip().splitlines()
    return lines[-1][:300] if lines else "no error given"


class SaqJobRunner:
    def __init__(
        self,
        queues: Mapping[JobKind, Queue],
        slots: Mapping[JobKind, int],
        name: str,
        grace_s: float | None = None,
    ) -> None:
        """`slots`: the jobs of each kind run at once (each kind from its own queue,
        with its own slots); `grace_s`: how long a stop lets running jobs end before
        cutting them short (None: the longest kind's timeout)."""
        if any(count < 1 for count in slots.values()):
            raise ValueError("a job runner needs room for one job of each kind it runs")
        self._queues = dict(queues)
        self._slots = dict(slots)
        self._name = name
        self._functions: dict[JobKind, Callable[..., Awaitable[str]]] = {}
        self._longest_s = 0.0
        self._grace_s = grace_s

    @property
    def slots(self) -> dict[JobKind, int]:
        return dict(self._slots)

    def handle(self, job_type: JobType[P, R], handler: Callable[[P], Awaitable[R]]) -> None:
        async def run_one(context: dict[str, Any], *, payload: str) -> str:
            job: Job = context["job"]
            loop = asyncio.get_running_loop()
            began = loop.time()
            heart = asyncio.create_task(_beat(job, job_type.heartbeat_s / 3))
            outcome = "failed"
            try:
                result = await handler(msgspec.json.decode(payload, type=job_type.payload))
                outcome = "done"
            except asyncio.CancelledError:
                outcome = "cancelled"
                raise
            finally:
                heart.cancel()
                await asyncio.gather(heart, return_exceptions=True)
                log.info(
                    "arena_job", kind=job_type.kind.value, job=job.key, outcome=outcome,
                    ms=round((loop.time() - began) * 1000),
                    waited_ms=max(job.started - job.queued, 0),
                )
            return msgspec.json.encode(result).decode()

        if job_type.kind not in self._slots:
            raise ValueError(f"this runner has no slots for {job_type.kind} jobs")
        self._functions[job_type.kind] = run_one
        self._longest_s = max(self._longest_s, job_type.timeout_s)

    async def run(self) -> None:
        """One SAQ worker per kind with a handler, on that kind's queue, all stopped
        together."""
        grace_s = math.ceil(self._longest_s if self._grace_s is None else self._grace_s)
        workers = []
        for kind, function in self._functions.items():
            queue = self._queues[kind]
            worker = Worker(
                queue,
                functions=[(kind.value, function)],
                id=self._name,
                concurrency=self._slots[kind],
                timers=WORKER_TIMERS,  # type: ignore[arg-type]
                dequeue_timeout=DEQUEUE_WAIT_S,
                shutdown_grace_period_s=grace_s,
                metadata={"instance": self._name, "slots": self._slots[kind]},
                startup=_sweep_first(queue),
            )
            worker.SIGNALS = []  # the process's signals are its entrypoint's: it cancels us
            workers.append(worker)
        await asyncio.gather(*(worker.start() for worker in workers))


def _sweep_first(queue: Queue) -> Callable[[object], Awaitable[None]]:
    """Sweep before taking any job. SAQ's upkeep sweeps as it starts, at the very moment
    its first jobs are taken, and a sweep that reads a job between its taking and its
    marking as running takes it for abandoned (and then records it aborted, even after
    it completed). Swept here first, the upkeep's sweep finds the sweep's lock held and
    waits its turn; a later sweep still may meet a job in that window of a few
    milliseconds (one in thousands of jobs, answered `busy`)."""

    async def sweep(_context: object) -> None:
        await queue.sweep(lock=WORKER_TIMERS["sweep"])

    return sweep


async def _beat(job: Job, every_s: float) -> None:
    """Touch the job every `every_s` while it runs: its worker is alive."""
    while True:
        await asyncio.sleep(every_s)
        with contextlib.suppress(RedisError, OSError):
            await job.update()
