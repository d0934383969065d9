"""One engine's transactions, shared by the ladder's stores, and the locks they take."""

from __future__ import annotations

import zlib

from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from noitu.adapters.arena.sql.ladder.rows import Row
from noitu.adapters.arena.sql.models import ladder_state
from noitu.adapters.arena.sql.transactions import SqlTransactions

#: The one row of `arena_ladder_state`.
STATE_ID = 1
#: The first key of PostgreSQL's two-key advisory locks taken by the ladder ("ldr").
_ADVISORY_SPACE = 0x6C6472


class LadderLink(SqlTransactions):
    """The stores' transactions; reads are snapshots."""

    def __init__(self, engine: AsyncEngine) -> None:
        super().__init__(engine, snapshot_reads=True)

    async def advisory(self, connection: AsyncConnection, name: str) -> None:
        """Hold PostgreSQL's lock on `name` until the transaction ends (SQLite's write
        transaction holds the whole database already)."""
        if self.postgres:
            await connection.execute(
                text("SELECT pg_advisory_xact_lock(:space, :key)"),
                {"space": _ADVISORY_SPACE, "key": zlib.crc32(name.encode()) - 2**31},
            )

    async def hold_standings(self, connection: AsyncConnection) -> Row:
        """Lock `arena_ladder_state`'s one row (made if missing) until the transaction
        ends: every writer of the standings, or of what copies them, holds it."""
        await connection.execute(
            self.upsert(ladder_state)
            .values(id=STATE_ID, through_ms=None, through_match=None)
            .on_conflict_do_nothing(index_elements=[ladder_state.c.id])
        )
        return (
            await connection.execute(
                self.locked(select(ladder_state).where(ladder_state.c.id == STATE_ID))
            )
        ).mappings().one()
