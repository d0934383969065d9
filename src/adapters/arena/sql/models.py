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
  the same UPDATE that finishes the match; NULL while it is live. `ladder` marks the
  ladder's matches (B8); the `*_ref` indexes serve each bot's history. The retention
  sweep (B14, 0009) deletes a replay and its tails: `replay` and the tails become NULL
  and `replay_deleted_ms` says when (NULL on every row before 0009); the index on
  (`ladder`, `replay`) finds the replays still kept.
- `arena_files` (spec B9, NOITU_ARENA_FILES=database): the files store's blobs, by the
  names the records keep (`bots/<id>/source.py`, `bots/<id>/artefact`,
  `replays/<match id>.jsonl.zst`): a source as uploaded, an artefact as one gzipped tar,
  a replay as one zstd frame of its JSON Lines (B14; plain JSON Lines under a `.jsonl`
  name before). `bot_id` is set for a bot's files only; `digest` (SHA-256 of
  `data`) tells a machine's cached copy from a newer one; `size` is `data`'s length.
  Not referenced by the bots' rows: files a crash left without a row are found and
  removed at start-up, as in a data directory. On PostgreSQL `data` is compressed
  with lz4 where the server has it (0007: pglz cost 20 ms a replay).
- `arena_ladder_*` (spec B8): the ranked bots (`members`, in ranking order by `seq`,
  each with its place's keys in the table, μ − 3σ and games, copied from its standing:
  0008; and a digest of the client address that ranked it, B13's fair play: 0010),
  the rated results (the whole history), every rated bot's standing with the one-row
  `ladder_state` saying which result they are folded through, each bot's standing
  after each of its results (`points`, written with the result: its rating over time,
  read a page at a time, 0008), the live pairings with
  one `ladder_busy` row per bot in one (its primary key keeps a bot in one pairing)
  and each pairing's `instance` (whose driver plays it: a restart ends its own, 0006),
  each bot's previous opponent, and the scheduler's lease. Bots are referenced by id
  or built-in name without a foreign key: the history outlives a deleted bot.

Times are integers of milliseconds since the epoch (BIGINT), like every time in the
code; enumerations are short strings with a CHECK.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Double,
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
    Column("ladder", Boolean(create_constraint=False), nullable=False, server_default=false()),
    Column("replay_deleted_ms", BigInteger, nullable=True),
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
    Index(None, "p1_ref", "finished_ms"),
    Index(None, "p2_ref", "finished_ms"),
    Index(None, "ladder", "finished_ms"),
    Index(None, "ladder", "replay"),
)


files = Table(
    "arena_files",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("kind", String(8), nullable=False),
    Column("bot_id", String(16), nullable=True),
    Column("data", LargeBinary, nullable=False),
    Column("size", BigInteger, nullable=False),
    Column("digest", String(64), nullable=False),
    Column("stored_ms", BigInteger, nullable=False),
    CheckConstraint("kind IN ('source', 'artefact', 'replay')", name="kind"),
    CheckConstraint(
        "(kind = 'replay' AND bot_id IS NULL) OR (kind <> 'replay' AND bot_id IS NOT NULL)",
        name="bot_id",
    ),
    Index(None, "bot_id"),
)


# --- the ladder (spec B8) ----------------------------------------------------------------

#: A ladder bot: an uploaded bot's id or a built-in's name.
_LADDER_BOT = 64

ladder_members = Table(
    "arena_ladder_members",
    metadata,
    Column("seq", BigKey, primary_key=True, autoincrement=True),
    Column("bot", String(_LADDER_BOT), nullable=False, unique=True),
    Column("owner", String(64), nullable=False),
    Column("created_ms", BigInteger, nullable=False),
    Column("failures_in_row", Integer, nullable=False),
    Column("suspended", Boolean(create_constraint=False), nullable=False),
    Column("placement_step", Integer, nullable=True),
    # The table's order (0008): the bot's μ − 3σ and games as its standing says, kept
    # with its standing's every write, so a page of the table walks this index.
    Column("ordinal", Double, nullable=False, server_default="0"),
    Column("games", Integer, nullable=False, server_default="0"),
    # Fair play (0010): a digest of the client address that ranked the bot (B13).
    Column("ranked_from", String(32), nullable=True),
    Index(None, "owner"),
)

Index(
    "ix_arena_ladder_members_table_order",
    ladder_members.c.ordinal.desc(),
    ladder_members.c.games.desc(),
    ladder_members.c.created_ms,
    ladder_members.c.seq,
    ladder_members.c.bot,  # the page's walk and a rank's count read the index alone
)

ladder_results = Table(
    "arena_ladder_results",
    metadata,
    Column("match_id", String(8), primary_key=True),
    Column("pairing_id", String(32), nullable=False),
    Column("p1", String(_LADDER_BOT), nullable=False),
    Column("p2", String(_LADDER_BOT), nullable=False),
    Column("winner", String(2), nullable=True),
    Column("ended_ms", BigInteger, nullable=False),
    CheckConstraint(f"winner IS NULL OR winner IN {_SIDES}", name="winner"),
    Index(None, "ended_ms", "match_id"),
)

ladder_standings = Table(
    "arena_ladder_standings",
    metadata,
    Column("bot", String(_LADDER_BOT), primary_key=True),
    Column("mu", Double, nullable=False),
    Column("sigma", Double, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("draws", Integer, nullable=False),
    Column("losses", Integer, nullable=False),
    Column("last_game_ms", BigInteger, nullable=True),
)

ladder_points = Table(
    "arena_ladder_points",
    metadata,
    Column("bot", String(_LADDER_BOT), primary_key=True),
    Column("ended_ms", BigInteger, primary_key=True),
    Column("match_id", String(8), primary_key=True),
    Column("mu", Double, nullable=False),
    Column("sigma", Double, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("draws", Integer, nullable=False),
    Column("losses", Integer, nullable=False),
    Index(None, "ended_ms", "match_id"),
)

ladder_state = Table(
    "arena_ladder_state",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("through_ms", BigInteger, nullable=True),
    Column("through_match", String(8), nullable=True),
    CheckConstraint("id = 1", name="one_row"),
)

ladder_pairings = Table(
    "arena_ladder_pairings",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("seed", BigInteger, nullable=False),
    Column("first", String(_LADDER_BOT), nullable=False),
    Column("second", String(_LADDER_BOT), nullable=False),
    Column("placement", Boolean(create_constraint=False), nullable=False),
    Column("started_ms", BigInteger, nullable=False),
    Column("ends", Text, nullable=False),
    Column("instance", String(64), nullable=False, server_default=""),
)

ladder_busy = Table(
    "arena_ladder_busy",
    metadata,
    Column("bot", String(_LADDER_BOT), primary_key=True),
    Column(
        "pairing_id",
        String(32),
        ForeignKey("arena_ladder_pairings.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Index(None, "pairing_id"),
)

ladder_previous = Table(
    "arena_ladder_previous",
    metadata,
    Column("bot", String(_LADDER_BOT), primary_key=True),
    Column("opponent", String(_LADDER_BOT), nullable=False),
)

ladder_lease = Table(
    "arena_ladder_lease",
    metadata,
    Column("name", String(16), primary_key=True),
    Column("holder", String(64), nullable=False),
    Column("until_ms", BigInteger, nullable=False),
)
