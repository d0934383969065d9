"""The files store's blobs are compressed with lz4 on PostgreSQL (spec B9, "Capacity,
measured"): PostgreSQL compresses a large value before it stores it, by default with
pglz, which spent 20 ms of the database's CPU on each 2.5 MB replay of a 200-turn
match (lz4: 3 ms, and 30% fewer bytes; docs/performance.md).

Revision ID: 0007
Revises: 0006
Written by hand. Only on a PostgreSQL built with lz4 (Debian's is; the setting
`default_toast_compression` lists what a server has); elsewhere, and on SQLite,
nothing changes. Values stored before keep their compression until rewritten.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

_HAS_LZ4 = sa.text(
    "SELECT count(*) FROM pg_settings"
    " WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)"
)


def _lz4_available() -> bool:
    bind = op.get_bind()
    return bind.dialect.name == "postgresql" and bool(bind.execute(_HAS_LZ4).scalar())


def upgrade() -> None:
    if _lz4_available():
        op.execute("ALTER TABLE arena_files ALTER COLUMN data SET COMPRESSION lz4")


def downgrade() -> None:
    if _lz4_available():
        op.execute("ALTER TABLE arena_files ALTER COLUMN data SET COMPRESSION DEFAULT")
