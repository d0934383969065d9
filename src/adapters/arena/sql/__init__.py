"""The arena's metadata in SQL (SQLAlchemy 2, async): one repository for SQLite (the
embedded default) and PostgreSQL (several instances), its tables, the engine, and the
Alembic migrations that `migrations.upgrade` runs at start-up."""
