"""The ladder's live pairings (a bot in one at a time), the opponents each bot met last,
and the scheduler's lease, in SQL."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from noitu.adapters.arena.sql.ladder.link import LadderLink
from noitu.adapters.arena.sql.ladder.rows import Row, pairing_of, pairing_row
from noitu.adapters.arena.sql.lease import SqlLease
from noitu.adapters.arena.sql.models import (
    ladder_busy,
    ladder_pairings,
    ladder_previous,
)
from noitu.domain.arena.ladder.pairing import Pairing

#: The lease's name.
_LEASE = "scheduler"


class SqlLadderPairings:
    def __init__(self, link: LadderLink) -> None:
        self._link = link

    async def live(self) -> list[Pairing]:
        query = select(ladder_pairings).order_by(ladder_pairings.c.started_ms, ladder_pairings.c.id)
        async with self._link.read() as connection:
            rows = (await connection.execute(query)).mappings().all()
        return [pairing_of(row) for row in rows]

    async def open(self, pairing: Pairing) -> bool:
        try:
            async with self._link.write() as connection:
                await _insert_pairing(connection, pairing)
        except IntegrityError:
            return False  # a bot is busy, or the id is taken
        return True

    async def update(
        self, pairing_id: str, change: Callable[[Pairing], Pairing]
    ) -> Pairing | None:
        async with self._link.write() as connection:
            row = await self._held(connection, pairing_id)
            if row is None:
                return None
            changed = change(pairing_of(row))
            if changed.id != pairing_id or changed.bots != (row["first"], row["second"]):
                raise ValueError("a pairing keeps its id and its bots")
            await connection.execute(
                update(ladder_pairings)
                .where(ladder_pairings.c.id == pairing_id)
                .values(**pairing_row(changed))
            )
        return changed

    async def close(self, pairing_id: str, replay: Pairing | None = None) -> None:
        async with self._link.write() as connection:
            row = await self._held(connection, pairing_id)
            if row is None:
                raise LookupError(f"no live pairing {pairing_id}")
            await _end(connection, [pairing_id])
            first, second = row["first"], row["second"]
            upsert = self._link.upsert(ladder_previous)
            await connection.execute(
                upsert.values([
                    {"bot": first, "opponent": second}, {"bot": second, "opponent": first},
                ]).on_conflict_do_update(
                    index_elements=[ladder_previous.c.bot],
                    set_={"opponent": upsert.excluded.opponent},
                )
            )
            if replay is not None:
                await _insert_pairing(connection, replay)

    async def previous_opponents(self) -> Mapping[str, str]:
        async with self._link.read() as connection:
            rows = (await connection.execute(select(ladder_previous))).all()
        return {bot: opponent for bot, opponent in rows}

    async def end_live(self, instance: str | None) -> int:
        query = select(ladder_pairings.c.id)
        if instance is not None:
            query = query.where(ladder_pairings.c.instance == instance)
        async with self._link.write() as connection:
            ids = (await connection.execute(self._link.locked(query))).scalars().all()
            if ids:
                await _end(connection, ids)
        return len(ids)

    async def _held(self, connection: AsyncConnection, pairing_id: str) -> Row | None:
        """The live pairing's row, locked until the transaction ends (None: none)."""
        query = select(ladder_pairings).where(ladder_pairings.c.id == pairing_id)
        return (await connection.execute(self._link.locked(query))).mappings().first()


class SqlLadderLease(SqlLease):
    """The scheduler's lease (B8): `lease.SqlLease` under its own name."""

    def __init__(self, link: LadderLink) -> None:
        super().__init__(link, _LEASE)


async def _insert_pairing(connection: AsyncConnection, pairing: Pairing) -> None:
    await connection.execute(insert(ladder_pairings).values(**pairing_row(pairing)))
    await connection.execute(
        insert(ladder_busy),
        [{"bot": bot, "pairing_id": pairing.id} for bot in pairing.bots],
    )


async def _end(connection: AsyncConnection, ids: Sequence[str]) -> None:
    """The pairings of `ids` end: their bots are free."""
    await connection.execute(delete(ladder_busy).where(ladder_busy.c.pairing_id.in_(ids)))
    await connection.execute(delete(ladder_pairings).where(ladder_pairings.c.id.in_(ids)))
