"""`noitu arena sweep` (spec B14 "Retention"): one retention sweep, now, as `serve` runs
it at start-up and hourly.

    noitu arena sweep

It reads the server's settings (the same environment as `noitu serve`:
NOITU_ARENA_DATABASE, NOITU_ARENA_FILES, NOITU_DATA_DIR, NOITU_ARENA_REPLAY_DAYS,
NOITU_ARENA_LADDER_REPLAYS), opens the arena's database (migrated first), deletes the
replays and stderr tails the settings no longer keep, and prints one line saying how
many and the bytes freed (English, like the other operator commands). While another
process sweeps (a server's hourly sweep) it deletes nothing, says so and exits 75
(EX_TEMPFAIL: running again later works); an unreachable database exits 1.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
from typing import TYPE_CHECKING

from noitu.application.arena.storage import StorageUnavailable
from noitu.entrypoints.cli.noitu import settings_or_exit
from noitu.entrypoints.role import Role

if TYPE_CHECKING:  # imported when the command runs (`noitu --help` stays fast)
    from noitu.application.arena.sweep_replays import SweepResult

#: sysexits' EX_TEMPFAIL: another process holds the sweep's lease.
EXIT_BUSY = 75
MIB = 1024 * 1024


async def sweep_once() -> SweepResult:
    """One sweep with the server's settings and database."""
    from noitu.entrypoints.container import Container

    settings = dataclasses.replace(settings_or_exit(), modules=("arena",))
    container = Container(settings=settings, role=Role.cli())
    # The one Resource this needs: the database, migrated (no sandbox, no Redis).
    await container.arena_database_resource.init()
    try:
        return await container.sweep_replays()()
    finally:
        await container.arena_database_resource.shutdown()


def summary(result: SweepResult) -> str:
    """The line the command prints."""
    if result.busy:
        return "another process is sweeping replays now: nothing deleted (try again later)"
    if not result.deleted:
        return "no replay is due: nothing deleted"
    replays = "replay" if result.deleted == 1 else "replays"
    return (
        f"deleted {result.deleted} {replays} and their stderr tails,"
        f" {result.freed_bytes / MIB:.1f} MiB freed"
    )


def sweep_command(args: argparse.Namespace) -> None:
    try:
        result = asyncio.run(sweep_once())
    except StorageUnavailable as error:
        print(f"noitu: the arena's database is unreachable: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    print(summary(result), file=sys.stderr if result.busy else sys.stdout, flush=True)
    if result.busy:
        raise SystemExit(EXIT_BUSY)


def add_sweep_parser(kinds: argparse._SubParsersAction) -> None:
    sweep = kinds.add_parser(
        "sweep",
        help="delete the replays the retention settings no longer keep (spec B14; exit 75"
             " while another process sweeps)",
    )
    sweep.set_defaults(run=sweep_command)
