"""The additions store in a SQLite file (the default: `additions.sqlite3` in
NOITU_DATA_DIR). Every process on the machine that opens the same file shares it: the
CLI writes, the servers poll. Calls run in a worker thread; the file is in WAL mode, so
a reader never waits for a writer."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

from noitu.domain.noitu.additions import Action, WordChange

FILE_NAME = "additions.sqlite3"
BUSY_TIMEOUT_S = 5.0
SCHEMA = """
CREATE TABLE IF NOT EXISTS word_changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    word TEXT NOT NULL,
    action TEXT NOT NULL,
    tier INTEGER NOT NULL,
    at_ms INTEGER NOT NULL
)
"""


class SqliteAdditions:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None

    @classmethod
    def in_data_dir(cls, data_dir: Path) -> SqliteAdditions:
        return cls(Path(data_dir) / FILE_NAME)

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute(SCHEMA)
            self._connection = connection
        return self._connection

    def _append(self, change: WordChange) -> int:
        with self._lock:
            cursor = self._connect().execute(
                "INSERT INTO word_changes (word, action, tier, at_ms) VALUES (?, ?, ?, ?)",
                (change.word, change.action.value, change.tier, change.at_ms),
            )
            return int(cursor.lastrowid or 0)

    def _since(self, version: int, limit: int) -> list[WordChange]:
        with self._lock:
            rows = self._connect().execute(
                "SELECT word, action, tier, at_ms FROM word_changes"
                " WHERE seq > ? ORDER BY seq LIMIT ?",
                (version, limit),
            ).fetchall()
        return [WordChange(word, Action(action), tier, at_ms) for word, action, tier, at_ms in rows]

    async def append(self, change: WordChange) -> int:
        return await asyncio.to_thread(self._append, change)

    async def changes_since(self, version: int, limit: int) -> list[WordChange]:
        return await asyncio.to_thread(self._since, version, limit)

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None
