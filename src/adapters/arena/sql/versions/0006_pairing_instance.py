"""Each live ladder pairing names the instance whose driver plays it (spec B8, B9), so
a restarted instance ends its own pairings at once and leaves other instances' alone.

Revision ID: 0006
Revises: 0005
Written by hand. Pairings live before this revision get "" (no instance known): a
restart on a shared database leaves them to the lost-pairing rule, as before.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "arena_ladder_pairings",
        sa.Column("instance", sa.String(64), nullable=False, server_default=""),
    )


def downgrade() -> None:
    with op.batch_alter_table("arena_ladder_pairings") as batch:
        batch.drop_column("instance")
