"""`BotCatalogue` and `MatchArchive` in SQL: one repository for SQLite and PostgreSQL.

Each method is one short transaction. The two that check a limit before they write
(`record_upload`, `add_bot` with `max_bots`) are atomic across connections and
instances: on PostgreSQL they lock the owner's row (SELECT … FOR UPDATE) before
counting, on SQLite their transaction begins IMMEDIATE (the database's write lock).
On SQLite the repository also queues its own writers on an asyncio lock: SQLite has one
writer at a time anyway, and a writer that finds the database locked polls it with
growing sleeps, which many connections of one process would do to each other.
Records come back as new values (`records.py`): changing one changes nothing stored.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from sqlalchemy import Select, and_, delete, func, insert, or_, select, union_all, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from noitu.adapters.arena.sql.models import bots, matches, owners, upload_events
from noitu.adapters.arena.sql.records import bot_of, bot_row, match_of, match_row, result_row
from noitu.adapters.arena.sql.transactions import SqlTransactions
from noitu.application.arena.records import (
    BotCursor,
    BotRecord,
    BuildStatus,
    MatchCursor,
    MatchRecord,
    MatchStatus,
    kept_stderr,
)
from noitu.application.arena.replay import SeatKind
from noitu.application.arena.retention import Retention
from noitu.application.arena.storage import AlreadyStored
from noitu.domain.arena.match import EndReason, Result

#: The bots that count toward an owner's cap: those that built.
_BUILT = bots.c.build_status == BuildStatus.OK.value

#: The stderr tails are read only by `match_stderr`: lists and records never carry them.
_STDERR_COLUMNS = (matches.c.p1_stderr, matches.c.p2_stderr)
_RECORD_COLUMNS = tuple(column for column in matches.c if column not in _STDERR_COLUMNS)


class SqlArenaRepository:
    """The arena's metadata on an `AsyncEngine` made by `engine.create_engine` (which
    configures SQLite's transactions); the caller migrates and disposes of it."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._transactions = SqlTransactions(engine)

    # --- transactions -----------------------------------------------------------------

    def _read(self) -> AbstractAsyncContextManager[AsyncConnection]:
        return self._transactions.read()

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncConnection]:
        """One transaction; a refused constraint is `AlreadyStored`."""
        try:
            async with self._transactions.write() as connection:
                yield connection
        except IntegrityError as error:
            raise AlreadyStored(str(error.orig)) from error

    async def _lock_owner(self, connection: AsyncConnection, key_hash: str, now_ms: int) -> None:
        """Create the owner when new and hold its row until the transaction ends."""
        sql = self._transactions
        await connection.execute(
            sql.upsert(owners).values(key_hash=key_hash, created_ms=now_ms)
            .on_conflict_do_nothing(index_elements=[owners.c.key_hash])
        )
        owner = select(owners.c.key_hash).where(owners.c.key_hash == key_hash)
        await connection.execute(sql.locked(owner))

    # --- owners and uploads -----------------------------------------------------------

    async def record_upload(self, owner: str, at_ms: int, *, window_ms: int, limit: int) -> bool:
        since = at_ms - window_ms
        async with self._write() as connection:
            await self._lock_owner(connection, owner, at_ms)
            await connection.execute(
                delete(upload_events).where(
                    upload_events.c.owner == owner, upload_events.c.at_ms <= since
                )
            )
            recent = await connection.scalar(
                select(func.count())
                .select_from(upload_events)
                .where(upload_events.c.owner == owner, upload_events.c.at_ms > since)
            )
            if (recent or 0) >= limit:
                return False
            await connection.execute(insert(upload_events).values(owner=owner, at_ms=at_ms))
        return True

    async def add_bot(self, bot: BotRecord, *, max_bots: int | None = None) -> bool:
        async with self._write() as connection:
            await self._lock_owner(connection, bot.owner, bot.created_ms)
            if max_bots is not None:
                stored = await connection.scalar(
                    select(func.count())
                    .select_from(bots)
                    .where(bots.c.owner == bot.owner, _BUILT)
                )
                if (stored or 0) >= max_bots:
                    return False
            await connection.execute(insert(bots).values(**bot_row(bot)))
        return True

    async def get_bot(self, bot_id: str) -> BotRecord | None:
        async with self._read() as connection:
            row = (await connection.execute(select(bots).where(bots.c.id == bot_id))).first()
        return None if row is None else bot_of(row._mapping)

    async def bots_of(self, owner: str) -> list[BotRecord]:
        query = (
            select(bots)
            .where(bots.c.owner == owner)
            .order_by(bots.c.created_ms.desc(), bots.c.id.desc())
        )
        return await self._bots(query)

    async def count_bots(self, owner: str) -> int:
        async with self._read() as connection:
            count = await connection.scalar(
                select(func.count()).select_from(bots).where(bots.c.owner == owner, _BUILT)
            )
        return int(count or 0)

    async def failed_builds(self, owner: str | None = None) -> list[BotRecord]:
        query = select(bots).where(bots.c.build_status == BuildStatus.FAILED.value)
        if owner is not None:
            query = query.where(bots.c.owner == owner)
        return await self._bots(query.order_by(bots.c.created_ms.desc(), bots.c.id.desc()))

    async def public_bots(self, limit: int, before: BotCursor | None = None) -> list[BotRecord]:
        query = select(bots).where(bots.c.public.is_(True))
        if before is not None:
            query = query.where(
                or_(
                    bots.c.created_ms < before.created_ms,
                    and_(bots.c.created_ms == before.created_ms, bots.c.id < before.bot_id),
                )
            )
        query = query.order_by(bots.c.created_ms.desc(), bots.c.id.desc()).limit(max(limit, 0))
        return await self._bots(query)

    async def set_public(self, bot_id: str, owner: str, public: bool) -> bool:
        async with self._write() as connection:
            result = await connection.execute(
                update(bots)
                .where(bots.c.id == bot_id, bots.c.owner == owner)
                .values(public=public)
            )
        return bool(result.rowcount)

    async def delete_bot(self, bot_id: str, owner: str) -> bool:
        async with self._write() as connection:
            result = await connection.execute(
                delete(bots).where(bots.c.id == bot_id, bots.c.owner == owner)
            )
        return bool(result.rowcount)

    async def _bots(self, query: Select[Any]) -> list[BotRecord]:
        async with self._read() as connection:
            rows = (await connection.execute(query)).mappings().all()
        return [bot_of(row) for row in rows]

    # --- matches ----------------------------------------------------------------------

    async def add_match(self, match: MatchRecord) -> None:
        async with self._write() as connection:
            await connection.execute(insert(matches).values(**match_row(match)))

    async def start_match(self, match_id: str, started_ms: int) -> bool:
        async with self._write() as connection:
            result = await connection.execute(
                update(matches)
                .where(
                    matches.c.id == match_id,
                    matches.c.status == MatchStatus.LIVE.value,
                    matches.c.started_ms.is_(None),
                )
                .values(started_ms=started_ms)
            )
        return bool(result.rowcount)

    async def finish_match(
        self,
        match_id: str,
        result: Result,
        finished_ms: int,
        replay: str | None,
        stderr: tuple[bytes, bytes] = (b"", b""),
    ) -> bool:
        values = {
            "status": MatchStatus.FINISHED.value,
            "finished_ms": finished_ms,
            "replay": replay,
            "p1_stderr": kept_stderr(stderr[0]),
            "p2_stderr": kept_stderr(stderr[1]),
            **result_row(result),
        }
        async with self._write() as connection:
            done = await connection.execute(
                update(matches)
                .where(matches.c.id == match_id, matches.c.status == MatchStatus.LIVE.value)
                .values(**values)
            )
        return bool(done.rowcount)

    async def get_match(self, match_id: str) -> MatchRecord | None:
        async with self._read() as connection:
            row = (
                await connection.execute(select(*_RECORD_COLUMNS).where(matches.c.id == match_id))
            ).first()
        return None if row is None else match_of(row._mapping)

    async def match_stderr(self, match_id: str) -> tuple[bytes, bytes] | None:
        async with self._read() as connection:
            row = (
                await connection.execute(select(*_STDERR_COLUMNS).where(matches.c.id == match_id))
            ).first()
        if row is None:
            return None
        return (bytes(row.p1_stderr or b""), bytes(row.p2_stderr or b""))

    async def live_matches(self) -> list[MatchRecord]:
        query = (
            select(*_RECORD_COLUMNS)
            .where(matches.c.status == MatchStatus.LIVE.value)
            .order_by(matches.c.created_ms, matches.c.id)
        )
        return await self._matches(query)

    async def finished_matches(
        self,
        limit: int,
        before: MatchCursor | None = None,
        *,
        bot: str | None = None,
        ladder: bool = False,
    ) -> list[MatchRecord]:
        query = select(*_RECORD_COLUMNS).where(matches.c.status == MatchStatus.FINISHED.value)
        if before is not None:
            query = query.where(
                or_(
                    matches.c.finished_ms < before.finished_ms,
                    and_(
                        matches.c.finished_ms == before.finished_ms,
                        matches.c.id < before.match_id,
                    ),
                )
            )
        if bot is not None:
            person = SeatKind.PERSON.value
            query = query.where(
                or_(
                    and_(matches.c.p1_ref == bot, matches.c.p1_kind != person),
                    and_(matches.c.p2_ref == bot, matches.c.p2_kind != person),
                )
            )
        if ladder:
            query = query.where(matches.c.ladder.is_(True))
        query = query.order_by(matches.c.finished_ms.desc(), matches.c.id.desc()).limit(limit)
        return await self._matches(query)

    async def abandon_live(self, now_ms: int, runner: str | None = None) -> int:
        statement = update(matches).where(matches.c.status == MatchStatus.LIVE.value)
        if runner is not None:
            statement = statement.where(matches.c.runner == runner)
        async with self._write() as connection:
            result = await connection.execute(
                statement.values(
                    status=MatchStatus.FINISHED.value,
                    finished_ms=now_ms,
                    replay=None,
                    **result_row(Result(winner=None, reason=EndReason.ABANDONED, turns=0)),
                )
            )
        return int(result.rowcount or 0)

    # --- retention (B14) --------------------------------------------------------------

    async def replays_due(
        self, retention: Retention, now_ms: int, limit: int
    ) -> list[MatchRecord]:
        finished = matches.c.status == MatchStatus.FINISHED.value
        kept = and_(finished, matches.c.replay.is_not(None))
        rooms = (
            select(*_RECORD_COLUMNS)
            .where(kept, matches.c.ladder.is_(False))
            .where(matches.c.finished_ms < retention.rooms_before_ms(now_ms))
            .order_by(matches.c.finished_ms, matches.c.id)
            .limit(limit)
        )
        # Each ladder replay kept, once per seat, ranked among its bot's newest first; a
        # match is due when no bot ranks it within its newest `ladder_replays`.
        in_ladder = and_(kept, matches.c.ladder.is_(True))
        seats = union_all(
            select(matches.c.id, matches.c.finished_ms, matches.c.p1_ref.label("bot"))
            .where(in_ladder),
            select(matches.c.id, matches.c.finished_ms, matches.c.p2_ref.label("bot"))
            .where(in_ladder),
        ).subquery()
        rank = func.row_number().over(
            partition_by=seats.c.bot, order_by=(seats.c.finished_ms.desc(), seats.c.id.desc())
        )
        ranked = select(seats.c.id, rank.label("rank")).subquery()
        beyond = (
            select(ranked.c.id)
            .group_by(ranked.c.id)
            .having(func.min(ranked.c.rank) > retention.ladder_replays)
        )
        ladder = (
            select(*_RECORD_COLUMNS)
            .where(matches.c.id.in_(beyond))
            .order_by(matches.c.finished_ms, matches.c.id)
            .limit(limit)
        )
        found = await self._matches(rooms) + await self._matches(ladder)
        return sorted(found, key=lambda match: match.cursor)[: max(limit, 0)]

    async def mark_replay_deleted(self, match_id: str, at_ms: int) -> bool:
        async with self._write() as connection:
            result = await connection.execute(
                update(matches)
                .where(
                    matches.c.id == match_id,
                    matches.c.status == MatchStatus.FINISHED.value,
                    matches.c.replay.is_not(None),
                )
                .values(replay=None, p1_stderr=None, p2_stderr=None, replay_deleted_ms=at_ms)
            )
        return bool(result.rowcount)

    async def _matches(self, query: Select[Any]) -> list[MatchRecord]:
        async with self._read() as connection:
            rows = (await connection.execute(query)).mappings().all()
        return [match_of(row) for row in rows]
