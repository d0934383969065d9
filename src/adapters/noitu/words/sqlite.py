"""The additions and reports stores in a SQLite file (the default: `additions.sqlite3` in
NOITU_DATA_DIR). Every process on the machine that opens the same file shares it: the
CLI writes, the servers poll. Calls run in a worker thread; the file is in WAL mode, so
a reader never waits for a writer."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path
from typing import Self

from noitu.domain.noitu.additions import Action, WordChange
from noitu.domain.noitu.reports import Filed, PendingWord, Receipt, Report

FILE_NAME = "additions.sqlite3"
BUSY_TIMEOUT_S = 5.0
SCHEMA = (
    """CREATE TABLE IF NOT EXISTS word_changes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        word TEXT NOT NULL,
        action TEXT NOT NULL,
        tier INTEGER NOT NULL,
        at_ms INTEGER NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS pending_words (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        word TEXT NOT NULL UNIQUE,
        first_ms INTEGER NOT NULL,
        last_ms INTEGER NOT NULL,
        message_id INTEGER,
        shown_ms INTEGER NOT NULL DEFAULT 0
    )""",
    """CREATE TABLE IF NOT EXISTS word_reporters (
        word TEXT NOT NULL,
        user_id INTEGER NOT NULL,
        chat_id INTEGER,
        at_ms INTEGER NOT NULL,
        PRIMARY KEY (word, user_id)
    )""",
    "CREATE TABLE IF NOT EXISTS rejected_words (word TEXT PRIMARY KEY)",
    """CREATE TABLE IF NOT EXISTS daily_reports (
        user_id INTEGER NOT NULL,
        day INTEGER NOT NULL,
        reports INTEGER NOT NULL,
        PRIMARY KEY (user_id, day)
    )""",
)


class _SqliteFile:
    """One connection to the file, used from worker threads one call at a time."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None

    @classmethod
    def in_data_dir(cls, data_dir: Path) -> Self:
        return cls(Path(data_dir) / FILE_NAME)

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
            connection.execute("PRAGMA journal_mode=WAL")
            for statement in SCHEMA:
                connection.execute(statement)
            self._connection = connection
        return self._connection

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None


class SqliteAdditions(_SqliteFile):

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


class SqliteReports(_SqliteFile):
    def _pending_word(self, db: sqlite3.Connection, word: str) -> PendingWord | None:
        row = db.execute(
            "SELECT first_ms, last_ms, message_id, shown_ms FROM pending_words WHERE word = ?",
            (word,),
        ).fetchone()
        if row is None:
            return None
        (reporters,) = db.execute(
            "SELECT COUNT(*) FROM word_reporters WHERE word = ?", (word,)
        ).fetchone()
        return PendingWord(word, reporters, row[0], row[1], row[2], row[3])

    def _file(self, report: Report, day: int, daily_cap: int, max_pending: int) -> Receipt:
        with self._lock:
            db = self._connect()
            db.execute("BEGIN IMMEDIATE")
            try:
                receipt = self._file_in(db, report, day, daily_cap, max_pending)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            return receipt

    def _file_in(
        self, db: sqlite3.Connection, report: Report, day: int, daily_cap: int, max_pending: int
    ) -> Receipt:
        row = db.execute(
            "SELECT reports FROM daily_reports WHERE user_id = ? AND day = ?",
            (report.user_id, day),
        ).fetchone()
        if row is not None and row[0] >= daily_cap:
            return Receipt(Filed.TOO_MANY)
        db.execute("DELETE FROM daily_reports WHERE day < ?", (day - 1,))
        db.execute(
            "INSERT INTO daily_reports (user_id, day, reports) VALUES (?, ?, 1)"
            " ON CONFLICT (user_id, day) DO UPDATE SET reports = reports + 1",
            (report.user_id, day),
        )
        word = report.word
        if db.execute("SELECT 1 FROM rejected_words WHERE word = ?", (word,)).fetchone():
            return Receipt(Filed.REJECTED)
        new = self._is_new(db, word)
        db.execute(
            "INSERT INTO pending_words (word, first_ms, last_ms) VALUES (?, ?, ?)"
            " ON CONFLICT (word) DO UPDATE SET last_ms = excluded.last_ms",
            (word, report.at_ms, report.at_ms),
        )
        db.execute(
            "INSERT INTO word_reporters (word, user_id, chat_id, at_ms) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (word, user_id) DO UPDATE SET chat_id = excluded.chat_id,"
            " at_ms = excluded.at_ms",
            (word, report.user_id, report.chat_id, report.at_ms),
        )
        if new:
            (count,) = db.execute("SELECT COUNT(*) FROM pending_words").fetchone()
            if count > max_pending:
                oldest = db.execute(
                    "SELECT p.word FROM pending_words p WHERE p.word != ? AND"
                    " (SELECT COUNT(*) FROM word_reporters r WHERE r.word = p.word) <= 1"
                    " ORDER BY p.seq LIMIT 1",
                    (word,),
                ).fetchone()
                if oldest is not None:
                    self._forget(db, oldest[0])
        return Receipt(Filed.PENDING, self._pending_word(db, word), new)

    @staticmethod
    def _is_new(db: sqlite3.Connection, word: str) -> bool:
        return db.execute("SELECT 1 FROM pending_words WHERE word = ?", (word,)).fetchone() is None

    @staticmethod
    def _forget(db: sqlite3.Connection, word: str) -> None:
        db.execute("DELETE FROM pending_words WHERE word = ?", (word,))
        db.execute("DELETE FROM word_reporters WHERE word = ?", (word,))

    def _pending(self) -> list[PendingWord]:
        with self._lock:
            db = self._connect()
            rows = db.execute(
                "SELECT p.word, (SELECT COUNT(*) FROM word_reporters r WHERE r.word = p.word),"
                " p.first_ms, p.last_ms, p.message_id, p.shown_ms FROM pending_words p ORDER BY p.seq"
            ).fetchall()
        return [PendingWord(*row) for row in rows]

    def _settle(self, word: str, rejected: bool) -> PendingWord | None:
        with self._lock:
            db = self._connect()
            db.execute("BEGIN IMMEDIATE")
            try:
                found = self._pending_word(db, word)
                self._forget(db, word)
                if rejected:
                    db.execute("INSERT OR IGNORE INTO rejected_words (word) VALUES (?)", (word,))
                else:
                    db.execute("DELETE FROM rejected_words WHERE word = ?", (word,))
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            return found

    def _shown(self, word: str, message_id: int, at_ms: int) -> None:
        with self._lock:
            self._connect().execute(
                "UPDATE pending_words SET message_id = ?, shown_ms = ? WHERE word = ?",
                (message_id, at_ms, word),
            )

    async def file(self, report: Report, day: int, daily_cap: int, max_pending: int) -> Receipt:
        return await asyncio.to_thread(self._file, report, day, daily_cap, max_pending)

    async def pending(self) -> list[PendingWord]:
        return await asyncio.to_thread(self._pending)

    async def settle(self, word: str, rejected: bool) -> PendingWord | None:
        return await asyncio.to_thread(self._settle, word, rejected)

    async def shown(self, word: str, message_id: int, at_ms: int) -> None:
        await asyncio.to_thread(self._shown, word, message_id, at_ms)
