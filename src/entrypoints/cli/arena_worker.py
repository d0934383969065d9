"""`noitu arena worker` (spec B9): the process that runs the arena's jobs — rooms'
matches and builds of uploaded bots — taken from the SAQ queue (NOITU_ARENA_QUEUE=saq),
in this machine's sandbox.

    noitu arena worker [--matches N] [--builds N]

Matches at once: `--matches`, by default 2 per core the process may use (its CPU
affinity, capped by its cgroup's `cpu.max`); builds: `--builds`, by default one per
core. Each kind is taken from its own queue, in B10's fair order, with its own slots:
matches never wait for builds, nor builds for matches. It beats every 5 s (its matches are abandoned by any process once it stops), and
looks for other workers' lost matches as `serve` does.

It reads the server's settings (the same environment as `noitu serve`: NOITU_STORE,
REDIS_URL, NOITU_ARENA_DATABASE, NOITU_ARENA_FILES, NOITU_DATA_DIR), probes the sandbox,
opens the arena's database (where the files are with NOITU_ARENA_FILES=database; the
data directory is then this machine's cache), and logs one start-up line naming the
sandbox, as `serve` does; without a sandbox, or a database, it exits 1 with the reason.
Its name (NOITU_INSTANCE) defaults to host name and process id. SIGTERM or SIGINT: it
takes no more jobs, ends its matches as ABANDONED at once (archived and told to viewers,
as a server's stop does, B4), lets its builds end (up to a build's time), and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import msgspec
import structlog

from noitu.adapters.arena.cores import usable_cores
from noitu.application.arena.match_queue import CPU_PER_THINKING_BOT
from noitu.application.arena.storage import StorageUnavailable
from noitu.application.errors import Busy
from noitu.entrypoints.cli.noitu import settings_or_exit
from noitu.entrypoints.role import Role
from noitu.entrypoints.settings import Settings

if TYPE_CHECKING:  # the worker's own parts are imported when it runs (fast `noitu --help`)
    from noitu.entrypoints.container import Container

log = structlog.get_logger("noitu.worker")

#: While a worker stops, how often it ends the matches it still runs (seconds).
STOP_PASS_S = 0.2
#: Matches at once per core a worker may use (B9: 2, as each bot thinking needs 0.5 CPU).
MATCHES_PER_CORE = round(1 / CPU_PER_THINKING_BOT)


def _settings_or_exit() -> Settings:
    settings = settings_or_exit()
    if settings.arena_queue != "saq":
        print(
            "noitu: `noitu arena worker` takes the jobs of NOITU_ARENA_QUEUE=saq; with the"
            " local queue (the default) `noitu serve` plays and builds itself",
            file=sys.stderr,
        )
        raise SystemExit(2)
    # A worker runs the arena alone, under its own name (several may share a machine).
    return dataclasses.replace(
        settings, modules=("arena",), instance=settings.worker_instance
    )


def worker_role(matches: int | None) -> Role:
    """As many matches at once as asked, or as its cores keep the 0.5-CPU promise."""
    return Role.worker(matches or MATCHES_PER_CORE * usable_cores())


async def work(settings: Settings, role: Role, builds: int | None) -> int:
    """Run jobs until SIGTERM or SIGINT; the exit status."""
    from sqlalchemy.exc import SQLAlchemyError

    from noitu.entrypoints.container import Container

    container = Container(settings=settings, role=role)
    await container.arena_sandbox_resource.init()
    try:
        found = container.arena_sandbox_status()
        if found is None or not found.available:
            log.error(
                "arena_worker",
                problem="no sandbox: a worker plays and builds uploads only in the sandbox",
                sandbox=found.reason if found is not None else "not probed",
            )
            return 1
        try:  # the arena's database: matches, and the files with NOITU_ARENA_FILES=database
            await container.arena_database_resource.init()
        except (StorageUnavailable, SQLAlchemyError, OSError) as error:
            log.error("arena_worker_failed", problem="the arena's database is unreachable",
                      error=str(error)[:300])
            return 1
        await container.job_queue_resource.init()
        await container.redis_resource.init()
        await container.room_feed_resource.init()
        try:
            return await _run_jobs(container, settings, found.reason, builds)
        finally:
            await container.room_feed_resource.shutdown()
            await container.redis_resource.shutdown()
            await container.job_queue_resource.shutdown()
            await container.arena_database_resource.shutdown()
    finally:
        await container.arena_sandbox_resource.shutdown()


async def _run_jobs(
    container: Container, settings: Settings, sandbox: str, builds: int | None
) -> int:
    from redis.exceptions import RedisError

    from noitu.entrypoints.app import ROOMS_SHUTDOWN_S
    from noitu.entrypoints.containers.support import worker_slots

    builds = builds or worker_slots()
    matches = container.role().matches
    # Its previous life's matches (a restart under the same NOITU_INSTANCE): ended with
    # what their journals kept, their viewers told; then the archive's leftovers.
    try:
        own = await container.abandon_lost_matches().of_worker(settings.instance)
    except Busy:
        own = 0  # Redis away: the runner below says so and the worker stops
    recovered = await container.recover_at_start()()
    # Builds and matches each from their own queue with their own slots (B14): matches
    # waiting for their players never hold a slot an upload's build needs.
    runner = container.job_runner(matches=matches, builds=builds)
    log.info(
        "arena_worker",
        instance=settings.instance,
        matches=matches,
        builds=builds,
        sandbox=sandbox,
        queue="saq",
        data_dir=str(settings.data_dir),
        own_matches_abandoned=own,
        **msgspec.structs.asdict(recovered),
    )
    # Its beat (the first one now) and the look for other workers' lost matches: the
    # worker's periodic tasks (entrypoints/periodic_tasks.py).
    await container.periodic_resource.init()
    close_rooms = container.close_rooms()

    async def end_matches() -> None:
        # Again and again until the runner has stopped: a job taken at the very moment
        # of the stop starts its match after the first pass.
        while True:
            await close_rooms(ROOMS_SHUTDOWN_S)
            await asyncio.sleep(STOP_PASS_S)

    try:
        await _until_stopped(runner.run(), end_matches)
    except (RedisError, OSError) as error:  # Redis away as the worker started
        log.error(
            "arena_worker_failed", instance=settings.instance,
            error=f"{type(error).__name__}: {error}"[:300],
        )
        return 1
    finally:
        await container.periodic_resource.shutdown()
        ended = await close_rooms(ROOMS_SHUTDOWN_S)  # a match taken as it stopped
        if ended:
            log.info("arena_rooms_closed", abandoned=ended)
    log.info("arena_worker_stopped", instance=settings.instance)
    return 0


async def _until_stopped(running: object, on_stop: Callable[[], Awaitable[object]]) -> None:
    """Run `running` until a stop signal, then cancel it and wait for it to wind down,
    `on_stop()` running meanwhile and cancelled after (the worker's matches end at
    once, as a server's do at its stop, B4: their jobs then finish, and only builds use
    the runner's grace)."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    task = asyncio.ensure_future(running)  # type: ignore[arg-type]
    stopping = loop.create_task(stop.wait())
    ending: asyncio.Task[object] | None = None
    try:
        await asyncio.wait({task, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
        if not task.done():
            ending = loop.create_task(on_stop())  # type: ignore[arg-type]
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        if ending is not None:
            ending.cancel()
            await asyncio.gather(ending, return_exceptions=True)
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)


def worker_command(args: argparse.Namespace) -> None:
    from noitu.adapters.log_setup import configure_logging

    settings = _settings_or_exit()
    configure_logging(settings.effective_log_format, settings.log_level)
    for warning in settings.warnings:
        log.warning("settings", problem=warning)
    raise SystemExit(asyncio.run(work(settings, worker_role(args.matches), args.builds)))


def _positive(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 1024:
        raise argparse.ArgumentTypeError("expected a whole number from 1 to 1024")
    return int(text)


def add_worker_parser(kinds: argparse._SubParsersAction) -> None:
    worker = kinds.add_parser(
        "worker",
        help="run the arena's jobs (matches, builds) from the SAQ queue (NOITU_ARENA_QUEUE=saq)",
        description=(
            "Take the arena's jobs (rooms' matches, builds of uploads) from the SAQ queue"
            " and run them in this machine's sandbox. Reads the same environment as"
            " `noitu serve`."
        ),
    )
    worker.add_argument(
        "--matches", type=_positive, metavar="N",
        help=f"matches at once (default: {MATCHES_PER_CORE} per core this process may use)",
    )
    worker.add_argument(
        "--builds", type=_positive, metavar="N",
        help="builds at once (default: one per core this process may use)",
    )
    worker.set_defaults(run=worker_command)
