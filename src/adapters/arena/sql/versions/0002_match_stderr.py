"""The last 8 KiB of each bot's stderr, kept with its match (spec B2).

Revision ID: 0002
Revises: 0001
Written by hand. Two nullable columns: matches finished before this revision have none,
and a live match has none until the write that finishes it.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("arena_matches", sa.Column("p1_stderr", sa.LargeBinary(), nullable=True))
    op.add_column("arena_matches", sa.Column("p2_stderr", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("arena_matches") as batch:
        batch.drop_column("p2_stderr")
        batch.drop_column("p1_stderr")
