"""Alembic's environment for the arena (loaded by `alembic.command`, see migrations.py).

It runs only online, on the connection `migrations.upgrade` hands over in
`config.attributes["connection"]`, inside that connection's transaction (which already
holds the locks that keep two migrations apart).
"""

from __future__ import annotations

from alembic import context

from noitu.adapters.arena.sql.models import VERSION_TABLE, metadata


def run_migrations() -> None:
    if context.is_offline_mode():
        raise RuntimeError("the arena's migrations run online only")
    connection = context.config.attributes.get("connection")
    if connection is None:
        raise RuntimeError(
            "run the arena's migrations with noitu.adapters.arena.sql.migrations.upgrade"
        )
    context.configure(
        connection=connection,
        target_metadata=metadata,
        version_table=VERSION_TABLE,
        render_as_batch=True,
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


run_migrations()
