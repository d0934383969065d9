"""The files store in the database (spec B9): sources, artefacts and replays as blobs,
so that machines share no file system (NOITU_ARENA_FILES=database).

Revision ID: 0005
Revises: 0004
Written by hand. A new table only: nothing before this revision is touched, and a
server keeping its files in the data directory never writes to it.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "arena_files",
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("bot_id", sa.String(16), nullable=True),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("stored_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_arena_files")),
        sa.CheckConstraint(
            "kind IN ('source', 'artefact', 'replay')", name=op.f("ck_arena_files_kind")
        ),
        sa.CheckConstraint(
            "(kind = 'replay' AND bot_id IS NULL) OR (kind <> 'replay' AND bot_id IS NOT NULL)",
            name=op.f("ck_arena_files_bot_id"),
        ),
    )
    op.create_index(op.f("ix_arena_files_bot_id"), "arena_files", ["bot_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_arena_files_bot_id"), table_name="arena_files")
    op.drop_table("arena_files")
