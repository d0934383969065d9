"""SweepReplays: the retention sweep (spec B14 "Retention"): the replays the rule of
`retention.py` no longer keeps are deleted, with the stderr tails kept per match; the
results, seats, ratings and history rows stay, and show "bản ghi đã xoá".

One sweep at a time across every process of a deployment (`noitu serve` instances and
`noitu arena sweep` alike): the sweep holds a lease in the arena's database
(`storage.Lease`), taken for `LEASE_MS` and renewed before each batch of at most `BATCH`
matches; one that finds it held does nothing and says so (`busy`). A batch is short
(one query, then one file and one row per match), so a lease of a minute outlasts it
many times over; a holder that dies frees it after that minute.

Each match: its file first, then its row. A crash between the two leaves a row whose
file is gone, which the next sweep finds due again: deleting a missing file is no error
and the row is marked then. A row naming no file the store could hold (a broken
record) is marked with nothing deleted, so it never stops the sweep. Should two sweeps ever overlap (a lease lost under a stalled
batch), each file is deleted once and each row marked once, whoever comes first.
"""

from __future__ import annotations

from dataclasses import dataclass

from noitu.application.arena.retention import Retention
from noitu.application.arena.storage import ArenaFiles, Lease, MatchArchive
from noitu.application.ports import Clock

#: How long the lease is taken for (renewed before each batch).
LEASE_MS = 60_000
#: Matches a batch reads and sweeps at most.
BATCH = 200


@dataclass(frozen=True, slots=True)
class SweepResult:
    #: Replays deleted (their rows marked) by this sweep.
    deleted: int
    #: The bytes their files took in the store.
    freed_bytes: int
    #: Another process was sweeping: this one did nothing.
    busy: bool = False


class SweepReplays:
    def __init__(
        self,
        archive: MatchArchive,
        files: ArenaFiles,
        lease: Lease,
        clock: Clock,
        retention: Retention,
        holder: str,
        batch: int = BATCH,
    ) -> None:
        """`holder`: this process's name on the lease (unique among the processes that
        share the database)."""
        self._archive = archive
        self._files = files
        self._lease = lease
        self._clock = clock
        self._retention = retention
        self._holder = holder
        self._batch = batch

    async def __call__(self) -> SweepResult:
        if not await self._lease.acquire(self._holder, self._clock.now_ms(), LEASE_MS):
            return SweepResult(0, 0, busy=True)
        deleted = freed = 0
        try:
            while True:
                now = self._clock.now_ms()
                due = await self._archive.replays_due(self._retention, now, self._batch)
                marked = 0
                for match in due:
                    assert match.replay is not None, "a due match has a replay"
                    try:
                        freed += await self._files.delete_replay(match.replay)
                    except ValueError:
                        pass  # a name the store never gives: no file of it to delete
                    if await self._archive.mark_replay_deleted(match.id, now):
                        marked += 1
                deleted += marked
                if len(due) < self._batch or not marked:
                    break
                if not await self._lease.acquire(self._holder, self._clock.now_ms(), LEASE_MS):
                    break  # it ran out and another process took it: that one goes on
        finally:
            await self._lease.release(self._holder)
        return SweepResult(deleted, freed)
