"""A named lease in the arena's database (`application/arena/storage.Lease`): one row of
`arena_ladder_lease` per name, taken when free, expired or already this holder's, in one
conditional upsert; so one holder at a time across every process and machine sharing
the database. The ladder's scheduler holds `scheduler` (B8), the retention sweep
`replay_sweep` (B14)."""

from __future__ import annotations

from sqlalchemy import delete, or_

from noitu.adapters.arena.sql.models import ladder_lease
from noitu.adapters.arena.sql.transactions import SqlTransactions

#: The retention sweep's lease (B14).
REPLAY_SWEEP = "replay_sweep"


class SqlLease:
    def __init__(self, transactions: SqlTransactions, name: str) -> None:
        self._transactions = transactions
        self._name = name

    async def acquire(self, holder: str, now_ms: int, ttl_ms: int) -> bool:
        upsert = self._transactions.upsert(ladder_lease)
        statement = upsert.values(
            name=self._name, holder=holder, until_ms=now_ms + ttl_ms
        ).on_conflict_do_update(
            index_elements=[ladder_lease.c.name],
            set_={"holder": upsert.excluded.holder, "until_ms": upsert.excluded.until_ms},
            where=or_(ladder_lease.c.holder == holder, ladder_lease.c.until_ms <= now_ms),
        )
        async with self._transactions.write() as connection:
            result = await connection.execute(statement)
        return bool(result.rowcount)

    async def release(self, holder: str) -> None:
        async with self._transactions.write() as connection:
            await connection.execute(
                delete(ladder_lease).where(
                    ladder_lease.c.name == self._name, ladder_lease.c.holder == holder
                )
            )
