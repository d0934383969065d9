"""The arena's first tables: owners, bots, upload events, matches.

Revision ID: 0001
Revises: (none)
Written by hand; every constraint and index is named here, so the schema does not
depend on the naming convention of the code that runs it.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

SEAT_KINDS = "('upload', 'builtin', 'person')"
SIDES = "('P1', 'P2')"
REASONS = (
    "('BASE_CAPTURED', 'NO_PIECES', 'TURN_LIMIT', 'BOT_FAILED', 'SURRENDER', 'TIME_UP',"
    " 'ABANDONED')"
)


def _seat(side: str) -> list[sa.Column]:  # type: ignore[type-arg]
    return [
        sa.Column(f"{side}_kind", sa.String(8), nullable=False),
        sa.Column(f"{side}_ref", sa.String(64), nullable=False),
        sa.Column(f"{side}_name", sa.String(64), nullable=False),
        sa.Column(f"{side}_owner", sa.String(64), nullable=True),
    ]


def upgrade() -> None:
    op.create_table(
        "arena_owners",
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("key_hash", name=op.f("pk_arena_owners")),
    )

    op.create_table(
        "arena_bots",
        sa.Column("id", sa.String(16), nullable=False),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("language", sa.String(8), nullable=False),
        sa.Column("public", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("source_bytes", sa.Integer(), nullable=False),
        sa.Column("build_status", sa.String(8), nullable=False),
        sa.Column("build_messages", sa.Text(), nullable=False, server_default=""),
        sa.Column("source_file", sa.String(128), nullable=False),
        sa.Column("artefact_dir", sa.String(128), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_arena_bots")),
        sa.ForeignKeyConstraint(
            ["owner"],
            ["arena_owners.key_hash"],
            name=op.f("fk_arena_bots_owner_arena_owners"),
            ondelete="CASCADE",
        ),
        sa.CheckConstraint(
            "language IN ('python', 'cpp', 'java', 'jar')", name=op.f("ck_arena_bots_language")
        ),
        sa.CheckConstraint(
            "build_status IN ('ok', 'failed')", name=op.f("ck_arena_bots_build_status")
        ),
        sa.CheckConstraint("source_bytes >= 0", name=op.f("ck_arena_bots_source_bytes")),
    )
    op.create_index(op.f("ix_arena_bots_owner_created_ms"), "arena_bots", ["owner", "created_ms"])
    op.create_index(
        op.f("ix_arena_bots_public_created_ms"), "arena_bots", ["public", "created_ms"]
    )

    op.create_table(
        "arena_upload_events",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            nullable=False,
            autoincrement=True,
        ),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_arena_upload_events")),
        sa.ForeignKeyConstraint(
            ["owner"],
            ["arena_owners.key_hash"],
            name=op.f("fk_arena_upload_events_owner_arena_owners"),
            ondelete="CASCADE",
        ),
    )
    op.create_index(
        op.f("ix_arena_upload_events_owner_at_ms"), "arena_upload_events", ["owner", "at_ms"]
    )

    op.create_table(
        "arena_matches",
        sa.Column("id", sa.String(8), nullable=False),
        sa.Column("room", sa.String(6), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("turn_limit", sa.Integer(), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("started_ms", sa.BigInteger(), nullable=True),
        sa.Column("finished_ms", sa.BigInteger(), nullable=True),
        *_seat("p1"),
        *_seat("p2"),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("winner", sa.String(2), nullable=True),
        sa.Column("reason", sa.String(16), nullable=True),
        sa.Column("turns", sa.Integer(), nullable=True),
        sa.Column("failure_side", sa.String(2), nullable=True),
        sa.Column("failure_code", sa.String(16), nullable=True),
        sa.Column("failure_detail", sa.Text(), nullable=True),
        sa.Column("replay", sa.String(64), nullable=True),
        sa.Column("runner", sa.String(64), nullable=False, server_default=""),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_arena_matches")),
        sa.CheckConstraint(f"p1_kind IN {SEAT_KINDS}", name=op.f("ck_arena_matches_p1_kind")),
        sa.CheckConstraint(f"p2_kind IN {SEAT_KINDS}", name=op.f("ck_arena_matches_p2_kind")),
        sa.CheckConstraint("status IN ('live', 'finished')", name=op.f("ck_arena_matches_status")),
        sa.CheckConstraint(
            f"winner IS NULL OR winner IN {SIDES}", name=op.f("ck_arena_matches_winner")
        ),
        sa.CheckConstraint(
            f"reason IS NULL OR reason IN {REASONS}", name=op.f("ck_arena_matches_reason")
        ),
        sa.CheckConstraint(
            f"failure_side IS NULL OR failure_side IN {SIDES}",
            name=op.f("ck_arena_matches_failure_side"),
        ),
        sa.CheckConstraint(
            "(status = 'live' AND reason IS NULL AND finished_ms IS NULL AND turns IS NULL)"
            " OR (status = 'finished' AND reason IS NOT NULL AND finished_ms IS NOT NULL"
            " AND turns IS NOT NULL)",
            name=op.f("ck_arena_matches_result"),
        ),
        sa.CheckConstraint(
            "(failure_side IS NULL AND failure_code IS NULL AND failure_detail IS NULL)"
            " OR (failure_side IS NOT NULL AND failure_code IS NOT NULL"
            " AND failure_detail IS NOT NULL)",
            name=op.f("ck_arena_matches_failure"),
        ),
    )
    op.create_index(
        op.f("ix_arena_matches_status_finished_ms_id"),
        "arena_matches",
        ["status", "finished_ms", "id"],
    )
    op.create_index(
        op.f("ix_arena_matches_p1_owner_finished_ms"), "arena_matches", ["p1_owner", "finished_ms"]
    )
    op.create_index(
        op.f("ix_arena_matches_p2_owner_finished_ms"), "arena_matches", ["p2_owner", "finished_ms"]
    )


def downgrade() -> None:
    op.drop_table("arena_matches")
    op.drop_table("arena_upload_events")
    op.drop_table("arena_bots")
    op.drop_table("arena_owners")
