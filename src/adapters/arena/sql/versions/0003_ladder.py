"""The ladder's tables (spec B8): ranked bots, rated results, standings and the key
they are folded through, live pairings and the bots busy in them, each bot's previous
opponent, the scheduler's lease.

Revision ID: 0003
Revises: 0002
Written by hand. New tables only: nothing before this revision is touched. The
standings start empty (every bot at the first rating) and `arena_ladder_state` has no
row until the first write, which reads as "through no result".
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

BOT = 64


def upgrade() -> None:
    op.create_table(
        "arena_ladder_members",
        sa.Column(
            "seq",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            nullable=False,
            autoincrement=True,
        ),
        sa.Column("bot", sa.String(BOT), nullable=False),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("failures_in_row", sa.Integer(), nullable=False),
        sa.Column("suspended", sa.Boolean(), nullable=False),
        sa.Column("placement_step", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("seq", name=op.f("pk_arena_ladder_members")),
        sa.UniqueConstraint("bot", name=op.f("uq_arena_ladder_members_bot")),
    )
    op.create_index(
        op.f("ix_arena_ladder_members_owner"), "arena_ladder_members", ["owner"]
    )

    op.create_table(
        "arena_ladder_results",
        sa.Column("match_id", sa.String(8), nullable=False),
        sa.Column("pairing_id", sa.String(32), nullable=False),
        sa.Column("p1", sa.String(BOT), nullable=False),
        sa.Column("p2", sa.String(BOT), nullable=False),
        sa.Column("winner", sa.String(2), nullable=True),
        sa.Column("ended_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("match_id", name=op.f("pk_arena_ladder_results")),
        sa.CheckConstraint(
            "winner IS NULL OR winner IN ('P1', 'P2')",
            name=op.f("ck_arena_ladder_results_winner"),
        ),
    )
    op.create_index(
        op.f("ix_arena_ladder_results_ended_ms_match_id"),
        "arena_ladder_results",
        ["ended_ms", "match_id"],
    )

    op.create_table(
        "arena_ladder_standings",
        sa.Column("bot", sa.String(BOT), nullable=False),
        sa.Column("mu", sa.Double(), nullable=False),
        sa.Column("sigma", sa.Double(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("last_game_ms", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("bot", name=op.f("pk_arena_ladder_standings")),
    )

    op.create_table(
        "arena_ladder_state",
        sa.Column("id", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("through_ms", sa.BigInteger(), nullable=True),
        sa.Column("through_match", sa.String(8), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_arena_ladder_state")),
        sa.CheckConstraint("id = 1", name=op.f("ck_arena_ladder_state_one_row")),
    )

    op.create_table(
        "arena_ladder_pairings",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("first", sa.String(BOT), nullable=False),
        sa.Column("second", sa.String(BOT), nullable=False),
        sa.Column("placement", sa.Boolean(), nullable=False),
        sa.Column("started_ms", sa.BigInteger(), nullable=False),
        sa.Column("ends", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_arena_ladder_pairings")),
    )

    op.create_table(
        "arena_ladder_busy",
        sa.Column("bot", sa.String(BOT), nullable=False),
        sa.Column("pairing_id", sa.String(32), nullable=False),
        sa.PrimaryKeyConstraint("bot", name=op.f("pk_arena_ladder_busy")),
        sa.ForeignKeyConstraint(
            ["pairing_id"],
            ["arena_ladder_pairings.id"],
            name=op.f("fk_arena_ladder_busy_pairing_id_arena_ladder_pairings"),
            ondelete="CASCADE",
        ),
    )
    op.create_index(
        op.f("ix_arena_ladder_busy_pairing_id"), "arena_ladder_busy", ["pairing_id"]
    )

    op.create_table(
        "arena_ladder_previous",
        sa.Column("bot", sa.String(BOT), nullable=False),
        sa.Column("opponent", sa.String(BOT), nullable=False),
        sa.PrimaryKeyConstraint("bot", name=op.f("pk_arena_ladder_previous")),
    )

    op.create_table(
        "arena_ladder_lease",
        sa.Column("name", sa.String(16), nullable=False),
        sa.Column("holder", sa.String(64), nullable=False),
        sa.Column("until_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_arena_ladder_lease")),
    )


def downgrade() -> None:
    for table in (
        "arena_ladder_lease",
        "arena_ladder_previous",
        "arena_ladder_busy",
        "arena_ladder_pairings",
        "arena_ladder_state",
        "arena_ladder_standings",
        "arena_ladder_results",
        "arena_ladder_members",
    ):
        op.drop_table(table)
