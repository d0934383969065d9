"""Fair play (spec B13): a ladder member keeps a digest of the client address that
ranked it, so two bots ranked from one address never meet on the ladder.

Revision ID: 0010
Revises: 0009
Written by hand. Bots ranked before this revision have none (NULL): only their owner
keys keep them apart.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("arena_ladder_members", sa.Column("ranked_from", sa.String(32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("arena_ladder_members") as batch:
        batch.drop_column("ranked_from")
