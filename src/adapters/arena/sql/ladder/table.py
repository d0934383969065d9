"""The ladder's table in SQL: a page of it, and one bot's place."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Boolean,
    Double,
    Integer,
    String,
    bindparam,
    cast,
    func,
    literal,
    null,
    select,
    tuple_,
    union_all,
)
from sqlalchemy.ext.asyncio import AsyncConnection

from noitu.adapters.arena.sql.ladder.link import LadderLink
from noitu.adapters.arena.sql.ladder.rows import Row, entry_of
from noitu.adapters.arena.sql.models import BigKey, bots, ladder_members, ladder_standings
from noitu.application.arena.ladder.ports import TableEntry
from noitu.domain.arena.ladder.rating import FIRST_RATING, ORDINAL_SIGMAS


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

    def __init__(self, link: LadderLink) -> None:
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
            shown.append(entry_of(rank, row))
        return shown

    async def place(self, bot: str, builtins: Sequence[str]) -> TableEntry | None:
        made = self._statements(builtins)
        async with self._link.read() as connection:
            founders = await self._placed_founders(connection, made)
            for rank, row in founders:
                if row["bot"] == bot:
                    return entry_of(rank, row)
            row = (await connection.execute(made.one, {"bot": bot})).mappings().first()
            if row is None:
                return None
            keys = _place_key(row)
            ahead = (
                await connection.execute(made.ahead, dict(zip(_KEY_NAMES, keys, strict=True)))
            ).scalar_one()
        return entry_of(ahead + 1 + sum(_place_key(f) > keys for _, f in founders), row)

    async def existing(self, bots_asked: Collection[str]) -> set[str]:
        if not bots_asked:
            return set()
        query = select(bots.c.id).where(bots.c.id.in_(list(bots_asked)))
        async with self._link.read() as connection:
            return set((await connection.execute(query)).scalars().all())

