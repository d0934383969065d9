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
rather than poll the database's lock. The modules: `link.py` (the transactions and
locks), `rows.py` (rows and the domain's values), `standings.py` (results, standings,
each bot's points), `table.py` (the table's pages), `members.py`, `pairings.py` (the
live pairings and the scheduler's lease).
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncEngine

from noitu.adapters.arena.sql.ladder.link import LadderLink
from noitu.adapters.arena.sql.ladder.members import SqlLadderMembers
from noitu.adapters.arena.sql.ladder.pairings import SqlLadderLease, SqlLadderPairings
from noitu.adapters.arena.sql.ladder.standings import (
    SqlLadderHistory,
    SqlLadderResults,
    SqlLadderStandings,
)
from noitu.adapters.arena.sql.ladder.table import SqlLadderListing


class SqlLadder:
    """The ladder's stores on an engine made by `engine.create_engine`, migrated by the
    caller (who disposes of it)."""

    def __init__(self, engine: AsyncEngine) -> None:
        link = LadderLink(engine)
        self.results = SqlLadderResults(link)
        self.standings = SqlLadderStandings(link)
        self.members = SqlLadderMembers(link)
        self.pairings = SqlLadderPairings(link)
        self.lease = SqlLadderLease(link)
        self.history = SqlLadderHistory(link)
        self.listing = SqlLadderListing(link)
