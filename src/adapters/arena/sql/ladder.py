"""The ladder's ports in SQL (spec B8), for SQLite and PostgreSQL, on the arena's engine.

Every change that depends on what is stored is one transaction that holds what it read:
on SQLite the transaction begins IMMEDIATE (the database's one write lock); on
PostgreSQL the row read is locked (SELECT … FOR UPDATE), or, where no row exists yet to
lock (an owner's ranked bots counted), a transaction-scoped advisory lock is taken. A bot
is kept in one live pairing by the primary key of `arena_ladder_busy`, so two instances
opening pairings at once cannot both take it. Reads of several tables (the standings and
the key they are folded through) run in one snapshot: REPEATABLE READ on PostgreSQL,
SQLite's own transactions.

A rated result is stored by the standings' write, with the standings, the points and
the members' place keys it moves, under the lock of `arena_ladder_state`'s one row; the
reads of the table and of a bot's rating over time are a fixed number of statements
whatever the number of rows (two for a page of the table, through the index of its
order on the members' rows), never a fold.

`SqlLadder` makes the stores over one engine; on SQLite they share one asyncio lock
for their writers, as the arena's repository does, so one process's writers queue here
rather than poll the database's lock.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import msgspec
from sqlalchemy import (
    Boolean,
    Double,
    Integer,
    String,
    and_,
    bindparam,
    cast,
    delete,
    func,
    insert,
    literal,
    null,
    or_,
    select,
    text,
    tuple_,
    union_all,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from noitu.adapters.arena.sql.models import (
    BigKey,
    bots,
    ladder_busy,
    ladder_lease,
    ladder_members,
    ladder_pairings,
    ladder_points,
    ladder_previous,
    ladder_results,
    ladder_standings,
    ladder_state,
)
from noitu.adapters.arena.sql.transactions import SqlTransactions
from noitu.application.arena.ladder.ports import TableEntry, Written
from noitu.application.arena.ports import Language
from noitu.domain.arena.board import Side
from noitu.domain.arena.ladder.members import Member
from noitu.domain.arena.ladder.pairing import Pairing, PairingEnd
from noitu.domain.arena.ladder.rating import FIRST_RATING, ORDINAL_SIGMAS, Rating
from noitu.domain.arena.ladder.results import LadderResult, ResultKey
from noitu.domain.arena.ladder.standings import (
    NEW_STANDING,
    Folded,
    Standing,
    StandingPoint,
    Standings,
)

Row = Mapping[str, Any]

#: The one row of `arena_ladder_state`, and the lease's name.
_STATE_ID = 1
_LEASE = "scheduler"
#: The first key of PostgreSQL's two-key advisory locks taken by the ladder ("ldr").
_ADVISORY_SPACE = 0x6C6472
#: Rows one INSERT statement carries at most (a rebuild writes every point).
_BATCH = 5_000


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

    async def hold_standings(self, connection: AsyncConnection) -> Row:
        """Lock `arena_ladder_state`'s one row (made if missing) until the transaction
        ends: every writer of the standings, or of what copies them, holds it."""
        await connection.execute(
            self.upsert(ladder_state)
            .values(id=_STATE_ID, through_ms=None, through_match=None)
            .on_conflict_do_nothing(index_elements=[ladder_state.c.id])
        )
        return (
            await connection.execute(
                self.locked(select(ladder_state).where(ladder_state.c.id == _STATE_ID))
            )
        ).mappings().one()


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
        self.history = SqlLadderHistory(link)
        self.listing = SqlLadderListing(link)


def _before(table: Any, key: ResultKey) -> Any:
    """`table`'s rows whose (ended_ms, match_id) sorts before `key`."""
    ended, match = table.c.ended_ms, table.c.match_id
    return or_(ended < key.ended_ms, and_(ended == key.ended_ms, match < key.match_id))


def _after(table: Any, key: ResultKey) -> Any:
    ended, match = table.c.ended_ms, table.c.match_id
    return or_(ended > key.ended_ms, and_(ended == key.ended_ms, match > key.match_id))


class SqlLadderResults:
    def __init__(self, link: _Link) -> None:
        self._link = link

    async def after(self, key: ResultKey | None) -> list[LadderResult]:
        query = select(ladder_results)
        if key is not None:
            query = query.where(_after(ladder_results, key))
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

    async def load(self, bots: Collection[str] | None = None) -> Standings:
        query = select(ladder_standings)
        if bots is not None:
            query = query.where(ladder_standings.c.bot.in_(list(bots)))
        async with self._link.read() as connection:
            state = (
                await connection.execute(
                    select(ladder_state).where(ladder_state.c.id == _STATE_ID)
                )
            ).mappings().first()
            rows = [] if bots is not None and not bots else (
                (await connection.execute(query)).mappings().all()
            )
        by_bot = {row["bot"]: _standing_of(row) for row in rows}
        return Standings(MappingProxyType(by_bot), _through_of(state))

    async def load_before(self, key: ResultKey, bots: Collection[str]) -> Standings:
        newest = (ladder_points.c.ended_ms.desc(), ladder_points.c.match_id.desc())
        earlier = _before(ladder_points, key)
        by_bot = {}
        async with self._link.read() as connection:
            last = (
                await connection.execute(
                    select(ladder_points.c.ended_ms, ladder_points.c.match_id)
                    .where(earlier).order_by(*newest).limit(1)
                )
            ).first()
            for bot in bots:
                row = (
                    await connection.execute(
                        select(ladder_points)
                        .where(ladder_points.c.bot == bot, earlier).order_by(*newest).limit(1)
                    )
                ).mappings().first()
                if row is not None:
                    by_bot[bot] = _point_of(row).standing
        through = None if last is None else ResultKey(last.ended_ms, last.match_id)
        return Standings(MappingProxyType(by_bot), through)

    async def replace(
        self, folded: Folded, *, expected: ResultKey | None, adding: LadderResult | None = None
    ) -> Written:
        through = folded.standings.through
        async with self._link.write() as connection:
            state = await self._link.hold_standings(connection)
            if adding is not None:
                stored = await connection.execute(
                    select(ladder_results.c.match_id)
                    .where(ladder_results.c.match_id == adding.match_id)
                )
                if stored.first() is not None:
                    return Written.KNOWN
            if _through_of(state) != expected:
                return Written.MOVED
            if adding is not None:
                await connection.execute(insert(ladder_results).values(**_result_row(adding)))
            await connection.execute(
                update(ladder_state)
                .where(ladder_state.c.id == _STATE_ID)
                .values(
                    through_ms=None if through is None else through.ended_ms,
                    through_match=None if through is None else through.match_id,
                )
            )
            await self._write_points(connection, folded)
        return Written.WRITTEN

    async def _write_points(self, connection: AsyncConnection, folded: Folded) -> None:
        """Points after `folded.since` replaced by the fold's, and the standing of each
        bot they name written (the whole history, standings too, for `since` None)."""
        since = folded.since
        if since is None:
            await connection.execute(delete(ladder_points))
            await connection.execute(delete(ladder_standings))
        else:
            await connection.execute(delete(ladder_points).where(_after(ladder_points, since)))
        points = [_point_row(point) for point in folded.points]
        for start in range(0, len(points), _BATCH):
            await connection.execute(insert(ladder_points), points[start : start + _BATCH])
        changed = {point.bot: folded.standings.of(point.bot) for point in folded.points}
        # The ranked bots' place keys follow their standings.
        if since is None:
            await connection.execute(
                update(ladder_members).values(ordinal=FIRST_RATING.ordinal, games=0)
            )
        if not changed:
            return
        await connection.execute(
            update(ladder_members)
            .where(ladder_members.c.bot == bindparam("named"))
            .values(ordinal=bindparam("new_ordinal"), games=bindparam("new_games")),
            [
                {"named": bot, "new_ordinal": standing.rating.ordinal, "new_games": standing.games}
                for bot, standing in changed.items()
            ],
        )
        rows = [_standing_row(bot, standing) for bot, standing in changed.items()]
        if since is None:
            for start in range(0, len(rows), _BATCH):
                await connection.execute(insert(ladder_standings), rows[start : start + _BATCH])
            return
        upsert = self._link.upsert(ladder_standings)
        await connection.execute(
            upsert.values(rows).on_conflict_do_update(
                index_elements=[ladder_standings.c.bot],
                set_={
                    name: getattr(upsert.excluded, name)
                    for name in ("mu", "sigma", "wins", "draws", "losses", "last_game_ms")
                },
            )
        )


class SqlLadderHistory:
    """Each bot's points: its rating over time, a page at a time (the primary key,
    bot then end time then match id, is the page's index)."""

    def __init__(self, link: _Link) -> None:
        self._link = link

    async def points(
        self, bot: str, before: ResultKey | None, limit: int
    ) -> list[StandingPoint]:
        query = select(ladder_points).where(ladder_points.c.bot == bot)
        if before is not None:
            query = query.where(_before(ladder_points, before))
        query = query.order_by(
            ladder_points.c.ended_ms.desc(), ladder_points.c.match_id.desc()
        ).limit(limit)
        async with self._link.read() as connection:
            rows = (await connection.execute(query)).mappings().all()
        return [_point_of(row) for row in rows]


@dataclass(frozen=True, slots=True)
class _TableStatements:
    founders: Any  # the built-ins' rows with `ahead`: the ranked bots before each
    uploads: Any  # bound: skip, take
    one: Any  # bound: bot
    ahead: Any  # bound: a row's keys (_KEY_NAMES)


#: A row's place keys, as bound to a statement: μ − 3σ, games, −created_ms, strength,
#: −seq (larger first, each).
_KEY_NAMES = ("key_ordinal", "key_games", "key_created", "key_strength", "key_seq")


def _place_key(row: Row) -> tuple[float, int, int, int, int]:
    """A row's place keys, larger first."""
    return (row["ordinal"], row["games"], -row["created_ms"], row["strength"], -row["seq"])


class SqlLadderListing:
    """The table in SQL, ordered as the domain's `ladder_table` orders it (a contract
    test compares the two): μ − 3σ (as the domain computed it: the members' copy of
    their standing's), then more games, the older bot, the stronger built-in, the one
    listed first (the built-ins in their listed order, then the ranked bots in ranking
    order).

    The ranked bots are read through the index of the table's order on their member
    rows, so nothing sorts them; the built-ins (a few rows) are read with how many
    ranked bots come before each (index ranges), which places them among the others.
    A page is two statements (the built-ins, then the ranked bots it shows), one bot's
    place two or three, all in one snapshot: neither reads more rows than it skips and
    shows, nor builds more in Python than it shows, whatever the number of ranked
    bots."""

    def __init__(self, link: _Link) -> None:
        self._link = link
        self._made: dict[tuple[str, ...], _TableStatements] = {}

    @staticmethod
    def _in_order(members: Any) -> list[Any]:
        """The table's order of the ranked bots (the index's)."""
        return [
            members.c.ordinal.desc(), members.c.games.desc(), members.c.created_ms,
            members.c.seq,
        ]

    @staticmethod
    def _uploads(chosen: Any = None) -> Any:
        """The ranked uploads that still exist (all, or the `chosen` subquery's seqs),
        with their names and standings, in the table's order."""
        members, standing = ladder_members, ladder_standings
        joined = members.join(bots, bots.c.id == members.c.bot).outerjoin(
            standing, standing.c.bot == members.c.bot
        )
        if chosen is not None:
            joined = chosen.join(joined, members.c.seq == chosen.c.seq)
        return (
            select(
                members.c.seq.label("seq"), members.c.bot, members.c.owner,
                members.c.created_ms, members.c.failures_in_row, members.c.suspended,
                members.c.placement_step, bots.c.name, bots.c.language,
                literal(0).label("strength"), members.c.ordinal, members.c.games,
                standing.c.mu, standing.c.sigma, standing.c.wins, standing.c.draws,
                standing.c.losses, standing.c.last_game_ms,
            )
            .select_from(joined)
            .order_by(*SqlLadderListing._in_order(members))
        )

    @staticmethod
    def _ahead(ordinal: Any, games: Any, created: Any, strength: Any, seq: Any) -> Any:
        """How many ranked bots come before a row of these keys (`created` and `seq`
        negated): ahead in μ − 3σ (an index range), or equal in it and ahead after."""
        members = ladder_members
        ranked = members.join(bots, bots.c.id == members.c.bot)
        higher = select(func.count()).select_from(ranked).where(members.c.ordinal > ordinal)
        level = select(func.count()).select_from(ranked).where(
            members.c.ordinal == ordinal,
            tuple_(members.c.games, -members.c.created_ms, literal(0), -members.c.seq)
            > tuple_(games, created, strength, seq),
        )
        return higher.scalar_subquery() + level.scalar_subquery()

    def _founders(self, builtins: Sequence[str]) -> Any:
        """The built-ins, each with its standing if it has one, its place keys as the
        domain computes them (μ − 3.0 × σ: the same IEEE doubles) and `ahead`."""
        standing = ladder_standings
        each = [
            select(
                literal(name, String).label("bot"),
                literal(index).label("strength"),
                literal(index - len(builtins)).label("seq"),
            )
            for index, name in enumerate(builtins)
        ]
        named = (union_all(*each) if len(each) > 1 else each[0]).subquery("builtin")
        mu = func.coalesce(standing.c.mu, FIRST_RATING.mu)
        sigma = func.coalesce(standing.c.sigma, FIRST_RATING.sigma)
        games = (
            func.coalesce(standing.c.wins, 0) + func.coalesce(standing.c.draws, 0)
            + func.coalesce(standing.c.losses, 0)
        )
        founders = select(
            cast(named.c.seq, BigKey).label("seq"), named.c.bot,
            cast(null(), String).label("owner"), cast(literal(0), BigKey).label("created_ms"),
            literal(0).label("failures_in_row"), literal(False, Boolean).label("suspended"),
            cast(null(), Integer).label("placement_step"), cast(null(), String).label("name"),
            cast(null(), String).label("language"), named.c.strength,
            (mu - literal(ORDINAL_SIGMAS, Double) * sigma).label("ordinal"),
            games.label("games"), standing.c.mu, standing.c.sigma, standing.c.wins,
            standing.c.draws, standing.c.losses, standing.c.last_game_ms,
        ).select_from(named.outerjoin(standing, standing.c.bot == named.c.bot)).subquery()
        return select(
            founders,
            self._ahead(
                founders.c.ordinal, founders.c.games, literal(0), founders.c.strength,
                -founders.c.seq,
            ).label("ahead"),
        )

    def _statements(self, builtins: Sequence[str]) -> _TableStatements:
        """The statements, built once for these built-ins (values bound at each call,
        so the database and SQLAlchemy reuse them)."""
        key = tuple(builtins)
        made = self._made.get(key)
        if made is None:
            kinds = (Double(), Integer(), BigKey, Integer(), BigKey)
            keys = [
                bindparam(name, type_=kind) for name, kind in zip(_KEY_NAMES, kinds, strict=True)
            ]
            members = ladder_members
            # The page's ranked bots: their seqs skipped and taken through the index
            # alone (it holds the bot, for the check that it still exists), then joined.
            chosen = (
                select(members.c.seq)
                .select_from(members.join(bots, bots.c.id == members.c.bot))
                .order_by(*self._in_order(members))
                .limit(bindparam("take"))
                .offset(bindparam("skip"))
                .subquery("chosen")
            )
            made = self._made[key] = _TableStatements(
                founders=self._founders(key) if key else None,
                uploads=self._uploads(chosen),
                one=self._uploads().order_by(None).where(members.c.bot == bindparam("bot")),
                ahead=select(self._ahead(*keys)),
            )
        return made

    async def _placed_founders(
        self, connection: AsyncConnection, made: _TableStatements
    ) -> list[tuple[int, Row]]:
        """Each built-in's rank and row."""
        if made.founders is None:
            return []
        rows = (await connection.execute(made.founders)).mappings().all()
        return [
            (
                row["ahead"] + 1
                + sum(_place_key(other) > _place_key(row) for other in rows if other is not row),
                row,
            )
            for row in rows
        ]

    async def page(self, builtins: Sequence[str], after: int, limit: int) -> list[TableEntry]:
        made = self._statements(builtins)
        async with self._link.read() as connection:
            founders = await self._placed_founders(connection, made)
            placed = {rank: row for rank, row in founders if after < rank <= after + limit}
            earlier = sum(rank <= after for rank, _ in founders)
            uploads = (
                await connection.execute(
                    made.uploads, {"skip": after - earlier, "take": limit - len(placed)}
                )
            ).mappings().all()
        shown, rest = [], iter(uploads)
        for rank in range(after + 1, after + limit + 1):
            row = placed.get(rank) or next(rest, None)
            if row is None:
                break  # the table's end
            shown.append(_entry_of(rank, row))
        return shown

    async def place(self, bot: str, builtins: Sequence[str]) -> TableEntry | None:
        made = self._statements(builtins)
        async with self._link.read() as connection:
            founders = await self._placed_founders(connection, made)
            for rank, row in founders:
                if row["bot"] == bot:
                    return _entry_of(rank, row)
            row = (await connection.execute(made.one, {"bot": bot})).mappings().first()
            if row is None:
                return None
            keys = _place_key(row)
            ahead = (
                await connection.execute(made.ahead, dict(zip(_KEY_NAMES, keys, strict=True)))
            ).scalar_one()
        return _entry_of(ahead + 1 + sum(_place_key(f) > keys for _, f in founders), row)

    async def existing(self, bots_asked: Collection[str]) -> set[str]:
        if not bots_asked:
            return set()
        query = select(bots.c.id).where(bots.c.id.in_(list(bots_asked)))
        async with self._link.read() as connection:
            return set((await connection.execute(query)).scalars().all())


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
                # Its place keys from its standing (a bot ranked again keeps its rating),
                # read under the standings writers' lock so none moves it meanwhile.
                await self._link.hold_standings(connection)
                standing = (
                    await connection.execute(
                        select(ladder_standings).where(ladder_standings.c.bot == member.bot)
                    )
                ).mappings().first()
                keys = NEW_STANDING if standing is None else _standing_of(standing)
                await connection.execute(
                    insert(ladder_members).values(
                        **_member_row(member), ordinal=keys.rating.ordinal, games=keys.games
                    )
                )
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


def _point_row(point: StandingPoint) -> dict[str, Any]:
    standing = point.standing
    return {
        "bot": point.bot,
        "ended_ms": point.key.ended_ms,
        "match_id": point.key.match_id,
        "mu": standing.rating.mu,
        "sigma": standing.rating.sigma,
        "wins": standing.wins,
        "draws": standing.draws,
        "losses": standing.losses,
    }


def _point_of(row: Row) -> StandingPoint:
    key = ResultKey(row["ended_ms"], row["match_id"])
    return StandingPoint(
        row["bot"],
        key,
        Standing(
            rating=Rating(float(row["mu"]), float(row["sigma"])),
            wins=row["wins"],
            draws=row["draws"],
            losses=row["losses"],
            last_game_ms=key.ended_ms,
        ),
    )


def _entry_of(rank: int, row: Row) -> TableEntry:
    standing = NEW_STANDING if row["mu"] is None else _standing_of(row)
    if row["owner"] is None:
        return TableEntry(rank, Member(bot=row["bot"], owner=None, created_ms=0), standing)
    return TableEntry(rank, _member_of(row), standing, row["name"], Language(row["language"]))


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
