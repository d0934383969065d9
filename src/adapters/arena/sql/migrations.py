"""The arena's schema migrations (Alembic), run in-process at start-up.

No alembic.ini: the configuration is built here and points at this package (its
`env.py` and `versions/`), so the migrations ship inside the wheel. `upgrade` runs
`alembic upgrade head` on one connection in one transaction: on SQLite a BEGIN
IMMEDIATE one, on PostgreSQL one holding an advisory lock, so instances starting
together migrate one after the other, and a failed migration leaves nothing behind.
Running it on a database already at head changes nothing. Within one process,
migrations also wait for each other: Alembic's `context` is one module-wide object, so
two interleaved runs on one event loop would trample each other's.

Revisions are written by hand, numbered `0001`, `0002`, …; each names its constraints
explicitly and must leave the schema equal to `models.py` (a contract test compares).
"""

from __future__ import annotations

import asyncio
import weakref
from pathlib import Path
from typing import TYPE_CHECKING

from noitu.adapters.arena.sql.engine import create_engine, writer
from noitu.adapters.arena.sql.models import VERSION_TABLE

if TYPE_CHECKING:
    from alembic.config import Config
    from sqlalchemy import Connection
    from sqlalchemy.ext.asyncio import AsyncEngine

SCRIPT_LOCATION = Path(__file__).resolve().parent
VERSIONS = SCRIPT_LOCATION / "versions"
#: PostgreSQL advisory lock held while migrating ("noitaren" in ASCII).
MIGRATION_LOCK_KEY = 0x6E6F6974_6172656E
_process_locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
    weakref.WeakKeyDictionary()
)


# Alembic is imported where a migration runs, not with the module: every `noitu`
# command builds the container, and only the arena's database ever migrates.
def alembic_config() -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(SCRIPT_LOCATION))
    config.set_main_option("version_locations", str(VERSIONS))
    config.set_main_option("path_separator", "os")
    return config


def head_revision() -> str:
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def _upgrade(connection: Connection, revision: str) -> None:
    from alembic import command

    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, revision)


def _current(connection: Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext

    context = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE})
    return context.get_current_revision()


async def upgrade(engine: AsyncEngine, revision: str = "head") -> None:
    """`alembic upgrade head` (or up to `revision`) on `engine`'s database; on
    PostgreSQL through a patient engine of its own (no statement time limit: it may wait
    for another instance's migration), on SQLite through `engine` itself."""
    if engine.dialect.name != "postgresql":
        await _upgrade_on(engine, revision)
        return
    patient = create_engine(engine.url.render_as_string(hide_password=False), patient=True)
    try:
        await _upgrade_on(patient, revision)
    finally:
        await patient.dispose()


async def _upgrade_on(engine: AsyncEngine, revision: str) -> None:
    lock = _process_locks.setdefault(asyncio.get_running_loop(), asyncio.Lock())
    async with lock, writer(engine).begin() as connection:
        if connection.dialect.name == "postgresql":
            # Held until this transaction ends: another instance waits here.
            await connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK_KEY})")
        await connection.run_sync(_upgrade, revision)


async def upgrade_url(url: str) -> None:
    """Migrate the database at `url` with an engine of its own (for a CLI or a test)."""
    engine = create_engine(url, patient=True)
    try:
        await _upgrade_on(engine, "head")
    finally:
        await engine.dispose()


async def current_revision(engine: AsyncEngine) -> str | None:
    """The revision the database is at; None for an empty database."""
    async with engine.connect() as connection:
        return await connection.run_sync(_current)
