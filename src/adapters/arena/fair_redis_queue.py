"""SAQ's Redis queue for the arena's jobs (spec B9, B10): patient while Redis is away,
and keeping its waiting jobs in B10's fair order (`fair_order.py`, the rule one
machine's queues follow): a job is put in line at its place, by its `InLine` (kept in
the job's `meta`), rather than at the end, and SAQ's workers take the line's head as
always."""

from __future__ import annotations

import asyncio

import msgspec
from redis.exceptions import RedisError, WatchError
from saq.job import Job
from saq.queue.redis import RedisQueue

from noitu.application.arena.fair_order import Waiting, rank_among
from noitu.application.arena.jobs import NOBODY, InLine

#: Where a job keeps its place in line (`InLine`, its rank and arrival filled in).
LINE_META = "line"
#: While Redis is away, a worker asks for a job this often (seconds).
REDIS_RETRY_S = 1.0


class PatientRedisQueue(RedisQueue):
    """SAQ's Redis queue, whose taking of a job waits a while when Redis is away. SAQ's
    worker asks for the next job at once after a failed ask, so without this a worker
    spins at full CPU through a Redis outage; with it, it asks again every
    `REDIS_RETRY_S` and goes on by itself once Redis is back. A cancellation that
    redis-py swallowed during the ask is raised again (see `_raise_if_cancelled`)."""

    async def dequeue(self, timeout: float = 0.0, poll_interval: float = 0.0) -> Job | None:
        try:
            job = await super().dequeue(timeout, poll_interval)
        except (RedisError, OSError):
            await asyncio.sleep(REDIS_RETRY_S)
            return None
        _raise_if_cancelled()
        return job


def _raise_if_cancelled() -> None:
    """redis-py may swallow a task's cancellation that arrives during a blocking read
    (the read just returns nothing); SAQ's worker then asks again for ever and its stop
    never ends. A cancellation still pending is raised here."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError()


class FairRedisQueue(PatientRedisQueue):
    """A queue whose waiting jobs stay in B10's fair order (`fair_order.py`): a job
    that carries its place (`LINE_META`, an `InLine`) is inserted before the first
    waiting job that goes after it, instead of at the end; its rank, unless given, is
    taken among this queue's jobs running or waiting (`incomplete`) as it arrives. The
    whole line is read and the job put in one transaction that any other change of
    the line or of the jobs running or waiting makes try again (WATCH), so two
    submitters never insert against a line that moved. Workers take the head
    (`dequeue`, SAQ's own), which is therefore the next in the fair order.

    It relies on SAQ's Redis layout (`_enqueue`, the `incomplete` sorted set and the
    `queued` list, SAQ 0.26): `tests/contract/test_job_queue.py` takes jobs in the fair
    order through it, and fails if an upgrade changes them."""

    async def _enqueue(self, job: Job) -> Job | None:
        placed = job.meta.get(LINE_META)
        if placed is None or job.scheduled:
            return await super()._enqueue(job)
        given = msgspec.convert(placed, InLine)
        while True:
            async with self.redis.pipeline(transaction=True) as pipe:
                try:
                    await pipe.watch(self._queued, self._incomplete)
                    if (await pipe.zscore(self._incomplete, job.id)) is not None or (
                        await pipe.exists(job.abort_id)
                    ):
                        return None  # that key is queued or running already
                    ids = [_text(found) for found in await pipe.zrange(self._incomplete, 0, -1)]
                    stored = await pipe.mget(ids) if ids else []
                    others = {
                        job_id: _waiting(other)
                        for job_id, blob in zip(ids, stored, strict=True)
                        if (other := self.deserialize(blob)) is not None
                    }
                    queued = [_text(found) for found in await pipe.lrange(self._queued, 0, -1)]
                    rank = given.rank
                    if rank is None:
                        rank = rank_among(given.tags, (other.tags for other in others.values()))
                    arrival = job.queued if given.arrival_ms is None else given.arrival_ms
                    line = msgspec.structs.replace(given, rank=rank, arrival_ms=arrival)
                    job.meta[LINE_META] = msgspec.to_builtins(line)
                    order = _waiting(job).order
                    before = next(
                        (
                            job_id for job_id in queued
                            if job_id in others and others[job_id].order > order
                        ),
                        None,
                    )
                    pipe.multi()
                    pipe.set(job.id, self.serialize(job))
                    pipe.zadd(self._incomplete, {job.id: job.scheduled})
                    if before is None:
                        pipe.rpush(self._queued, job.id)
                    else:
                        pipe.linsert(self._queued, "BEFORE", before, job.id)
                    await pipe.execute()
                except WatchError:
                    continue  # the line moved meanwhile: read it again
            return job


def _text(found: bytes | str) -> str:
    return found.decode() if isinstance(found, bytes) else found


def _waiting(job: Job) -> Waiting:
    """A job's place in its queue's line: as its `LINE_META` says, or, for a job
    without one, rank 0 as it came."""
    placed = job.meta.get(LINE_META)
    line = NOBODY if placed is None else msgspec.convert(placed, InLine)
    return Waiting(
        job.key,
        line.tags,
        line.rank or 0,
        job.queued if line.arrival_ms is None else line.arrival_ms,
        line.spectacle,
        line.ladder,
    )
