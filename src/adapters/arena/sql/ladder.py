"""The ladder's ports in SQL (spec B8), for SQLite and PostgreSQL, on the arena's engine.

Every change that depends on what is stored is one transaction that holds what it read:
on SQLite the transaction begins IMMEDIATE (the database's one write lock); on
PostgreSQL the row read is locked (SELECT … FOR UPDATE), or, where no row exists yet to
lock (an owner's ranked bots counted), a transaction-scoped advisory lock is taken. A bot
is kept in one live pairing by the primary key of `arena_ladder_busy`, so two instances
opening pairings at once cannot both take it. Reads of several tables (the standings and
the key they are folded through) run in one snapshot: REPEATABLE READ on PostgreSQL,
SQLite's own transactions.

`SqlLadder` makes the five stores over one engine; on SQLite they share one asyncio lock
for their writers, as the arena's repository does, so one process's writers queue here
rather than poll the database's lock.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Collection, Mapping
from types import MappingProxyType
from typing import Any

import msgspec
from sqlalchemy import and_, delete, insert, or_, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from noitu.adapters.arena.sql.models import (
    ladder_busy,
    ladder_lease,
    ladder_members,
    ladder_pairings,
    ladder_previous,
    ladder_results,
    ladder_standings,
    ladder_state,
)
from noitu.adapters.arena.sql.transactions import SqlTransactions
from noitu.domain.arena.board import Side
from noitu.domain.arena.ladder.members import Member
from noitu.domain.arena.ladder.pairing import Pairing, PairingEnd
from noitu.domain.arena.ladder.rating import Rating
from noitu.domain.arena.ladder.results import LadderResult, ResultKey
from noitu.domain.arena.ladder.standings import Standing, Standings

Row = Mapping[str, Any]

#: The one row of `arena_ladder_state`, and the lease's name.
_STATE_ID = 1
_LEASE = "scheduler"
#: The first key of PostgreSQL's two-key advisory locks taken by the ladder ("ldr").
_ADVISORY_SPACE = 0x6C6472


class _Link(SqlTransactions):
    """One engine's transactions, shared by the five stores; reads are snapshots."""

    def __init__(self, engine: AsyncEngine) -> None:
        super().__init__(engine, snapshot_reads=True)

    def locked(self, query: Any) -> Any:
        return query.with_for_update() if self.postgres else query

    async def advisory(self, connection: AsyncConnection, name: str) -> None:
        """Hold PostgreSQL's lock on `name` until the transaction ends (SQLite's write
        transaction holds the whole database already)."""
        if self.postgres:
            await connection.execute(
                text("SELECT pg_advisory_xact_lock(:space, :key)"),
                {"space": _ADVISORY_SPACE, "key": zlib.crc32(name.encode()) - 2**31},
            )

    def upsert(self, table: Any) -> Any:
        return (postgresql if self.postgres else sqlite).insert(table)


class SqlLadder:
    """The ladder's stores on an engine made by `engine.create_engine`, migrated by the
    caller (who disposes of it)."""

    def __init__(self, engine: AsyncEngine) -> None:
        link = _Link(engine)
        self.results = SqlLadderResults(link)
        self.standings = SqlLadderStandings(link)
        self.members = SqlLadderMembers(link)
        self.pairings = SqlLadderPairings(link)
        self.lease = SqlLadderLease(link)


class SqlLadderResults:
    def __init__(self, link: _Link) -> None:
        self._link = link

    async def append(self, result: LadderResult) -> bool:
        try:
            async with self._link.write() as connection:
                await connection.execute(insert(ladder_results).values(**_result_row(result)))
        except IntegrityError:
            return False  # its match is stored already
        return True

    async def after(self, key: ResultKey | None) -> list[LadderResult]:
        query = select(ladder_results)
        if key is not None:
            ended, match = ladder_results.c.ended_ms, ladder_results.c.match_id
            query = query.where(
                or_(ended > key.ended_ms, and_(ended == key.ended_ms, match > key.match_id))
            )
        query = query.order_by(ladder_results.c.ended_ms, ladder_results.c.match_id)
        async with self._link.read() as connection:
            rows = (await connection.execute(query)).mappings().all()
        return [_result_of(row) for row in rows]

    async def rated(self, match_ids: Collection[str]) -> set[str]:
        if not match_ids:
            return set()
        query = select(ladder_results.c.match_id).where(
            ladder_results.c.match_id.in_(list(match_ids))
        )
        async with self._link.read() as connection:
            return set((await connection.execute(query)).scalars().all())


class SqlLadderStandings:
    def __init__(self, link: _Link) -> None:
        self._link = link

    async def load(self) -> Standings:
        async with self._link.read() as connection:
            state = (
                await connection.execute(
                    select(ladder_state).where(ladder_state.c.id == _STATE_ID)
                )
            ).mappings().first()
            rows = (await connection.execute(select(ladder_standings))).mappings().all()
        by_bot = {row["bot"]: _standing_of(row) for row in rows}
        return Standings(MappingProxyType(by_bot), _through_of(state))

    async def replace(self, standings: Standings, *, expected: ResultKey | None) -> bool:
        through = standings.through
        async with self._link.write() as connection:
            await connection.execute(
                self._link.upsert(ladder_state)
                .values(id=_STATE_ID, through_ms=None, through_match=None)
                .on_conflict_do_nothing(index_elements=[ladder_state.c.id])
            )
            state = (
                await connection.execute(
                    self._link.locked(select(ladder_state).where(ladder_state.c.id == _STATE_ID))
                )
            ).mappings().one()
            if _through_of(state) != expected:
                return False
            await connection.execute(
                update(ladder_state)
                .where(ladder_state.c.id == _STATE_ID)
                .values(
                    through_ms=None if through is None else through.ended_ms,
                    through_match=None if through is None else through.match_id,
                )
            )
            await connection.execute(delete(ladder_standings))
            rows = [_standing_row(bot, standing) for bot, standing in standings.by_bot.items()]
            if rows:
                await connection.execute(insert(ladder_standings), rows)
        return True


class SqlLadderMembers:
    def __init__(self, link: _Link) -> None:
        self._link = link

    async def members(self) -> list[Member]:
        async with self._link.read() as connection:
            rows = (
                await connection.execute(select(ladder_members).order_by(ladder_members.c.seq))
            ).mappings().all()
        return [_member_of(row) for row in rows]

    async def get(self, bot: str) -> Member | None:
        async with self._link.read() as connection:
            row = (
                await connection.execute(select(ladder_members).where(ladder_members.c.bot == bot))
            ).mappings().first()
        return None if row is None else _member_of(row)

    async def rank(self, member: Member, *, max_per_owner: int) -> bool:
        if member.owner is None:
            raise ValueError("the built-in bots are members without being stored")
        try:
            async with self._link.write() as connection:
                # Serialises the owner's rankings: the count below stays true until commit.
                await self._link.advisory(connection, f"owner:{member.owner}")
                owned = (
                    await connection.execute(
                        select(ladder_members.c.bot).where(ladder_members.c.owner == member.owner)
                    )
                ).scalars().all()
                if member.bot in owned:
                    return True
                if len(owned) >= max_per_owner:
                    return False
                await connection.execute(insert(ladder_members).values(**_member_row(member)))
        except IntegrityError:
            return True  # ranked by a request of the same owner's that raced this one
        return True

    async def unrank(self, bot: str) -> bool:
        async with self._link.write() as connection:
            result = await connection.execute(
                delete(ladder_members).where(ladder_members.c.bot == bot)
            )
        return bool(result.rowcount)

    async def update(self, bot: str, change: Callable[[Member], Member]) -> Member | None:
        async with self._link.write() as connection:
            row = (
                await connection.execute(
                    self._link.locked(select(ladder_members).where(ladder_members.c.bot == bot))
                )
            ).mappings().first()
            if row is None:
                return None
            changed = change(_member_of(row))
            values = _member_row(changed)
            await connection.execute(
                update(ladder_members).where(ladder_members.c.bot == bot).values(**values)
            )
        return changed


class SqlLadderPairings:
    def __init__(self, link: _Link) -> None:
        self._link = link

    async def live(self) -> list[Pairing]:
        async with self._link.read() as connection:
            rows = (
                await connection.execute(
                    select(ladder_pairings).order_by(
                        ladder_pairings.c.started_ms, ladder_pairings.c.id
                    )
                )
            ).mappings().all()
        return [_pairing_of(row) for row in rows]

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
            row = (
                await connection.execute(
                    self._link.locked(
                        select(ladder_pairings).where(ladder_pairings.c.id == pairing_id)
                    )
                )
            ).mappings().first()
            if row is None:
                return None
            changed = change(_pairing_of(row))
            if changed.id != pairing_id or changed.bots != (row["first"], row["second"]):
                raise ValueError("a pairing keeps its id and its bots")
            await connection.execute(
                update(ladder_pairings)
                .where(ladder_pairings.c.id == pairing_id)
                .values(**_pairing_row(changed))
            )
        return changed

    async def close(self, pairing_id: str, replay: Pairing | None = None) -> None:
        async with self._link.write() as connection:
            row = (
                await connection.execute(
                    self._link.locked(
                        select(ladder_pairings).where(ladder_pairings.c.id == pairing_id)
                    )
                )
            ).mappings().first()
            if row is None:
                raise LookupError(f"no live pairing {pairing_id}")
            await connection.execute(
                delete(ladder_busy).where(ladder_busy.c.pairing_id == pairing_id)
            )
            await connection.execute(
                delete(ladder_pairings).where(ladder_pairings.c.id == pairing_id)
            )
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
                await connection.execute(
                    delete(ladder_busy).where(ladder_busy.c.pairing_id.in_(ids))
                )
                await connection.execute(
                    delete(ladder_pairings).where(ladder_pairings.c.id.in_(ids))
                )
        return len(ids)


class SqlLadderLease:
    """The lease is one row: taken when free, expired or already this holder's, in one
    conditional upsert."""

    def __init__(self, link: _Link) -> None:
        self._link = link

    async def acquire(self, holder: str, now_ms: int, ttl_ms: int) -> bool:
        upsert = self._link.upsert(ladder_lease)
        statement = upsert.values(
            name=_LEASE, holder=holder, until_ms=now_ms + ttl_ms
        ).on_conflict_do_update(
            index_elements=[ladder_lease.c.name],
            set_={"holder": upsert.excluded.holder, "until_ms": upsert.excluded.until_ms},
            where=or_(ladder_lease.c.holder == holder, ladder_lease.c.until_ms <= now_ms),
        )
        async with self._link.write() as connection:
            result = await connection.execute(statement)
        return bool(result.rowcount)

    async def release(self, holder: str) -> None:
        async with self._link.write() as connection:
            await connection.execute(
                delete(ladder_lease).where(
                    ladder_lease.c.name == _LEASE, ladder_lease.c.holder == holder
                )
            )


# --- rows -----------------------------------------------------------------------------


async def _insert_pairing(connection: AsyncConnection, pairing: Pairing) -> None:
    await connection.execute(insert(ladder_pairings).values(**_pairing_row(pairing)))
    await connection.execute(
        insert(ladder_busy),
        [{"bot": bot, "pairing_id": pairing.id} for bot in pairing.bots],
    )


def _result_row(result: LadderResult) -> dict[str, Any]:
    return {
        "match_id": result.match_id,
        "pairing_id": result.pairing_id,
        "p1": result.p1,
        "p2": result.p2,
        "winner": None if result.winner is None else result.winner.value,
        "ended_ms": result.ended_ms,
    }


def _result_of(row: Row) -> LadderResult:
    winner = None if row["winner"] is None else Side(row["winner"])
    return LadderResult(
        row["match_id"], row["pairing_id"], row["p1"], row["p2"], winner, row["ended_ms"]
    )


def _through_of(state: Row | None) -> ResultKey | None:
    if state is None or state["through_ms"] is None:
        return None
    return ResultKey(state["through_ms"], state["through_match"])


def _standing_row(bot: str, standing: Standing) -> dict[str, Any]:
    return {
        "bot": bot,
        "mu": standing.rating.mu,
        "sigma": standing.rating.sigma,
        "wins": standing.wins,
        "draws": standing.draws,
        "losses": standing.losses,
        "last_game_ms": standing.last_game_ms,
    }


def _standing_of(row: Row) -> Standing:
    return Standing(
        rating=Rating(float(row["mu"]), float(row["sigma"])),
        wins=row["wins"],
        draws=row["draws"],
        losses=row["losses"],
        last_game_ms=row["last_game_ms"],
    )


def _member_row(member: Member) -> dict[str, Any]:
    return {
        "bot": member.bot,
        "owner": member.owner,
        "created_ms": member.created_ms,
        "failures_in_row": member.failures_in_row,
        "suspended": member.suspended,
        "placement_step": member.placement_step,
    }


def _member_of(row: Row) -> Member:
    return Member(
        bot=row["bot"],
        owner=row["owner"],
        created_ms=row["created_ms"],
        failures_in_row=row["failures_in_row"],
        suspended=bool(row["suspended"]),
        placement_step=row["placement_step"],
    )


class _End(msgspec.Struct, frozen=True, array_like=True):
    match_id: str
    rated: bool
    winner: str | None


_ENDS = msgspec.json.Decoder(list[_End])


def _pairing_row(pairing: Pairing) -> dict[str, Any]:
    ends = [_End(end.match_id, end.rated, end.winner) for end in pairing.ends]
    return {
        "id": pairing.id,
        "seed": pairing.seed,
        "first": pairing.first,
        "second": pairing.second,
        "placement": pairing.placement,
        "started_ms": pairing.started_ms,
        "ends": msgspec.json.encode(ends).decode(),
        "instance": pairing.instance,
    }


def _pairing_of(row: Row) -> Pairing:
    ends = tuple(PairingEnd(end.match_id, end.rated, end.winner) for end in _ENDS.decode(row["ends"]))
    return Pairing(
        id=row["id"],
        seed=row["seed"],
        first=row["first"],
        second=row["second"],
        placement=bool(row["placement"]),
        started_ms=row["started_ms"],
        ends=ends,
        instance=row["instance"],
    )
