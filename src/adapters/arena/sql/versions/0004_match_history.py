"""Each bot's history (spec B8): ladder matches marked, and indexes to find a bot's
matches by either seat.

Revision ID: 0004
Revises: 0003
Written by hand. Matches stored before this revision are marked as ladder matches when
the ladder rated them (the only trace the earlier schema kept of it); an unrated ladder
match from before (abandoned, or a server failure) reads as a room's.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "arena_matches",
        sa.Column("ladder", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.execute(
        "UPDATE arena_matches SET ladder = TRUE"
        " WHERE id IN (SELECT match_id FROM arena_ladder_results)"
    )
    op.create_index(op.f("ix_arena_matches_p1_ref_finished_ms"), "arena_matches", ["p1_ref", "finished_ms"])
    op.create_index(op.f("ix_arena_matches_p2_ref_finished_ms"), "arena_matches", ["p2_ref", "finished_ms"])
    op.create_index(op.f("ix_arena_matches_ladder_finished_ms"), "arena_matches", ["ladder", "finished_ms"])


def downgrade() -> None:
    op.drop_index(op.f("ix_arena_matches_ladder_finished_ms"), table_name="arena_matches")
    op.drop_index(op.f("ix_arena_matches_p2_ref_finished_ms"), table_name="arena_matches")
    op.drop_index(op.f("ix_arena_matches_p1_ref_finished_ms"), table_name="arena_matches")
    with op.batch_alter_table("arena_matches") as batch:
        batch.drop_column("ladder")
