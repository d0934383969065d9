"""The arena's tables (SQLAlchemy Core). The migrations in `versions/` create exactly
these; a contract test compares the two on SQLite and PostgreSQL.

- `arena_owners`: one row per owner key, by its SHA-256 (never the key).
- `arena_bots`: uploaded bots; `owner` references the owner (deleting an owner, which
  nothing does today, would take its bots along).
- `arena_upload_events`: one row per admitted upload, for the per-owner rate limit (a
  bot deleted right after its upload still counts, and so does a refused build).
- `arena_matches`: matches live and finished, the two seats as columns. Seats do not
  reference bots: history outlives a deleted bot, and keeps the name it had. The last
  8 KiB of each bot's stderr (`p1_stderr`, `p2_stderr`, bytes as read) are written by
  the same UPDATE that finishes the match; NULL while it is live.

Times are integers of milliseconds since the epoch (BIGINT), like every time in the
code; enumerations are short strings with a CHECK.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    false,
)

#: Constraint names that do not depend on the database (so migrations can name them).
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

#: The table Alembic keeps its revision in (ours, so the database can be shared).
VERSION_TABLE = "arena_alembic_version"

metadata = MetaData(naming_convention=NAMING_CONVENTION)

# An autoincrementing 64-bit key: SQLite only autoincrements an INTEGER PRIMARY KEY.
BigKey = BigInteger().with_variant(Integer(), "sqlite")

owners = Table(
    "arena_owners",
    metadata,
    Column("key_hash", String(64), primary_key=True),
    Column("created_ms", BigInteger, nullable=False),
)

bots = Table(
    "arena_bots",
    metadata,
    Column("id", String(16), primary_key=True),
    Column(
        "owner",
        String(64),
        ForeignKey("arena_owners.key_hash", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("name", String(40), nullable=False),
    Column("language", String(8), nullable=False),
    Column("public", Boolean(create_constraint=False), nullable=False, server_default=false()),
    Column("created_ms", BigInteger, nullable=False),
    Column("source_bytes", Integer, nullable=False),
    Column("build_status", String(8), nullable=False),
    Column("build_messages", Text, nullable=False, server_default=""),
    Column("source_file", String(128), nullable=False),
    Column("artefact_dir", String(128), nullable=True),
    CheckConstraint("language IN ('python', 'cpp', 'java', 'jar')", name="language"),
    CheckConstraint("build_status IN ('ok', 'failed')", name="build_status"),
    CheckConstraint("source_bytes >= 0", name="source_bytes"),
    Index(None, "owner", "created_ms"),
    Index(None, "public", "created_ms"),
)

upload_events = Table(
    "arena_upload_events",
    metadata,
    Column("id", BigKey, primary_key=True, autoincrement=True),
    Column(
        "owner",
        String(64),
        ForeignKey("arena_owners.key_hash", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("at_ms", BigInteger, nullable=False),
    Index(None, "owner", "at_ms"),
)

_SEAT_KINDS = "('upload', 'builtin', 'person')"
_SIDES = "('P1', 'P2')"
_REASONS = (
    "('BASE_CAPTURED', 'NO_PIECES', 'TURN_LIMIT', 'BOT_FAILED', 'SURRENDER', 'TIME_UP',"
    " 'ABANDONED')"
)


def _seat(side: str) -> list[Column]:  # type: ignore[type-arg]
    return [
        Column(f"{side}_kind", String(8), nullable=False),
        Column(f"{side}_ref", String(64), nullable=False),
        Column(f"{side}_name", String(64), nullable=False),
        Column(f"{side}_owner", String(64), nullable=True),
    ]


matches = Table(
    "arena_matches",
    metadata,
    Column("id", String(8), primary_key=True),
    Column("room", String(6), nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("turn_limit", Integer, nullable=False),
    Column("created_ms", BigInteger, nullable=False),
    Column("started_ms", BigInteger, nullable=True),
    Column("finished_ms", BigInteger, nullable=True),
    *_seat("p1"),
    *_seat("p2"),
    Column("status", String(8), nullable=False),
    Column("winner", String(2), nullable=True),
    Column("reason", String(16), nullable=True),
    Column("turns", Integer, nullable=True),
    Column("failure_side", String(2), nullable=True),
    Column("failure_code", String(16), nullable=True),
    Column("failure_detail", Text, nullable=True),
    Column("replay", String(64), nullable=True),
    Column("runner", String(64), nullable=False, server_default=""),
    Column("p1_stderr", LargeBinary, nullable=True),
    Column("p2_stderr", LargeBinary, nullable=True),
    CheckConstraint(f"p1_kind IN {_SEAT_KINDS}", name="p1_kind"),
    CheckConstraint(f"p2_kind IN {_SEAT_KINDS}", name="p2_kind"),
    CheckConstraint("status IN ('live', 'finished')", name="status"),
    CheckConstraint(f"winner IS NULL OR winner IN {_SIDES}", name="winner"),
    CheckConstraint(f"reason IS NULL OR reason IN {_REASONS}", name="reason"),
    CheckConstraint(f"failure_side IS NULL OR failure_side IN {_SIDES}", name="failure_side"),
    CheckConstraint(
        "(status = 'live' AND reason IS NULL AND finished_ms IS NULL AND turns IS NULL)"
        " OR (status = 'finished' AND reason IS NOT NULL AND finished_ms IS NOT NULL"
        " AND turns IS NOT NULL)",
        name="result",
    ),
    CheckConstraint(
        "(failure_side IS NULL AND failure_code IS NULL AND failure_detail IS NULL)"
        " OR (failure_side IS NOT NULL AND failure_code IS NOT NULL"
        " AND failure_detail IS NOT NULL)",
        name="failure",
    ),
    Index(None, "status", "finished_ms", "id"),
    Index(None, "p1_owner", "finished_ms"),
    Index(None, "p2_owner", "finished_ms"),
)
