"""The arena's database engine: SQLite (aiosqlite) by default, PostgreSQL (asyncpg) for
several instances.

URLs are accepted as an operator writes them and turned into the async drivers' forms:
`sqlite:///PATH` → `sqlite+aiosqlite:///PATH`, `postgresql://…` and `postgres://…` →
`postgresql+asyncpg://…`. SQLite needs a file (an in-memory database would be one per
connection); its directory is created.

On PostgreSQL every wait is bounded so that a database that is down or unreachable is
a 503 `busy` within 2 s (spec B9 "Faults"), never a hang: connecting gives up after
`CONNECT_TIMEOUT_S`, a statement after `STATEMENT_TIMEOUT_S`, waiting for a pooled
connection after `POOL_TIMEOUT_S` (a pooled connection is pinged before use, so one
left over from before a restart is replaced). `unavailable(error)` tells the errors
that mean the database cannot be reached now from those that are bugs or refusals.
Migrations run on a patient engine of their own (`patient=True`: no statement limit,
as they may wait for another instance's migration or build an index).

SQLite connections run in WAL mode (readers never wait for the writer) with foreign keys
on and a 30 s busy timeout. The driver's own implicit transactions are turned off and
every transaction starts with an explicit BEGIN (SQLAlchemy's recipe), so reads are
real snapshots and DDL is transactional; an engine made by `writer(engine)` begins with
BEGIN IMMEDIATE instead, taking the write lock first, so a read-then-write transaction
(a limit checked, then a row added) cannot interleave with another writer's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import (
    ArgumentError,
    DBAPIError,
    InterfaceError,
    OperationalError,
)
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

SQLITE_FILE = "arena.sqlite3"
SQLITE_DRIVER = "sqlite+aiosqlite"
POSTGRES_DRIVER = "postgresql+asyncpg"
SQLITE_BUSY_TIMEOUT_S = 30.0
#: The execution option that makes a SQLite transaction BEGIN IMMEDIATE.
WRITE_OPTION = "noitu_arena_write"
#: PostgreSQL's bounds (a failure at the first makes the request's answer, so a
#: ping's statement plus a reconnection stay under 2 s).
CONNECT_TIMEOUT_S = 0.8
STATEMENT_TIMEOUT_S = 1.0
POOL_TIMEOUT_S = 1.5
#: SQLSTATE classes of a database that cannot serve now: connection exceptions,
#: insufficient resources (too many connections), operator intervention (shutting
#: down, starting up).
_UNAVAILABLE_STATES = ("08", "53", "57")

_DRIVERS = {
    "sqlite": SQLITE_DRIVER,
    SQLITE_DRIVER: SQLITE_DRIVER,
    "postgres": POSTGRES_DRIVER,
    "postgresql": POSTGRES_DRIVER,
    POSTGRES_DRIVER: POSTGRES_DRIVER,
}


def default_url(data_dir: Path) -> str:
    """The embedded default: a SQLite file in the data directory."""
    return f"{SQLITE_DRIVER}:///{Path(data_dir).absolute() / SQLITE_FILE}"


def normalize_url(url: str) -> str:
    """The async driver's form of a SQLite or PostgreSQL URL; ValueError for anything
    else (a different database, a SQLite URL without a file, a malformed URL)."""
    try:
        parsed = make_url(url.strip())
    except ArgumentError as error:
        raise ValueError(f"not a database URL: {error}") from None
    driver = _DRIVERS.get(parsed.drivername)
    if driver is None:
        raise ValueError(
            f"unsupported database {parsed.drivername!r}: expected sqlite:///PATH or"
            " postgresql://USER@HOST/DB"
        )
    parsed = parsed.set(drivername=driver)
    if driver == SQLITE_DRIVER and (not parsed.database or parsed.database == ":memory:"):
        raise ValueError("a SQLite database needs a file: sqlite:///PATH")
    if driver == POSTGRES_DRIVER and not parsed.host and "host" not in parsed.query:
        raise ValueError("a PostgreSQL URL needs a host: postgresql://USER@HOST/DB")
    return parsed.render_as_string(hide_password=False)


def is_sqlite(engine: AsyncEngine) -> bool:
    return engine.dialect.name == "sqlite"


def describe(url: str) -> str:
    """The URL without its password, for the start-up line."""
    return make_url(url).render_as_string(hide_password=True)


def unavailable(error: BaseException) -> bool:
    """Whether `error` means the database cannot be reached or serve now (try again
    later), rather than a bug or a refused statement."""
    if isinstance(error, (OperationalError, InterfaceError, OSError, PoolTimeoutError)):
        return True  # OSError: refused connections and time-outs too
    if isinstance(error, DBAPIError):
        if error.connection_invalidated:
            return True
        orig = error.orig
        state = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
        return isinstance(state, str) and state[:2] in _UNAVAILABLE_STATES
    return False


def create_engine(url: str, *, patient: bool = False, **options: Any) -> AsyncEngine:
    """An async engine for `url` (see `normalize_url`); dispose of it at shutdown.
    PostgreSQL's waits are bounded unless `patient` (migrations)."""
    parsed: URL = make_url(normalize_url(url))
    if parsed.drivername == SQLITE_DRIVER:
        assert parsed.database is not None
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        connect_args = {"timeout": SQLITE_BUSY_TIMEOUT_S, **options.pop("connect_args", {})}
        engine = create_async_engine(parsed, connect_args=connect_args, **options)
        _configure_sqlite(engine)
        return engine
    options.setdefault("pool_pre_ping", True)
    options.setdefault("pool_timeout", POOL_TIMEOUT_S)
    bounds: dict[str, Any] = {"timeout": CONNECT_TIMEOUT_S}
    if not patient:
        bounds["command_timeout"] = STATEMENT_TIMEOUT_S
    connect_args = {**bounds, **options.pop("connect_args", {})}
    return create_async_engine(parsed, connect_args=connect_args, **options)


def writer(engine: AsyncEngine) -> AsyncEngine:
    """The same engine (and pool) whose transactions take SQLite's write lock first."""
    return engine.execution_options(**{WRITE_OPTION: True})


def _configure_sqlite(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # No implicit BEGIN from the driver: the "begin" hook below emits our own.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA busy_timeout={int(SQLITE_BUSY_TIMEOUT_S * 1000)}")
        finally:
            cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Any) -> None:
        write = connection.get_execution_options().get(WRITE_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")
