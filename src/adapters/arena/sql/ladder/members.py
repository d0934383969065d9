"""The ladder's members in SQL: the ranked bots, each owner's within its cap."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Select, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from noitu.adapters.arena.sql.ladder.link import LadderLink
from noitu.adapters.arena.sql.ladder.rows import member_of, member_row, standing_of
from noitu.adapters.arena.sql.models import ladder_members, ladder_standings
from noitu.domain.arena.ladder.members import Member
from noitu.domain.arena.ladder.standings import NEW_STANDING


def _one(bot: str) -> Select[Any]:
    return select(ladder_members).where(ladder_members.c.bot == bot)


class SqlLadderMembers:
    def __init__(self, link: LadderLink) -> None:
        self._link = link

    async def members(self) -> list[Member]:
        async with self._link.read() as connection:
            rows = (
                await connection.execute(select(ladder_members).order_by(ladder_members.c.seq))
            ).mappings().all()
        return [member_of(row) for row in rows]

    async def get(self, bot: str) -> Member | None:
        async with self._link.read() as connection:
            row = (await connection.execute(_one(bot))).mappings().first()
        return None if row is None else member_of(row)

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
                keys = NEW_STANDING if standing is None else standing_of(standing, None)
                await connection.execute(
                    insert(ladder_members).values(
                        **member_row(member), ordinal=keys.rating.ordinal, games=keys.games
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
            row = (await connection.execute(self._link.locked(_one(bot)))).mappings().first()
            if row is None:
                return None
            changed = change(member_of(row))
            await connection.execute(
                update(ladder_members).where(ladder_members.c.bot == bot)
                .values(**member_row(changed))
            )
        return changed

