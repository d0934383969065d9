"""The retention sweep (spec B14): when a match's replay and stderr tails were deleted,
and an index to find the replays still kept, ladder matches and rooms' apart.

Revision ID: 0009
Revises: 0008
Written by hand. Every match stored before this revision keeps its replay (NULL: not
deleted); the first sweep after the upgrade deletes what the settings no longer keep.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("arena_matches", sa.Column("replay_deleted_ms", sa.BigInteger(), nullable=True))
    op.create_index(op.f("ix_arena_matches_ladder_replay"), "arena_matches", ["ladder", "replay"])


def downgrade() -> None:
    op.drop_index(op.f("ix_arena_matches_ladder_replay"), table_name="arena_matches")
    with op.batch_alter_table("arena_matches") as batch:
        batch.drop_column("replay_deleted_ms")
