"""What a process does by itself, every so often: the tasks its `Periodic` runs
(`adapters/periodic.py`), chosen by its role (`entrypoints/role.py`). The container's `periodic_resource`
starts them with the process and stops them before anything they use closes.

- `web` (`noitu serve`): nối từ's sweep of sessions whose turn ran out with the page
  closed; the group rooms (B10) brought up to now when something is due in them, the
  feeds' holds renewed, every room brought up to now once a minute (idle ones closed);
  the words added by the operators followed (B11); the arena's board pass (waiting
  rooms nobody completed closed; the matches of a worker that stopped beating abandoned,
  B9 "Faults"), and on one machine (NOITU_ARENA_QUEUE=local, where this process hosts
  the matches) its beat as a worker's; the arena's retention sweep (B14: at start-up,
  then hourly; every `serve` runs it, the sweep's lease makes it one at a time, so
  workers, which never run without a web instance, leave it to them).
- `worker` (`noitu arena worker`): its beat, and the board pass as `serve` does.
- `cli` (a `noitu` command): none.

A run that hits `Busy` (Redis away: the link logs the outage once) is not logged; any
other failure is logged with the task's name, and the task runs again at its next tick.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import structlog

from noitu.adapters.heap import trim_heap
from noitu.adapters.periodic import Periodic, PeriodicTask
from noitu.application.arena.rooms.cluster_ports import WORKER_BEAT_MS, WORKER_TTL_MS
from noitu.application.errors import Busy
from noitu.application.noitu.rooms.pages import RENEW_EVERY_MS

if TYPE_CHECKING:
    from noitu.entrypoints.container import Container

#: The sweep of nối từ's sessions.
SWEEP_EVERY_S = 60.0
#: B10: a turn that ran out is settled within 1 s after its grace; the group rooms' task
#: runs at least this often, and sooner when something is due sooner.
ROOM_SETTLE_EVERY_S = 0.5
#: The shortest wait between two runs of the group rooms' task.
ROOM_SETTLE_LEAST_S = 0.005
#: How often every group room is brought up to now (idle ones closed).
ROOM_CLOSE_EVERY_S = 60.0
#: An addition reaches every instance within this plus one store read (B11).
FOLLOW_EVERY_S = 1.0
#: How often a process looks for the matches of a worker that died (B9: within 30 s).
LOST_MATCHES_EVERY_S = 5.0
#: B14: the retention sweep runs at start-up, then hourly.
REPLAY_SWEEP_EVERY_S = 3600.0

log = structlog.get_logger("noitu.periodic")


def periodic_of(container: Container) -> Periodic:
    """The process's periodic tasks, by its role: a worker's, a web server's (as far as
    its settings run each part), none for a CLI command."""
    settings, role = container.settings(), container.role()
    tasks: list[PeriodicTask] = []
    if role.kind == "worker":
        tasks = [worker_beat(container), lost_matches(container)]
    elif role.kind == "web":
        if settings.game_enabled:
            tasks += [sessions_sweep(container), *group_rooms(container)]
        if settings.game_enabled or settings.telegram_enabled:
            tasks.append(word_additions(container))
        if settings.arena_enabled:
            tasks += [lost_matches(container), replay_sweep(container)]
            if settings.arena_queue == "local":
                tasks.append(worker_beat(container))
    return Periodic(tasks, quiet=(Busy,))


def sessions_sweep(container: Container) -> PeriodicTask:
    """Turns that ran out with the page closed are settled; idle and finished sessions go."""
    settle = container.settle_expired()

    async def sweep() -> None:
        result = await settle()
        if result.settled or result.dropped_idle or result.dropped_finished:
            log.info("sweep", **{f: getattr(result, f) for f in result.__struct_fields__})

    return PeriodicTask("sessions_sweep", SWEEP_EVERY_S, sweep)


def group_rooms(container: Container) -> list[PeriodicTask]:
    """B10, whether or not anyone is connected: rooms with something due are brought up
    to now — the bot seat's word when its pause ends, turns that ran out, the presence
    rules (a host absent 2 minutes passes the role within 10 s) —, the next run coming
    when the next thing is due (at most `ROOM_SETTLE_EVERY_S` later); after feeds
    closed, the memory they freed goes back to the system. The feeds served here renew
    their holds, and every room is brought up to now once a minute (empty ones close)."""
    settle, close_idle = container.group_settle(), container.group_close_idle()
    renew, pages = container.group_renew_pages(), container.group_pages()
    seen_closed = [pages.closed]

    async def due() -> float | None:
        await settle()
        if pages.closed != seen_closed[0]:
            seen_closed[0] = pages.closed
            trim_heap()
        wait_ms = await settle.wait_ms()
        return None if wait_ms is None else max(wait_ms / 1000, ROOM_SETTLE_LEAST_S)

    async def renew_pages() -> None:
        await renew()

    async def close() -> None:
        closed = await close_idle()
        if closed:
            log.info("rooms_closed", closed=closed)

    return [
        PeriodicTask("group_rooms_due", ROOM_SETTLE_EVERY_S, due),
        PeriodicTask("group_pages_renew", RENEW_EVERY_MS / 1000, renew_pages),
        PeriodicTask("group_rooms_close", ROOM_CLOSE_EVERY_S, close),
    ]


def word_additions(container: Container) -> PeriodicTask:
    """B11: the changes to the words made since the last read are applied here (the ones
    made before start-up were, before the first request: `entrypoints/words.py`)."""
    follow = container.follow_additions()

    async def apply() -> None:
        read = await follow()
        if read:
            log.info("word_changes_applied", changes=read, version=follow.overlay.version)

    return PeriodicTask("word_additions", FOLLOW_EVERY_S, apply)


def lost_matches(container: Container) -> PeriodicTask:
    """The board's pass: waiting rooms nobody completed close (B4); the matches of a
    worker that stopped beating end as ABANDONED (B9 "Faults": any process may do it;
    the board's hold makes it once; a Redis outage under 30 s abandons nothing)."""
    abandon = container.abandon_lost_matches()

    async def look() -> None:
        abandoned = await abandon()
        if abandoned:
            log.warning("lost_matches_abandoned", matches=abandoned)

    return PeriodicTask("arena_lost_matches", LOST_MATCHES_EVERY_S, look)


def replay_sweep(container: Container) -> PeriodicTask:
    """B14: the replays the retention settings no longer keep are deleted, with their
    stderr tails; one process at a time sweeps (the others say they skipped)."""
    sweep = container.sweep_replays()

    async def run() -> None:
        result = await sweep()
        if result.busy:
            log.info("replay_sweep_skipped", reason="another process is sweeping")
        elif result.deleted:
            log.info("replay_sweep", deleted=result.deleted, freed_bytes=result.freed_bytes)

    return PeriodicTask("replay_sweep", REPLAY_SWEEP_EVERY_S, run, first_s=0.0)


def worker_beat(container: Container) -> PeriodicTask:
    """A worker is alive (B9): its matches are abandoned once its beats stop. Each beat
    says how many matches it plays at once (the ladder fills what is idle). The first
    beat comes at once, before the worker takes a job."""
    board, settings = container.room_board(), container.settings()
    matches = container.match_queue().slots

    async def beat() -> None:
        await board.beat(settings.instance, WORKER_TTL_MS, matches)

    return PeriodicTask("worker_beat", WORKER_BEAT_MS / 1000, beat, first_s=0.0)
