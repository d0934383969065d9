"""How the arena's SQL stores open their transactions, in one place.

A read is one connection; a write is one transaction begun with `writer(engine)`
(SQLite's BEGIN IMMEDIATE), and on SQLite this process's writers also take turns on an
asyncio lock, so they queue here instead of on SQLite's busy timeout. A database that
cannot serve now (`unavailable`) surfaces as `StorageUnavailable`, which the HTTP
adapter answers 503 `busy`; any other error (a refused constraint, a bug) is raised as
it came, for the store to map or not.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from noitu.adapters.arena.sql.engine import unavailable, writer
from noitu.application.arena.storage import StorageUnavailable


class SqlTransactions:
    def __init__(self, engine: AsyncEngine, *, snapshot_reads: bool = False) -> None:
        """`snapshot_reads`: on PostgreSQL, a read sees one snapshot for all of its
        statements (REPEATABLE READ; SQLite's reads are snapshots already)."""
        self.postgres = engine.dialect.name == "postgresql"
        self._reader = (
            engine.execution_options(isolation_level="REPEATABLE READ")
            if snapshot_reads and self.postgres
            else engine
        )
        self._writer = writer(engine)
        self._write_lock = None if self.postgres else asyncio.Lock()

    def locked(self, query: Any) -> Any:
        """`query` holding the rows it reads until the transaction ends (PostgreSQL's
        FOR UPDATE; SQLite's write transaction holds the whole database already)."""
        return query.with_for_update() if self.postgres else query

    def upsert(self, table: Any) -> Any:
        """An INSERT into `table` that may say what to do ON CONFLICT (both dialects')."""
        return (postgresql if self.postgres else sqlite).insert(table)

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncConnection]:
        try:
            async with self._reader.connect() as connection:
                yield connection
        except Exception as error:
            if not unavailable(error):
                raise
            raise StorageUnavailable(str(error)) from error

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncConnection]:
        """One transaction; an IntegrityError leaves it (rolled back) for the caller."""
        try:
            async with AsyncExitStack() as stack:
                if self._write_lock is not None:
                    await stack.enter_async_context(self._write_lock)
                yield await stack.enter_async_context(self._writer.begin())
        except Exception as error:
            if not unavailable(error):
                raise
            raise StorageUnavailable(str(error)) from error
