"""The rated results, the standings they fold into, and each bot's points."""

from __future__ import annotations

from collections.abc import Collection
from types import MappingProxyType

from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from noitu.adapters.arena.sql.ladder.link import STATE_ID, LadderLink
from noitu.adapters.arena.sql.ladder.rows import (
    point_of,
    point_row,
    result_of,
    result_row,
    sorts_after,
    sorts_before,
    standing_of,
    standing_row,
    through_of,
)
from noitu.adapters.arena.sql.models import (
    ladder_members,
    ladder_points,
    ladder_results,
    ladder_standings,
    ladder_state,
)
from noitu.application.arena.ladder.ports import Written
from noitu.domain.arena.ladder.rating import FIRST_RATING
from noitu.domain.arena.ladder.results import LadderResult, ResultKey
from noitu.domain.arena.ladder.standings import Folded, StandingPoint, Standings

#: Rows one INSERT statement carries at most (a rebuild writes every point).
_BATCH = 5_000
#: Newest first, as the points are read.
_NEWEST = (ladder_points.c.ended_ms.desc(), ladder_points.c.match_id.desc())


class SqlLadderResults:
    def __init__(self, link: LadderLink) -> None:
        self._link = link

    async def after(self, key: ResultKey | None) -> list[LadderResult]:
        query = select(ladder_results)
        if key is not None:
            query = query.where(sorts_after(ladder_results, key))
        query = query.order_by(ladder_results.c.ended_ms, ladder_results.c.match_id)
        async with self._link.read() as connection:
            rows = (await connection.execute(query)).mappings().all()
        return [result_of(row) for row in rows]

    async def rated(self, match_ids: Collection[str]) -> set[str]:
        if not match_ids:
            return set()
        query = select(ladder_results.c.match_id).where(
            ladder_results.c.match_id.in_(list(match_ids))
        )
        async with self._link.read() as connection:
            return set((await connection.execute(query)).scalars().all())


class SqlLadderStandings:
    def __init__(self, link: LadderLink) -> None:
        self._link = link

    async def load(self, bots: Collection[str] | None = None) -> Standings:
        query = select(ladder_standings)
        if bots is not None:
            query = query.where(ladder_standings.c.bot.in_(list(bots)))
        async with self._link.read() as connection:
            state = (
                await connection.execute(
                    select(ladder_state).where(ladder_state.c.id == STATE_ID)
                )
            ).mappings().first()
            rows = [] if bots is not None and not bots else (
                (await connection.execute(query)).mappings().all()
            )
        by_bot = {row["bot"]: standing_of(row, row["last_game_ms"]) for row in rows}
        return Standings(MappingProxyType(by_bot), through_of(state))

    async def load_before(self, key: ResultKey, bots: Collection[str]) -> Standings:
        earlier = sorts_before(ladder_points, key)
        by_bot = {}
        async with self._link.read() as connection:
            last = (
                await connection.execute(
                    select(ladder_points.c.ended_ms, ladder_points.c.match_id)
                    .where(earlier).order_by(*_NEWEST).limit(1)
                )
            ).first()
            for bot in bots:
                row = (
                    await connection.execute(
                        select(ladder_points)
                        .where(ladder_points.c.bot == bot, earlier).order_by(*_NEWEST).limit(1)
                    )
                ).mappings().first()
                if row is not None:
                    by_bot[bot] = point_of(row).standing
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
            if through_of(state) != expected:
                return Written.MOVED
            if adding is not None:
                await connection.execute(insert(ladder_results).values(**result_row(adding)))
            await connection.execute(
                update(ladder_state)
                .where(ladder_state.c.id == STATE_ID)
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
            await connection.execute(delete(ladder_points).where(sorts_after(ladder_points, since)))
        points = [point_row(point) for point in folded.points]
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
        rows = [standing_row(bot, standing) for bot, standing in changed.items()]
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

    def __init__(self, link: LadderLink) -> None:
        self._link = link

    async def points(
        self, bot: str, before: ResultKey | None, limit: int
    ) -> list[StandingPoint]:
        query = select(ladder_points).where(ladder_points.c.bot == bot)
        if before is not None:
            query = query.where(sorts_before(ladder_points, before))
        query = query.order_by(*_NEWEST).limit(limit)
        async with self._link.read() as connection:
            rows = (await connection.execute(query)).mappings().all()
        return [point_of(row) for row in rows]
