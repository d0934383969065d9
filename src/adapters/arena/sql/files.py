"""`ArenaFiles` in the arena's database (spec B9, NOITU_ARENA_FILES=database): sources,
artefacts and replays are blobs of the `arena_files` table, so machines that share the
database share the files, and the data directory is only this machine's cache:

    <data>/cache/bots/<bot id>/source.<py|cpp|java|jar>     a fetched source
    <data>/cache/bots/<bot id>/artefact.<digest>/           a fetched artefact version
    <data>/cache/replays/<match id>.jsonl.zst               a replay being written
    <data>/cache/tmp/<random>/                              scratch directories (builds)

The names the records keep are those of the directory store (`bots/<id>/source.py`,
`bots/<id>/artefact`, `replays/<id>.jsonl.zst`), checked the same way (the cache is a
`DataDirFiles`, whose checks and atomic writes are reused).
- An artefact is stored as one archive (`artefact_archive.py`: equal contents give
  equal bytes and the same `digest`). A machine unpacks it into a hidden directory
  beside its cached versions and renames it into `artefact.<digest>` whole: a launcher
  never sees half an artefact, and a replaced artefact is a new directory (a bot
  already running from the old one keeps it until the sweep).
- A source never changes under its name (a bot's id is never reused): a cached copy is
  used as it is.
- A replay is written to the cache while the match runs and stored as a blob by
  `finish()`; the local file then goes.
- Deleting a bot deletes its rows and this machine's cached copies; other machines'
  copies are removed by their sweep (at start-up), which also removes cached artefact
  versions that are no longer the stored one. Nothing cached is ever used without the
  database saying it is current, except sources (immutable) when rebuilding.

The store's total is every blob it keeps, sources, artefacts and finished replays
alike (spec B10, B14: what the operator pays for is the database; the cache in the data
directory is a copy, not counted). It may reach at most `uploads_max_bytes` (the
operator's NOITU_ARENA_UPLOADS_MIB): a source that would pass it is refused with
`StorageFull`; artefacts are written after their source was admitted, as in the
directory store, and replays whatever the total (the retention sweep frees room).

Database trouble is `StorageUnavailable` (503 `busy` for a client); each method is one
short transaction. On SQLite the writers of this object queue on an asyncio lock, as
the repository's do.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import shutil
import time
from pathlib import Path
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from noitu.adapters.arena import replay_codec
from noitu.adapters.arena.artefact_archive import hidden, install, pack, unpack_in_place
from noitu.adapters.arena.files import BOTS, DataDirFiles, write_atomically
from noitu.adapters.arena.sql.models import files
from noitu.adapters.arena.sql.transactions import SqlTransactions
from noitu.application.arena.errors import StorageFull
from noitu.application.arena.ports import Language
from noitu.application.ports import Clock

#: The cache's folder in the data directory.
CACHE = "cache"
SOURCE = "source"
ARTEFACT = "artefact"
REPLAY = "replay"
#: Hex digits of the digest in a cached artefact's directory name.
DIGEST_SHOWN = 16
_STALE = ".stale"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- replays ---------------------------------------------------------------------------


class _DatabaseReplay:
    """`ReplayWriter`: the events go to a file in the cache; `finish` stores it."""

    def __init__(self, store: DatabaseFiles, match_id: str) -> None:
        self._store = store
        self._local = store.cache.replay_writer(match_id)
        self._name = DataDirFiles.replay_name(match_id)
        self._written = False

    def record(self, event: object) -> None:
        self._local.record(event)

    async def finish(self) -> str:
        """The local file is finished once; storing it may be tried again after a
        StorageUnavailable (the file waits in the cache meanwhile)."""
        if not self._written:
            await self._local.finish()
            self._written = True
        path = self._store.cache.replay_path(self._name)
        data = await asyncio.to_thread(path.read_bytes)
        await self._store.put_blob(self._name, REPLAY, None, data)
        path.unlink(missing_ok=True)
        return self._name

    def discard(self) -> None:
        self._local.discard()
        self._store.cache.replay_path(self._name).unlink(missing_ok=True)


# --- the store -------------------------------------------------------------------------


class DatabaseFiles:
    """The files store in the arena's database, cached in `<data_dir>/cache`. The
    engine is the arena's (migrated and disposed of by its owner)."""

    def __init__(
        self,
        engine: AsyncEngine,
        data_dir: Path,
        clock: Clock,
        uploads_max_bytes: int | None = None,
    ) -> None:
        self._transactions = SqlTransactions(engine)
        self._clock = clock
        self.cache = DataDirFiles(Path(data_dir) / CACHE)
        self.uploads_max_bytes = uploads_max_bytes
        self._fetching: dict[str, asyncio.Lock] = {}

    # --- blobs ------------------------------------------------------------------------

    def _upsert(self, values: dict[str, Any]) -> Any:
        statement = self._transactions.upsert(files).values(**values)
        return statement.on_conflict_do_update(
            index_elements=[files.c.name],
            set_={key: statement.excluded[key] for key in values if key != "name"},
        )

    async def put_blob(
        self,
        name: str,
        kind: str,
        bot_id: str | None,
        data: bytes,
        *,
        cap: int | None = None,
    ) -> str:
        """Store (or replace) one blob; its digest. With `cap`, refuse with
        `StorageFull` (nothing written) when the store's blobs, this one in place of any
        it replaces, would take more than `cap` bytes."""
        digest = _digest(data)
        async with self._transactions.write() as connection:
            if cap is not None:
                used = await connection.scalar(
                    select(func.coalesce(func.sum(files.c.size), 0)).where(
                        files.c.name != name
                    )
                )
                if int(used or 0) + len(data) > cap:
                    raise StorageFull()
            await connection.execute(
                self._upsert(
                    {
                        "name": name,
                        "kind": kind,
                        "bot_id": bot_id,
                        "data": data,
                        "size": len(data),
                        "digest": digest,
                        "stored_ms": self._clock.now_ms(),
                    }
                )
            )
        return digest

    async def _blob(self, name: str) -> tuple[bytes, str]:
        """The blob and its digest (FileNotFoundError when there is none)."""
        async with self._transactions.read() as connection:
            row = (
                await connection.execute(
                    select(files.c.data, files.c.digest).where(files.c.name == name)
                )
            ).first()
        if row is None:
            raise FileNotFoundError(name)
        return bytes(row.data), row.digest

    async def _digest_of(self, name: str) -> str:
        async with self._transactions.read() as connection:
            digest = await connection.scalar(select(files.c.digest).where(files.c.name == name))
        if digest is None:
            raise FileNotFoundError(name)
        return str(digest)

    async def stored_bytes(self) -> int:
        """What the store's blobs (bots' files and replays) take in the database now."""
        async with self._transactions.read() as connection:
            used = await connection.scalar(select(func.coalesce(func.sum(files.c.size), 0)))
        return int(used or 0)

    # --- sources ----------------------------------------------------------------------

    async def put_source(self, bot_id: str, language: Language, data: bytes) -> str:
        """Store an upload's source (and keep a copy in the cache to build from);
        `StorageFull` (nothing written) when uploads would take more than
        `uploads_max_bytes`."""
        name = DataDirFiles.source_name(bot_id, language)
        await self.put_blob(name, SOURCE, bot_id, data, cap=self.uploads_max_bytes)
        await self.cache.put_source(bot_id, language, data)
        return name

    async def read_source(self, name: str) -> bytes:
        self.cache.source_path(name)  # the name's check
        data, _ = await self._blob(name)
        return data

    async def local_source(self, name: str) -> Path:
        path = self.cache.source_path(name)
        if await asyncio.to_thread(path.is_file):
            return path  # a bot's source never changes
        data, _ = await self._blob(name)
        await asyncio.to_thread(write_atomically, path, data)
        return path

    # --- artefacts --------------------------------------------------------------------

    def scratch(self) -> contextlib.AbstractAsyncContextManager[Path]:
        return self.cache.scratch()

    def _version_path(self, name: str, digest: str) -> Path:
        folder = self.cache.artefact_path(name)
        return folder.with_name(f"{folder.name}.{digest[:DIGEST_SHOWN]}")

    async def put_artefact(self, bot_id: str, directory: Path) -> str:
        name = DataDirFiles.artefact_name(bot_id)
        blob = await asyncio.to_thread(pack, Path(directory))
        digest = await self.put_blob(name, ARTEFACT, bot_id, blob)
        target = self._version_path(name, digest)
        await asyncio.to_thread(target.parent.mkdir, parents=True, exist_ok=True)
        await asyncio.to_thread(install, Path(directory), target)
        return name

    async def local_artefact(self, name: str) -> Path:
        """The stored version of the artefact, fetched into the cache when this machine
        has not got it (one fetch at a time per artefact in this process)."""
        self.cache.artefact_path(name)  # the name's check
        digest = await self._digest_of(name)
        path = self._version_path(name, digest)
        if await asyncio.to_thread(path.is_dir):
            return path
        lock = self._fetching.setdefault(name, asyncio.Lock())
        try:
            async with lock:
                blob, digest = await self._blob(name)
                path = self._version_path(name, digest)
                if not await asyncio.to_thread(path.is_dir):
                    await asyncio.to_thread(unpack_in_place, blob, path)
        finally:
            if not lock.locked() and self._fetching.get(name) is lock:
                del self._fetching[name]
        return path

    # --- replays ----------------------------------------------------------------------

    def replay_writer(self, match_id: str) -> _DatabaseReplay:
        return _DatabaseReplay(self, match_id)

    async def read_replay(self, name: str) -> bytes:
        self.cache.replay_path(name)  # the name's check
        data, _ = await self._blob(name)
        return await asyncio.to_thread(replay_codec.plain, data)

    async def read_replay_zstd(self, name: str) -> bytes | None:
        self.cache.replay_path(name)  # the name's check
        data, _ = await self._blob(name)
        return data if replay_codec.is_compressed(data) else None

    async def delete_replay(self, name: str) -> int:
        self.cache.replay_path(name)  # the name's check
        gone = (files.c.name == name) & (files.c.kind == REPLAY)
        async with self._transactions.write() as connection:
            size = await connection.scalar(select(files.c.size).where(gone))
            await connection.execute(delete(files).where(gone))
        return int(size or 0)

    # --- bots -------------------------------------------------------------------------

    async def delete_bot_files(self, bot_id: str) -> None:
        DataDirFiles.artefact_name(bot_id)  # the id's check
        async with self._transactions.write() as connection:
            await connection.execute(delete(files).where(files.c.bot_id == bot_id))
        await self.cache.delete_bot_files(bot_id)

    async def stored_bot_ids(self) -> set[str]:
        async with self._transactions.read() as connection:
            ids = await connection.scalars(
                select(files.c.bot_id).where(files.c.bot_id.is_not(None)).distinct()
            )
            return {str(bot_id) for bot_id in ids}

    async def bot_files_modified_ms(self, bot_id: str) -> int | None:
        async with self._transactions.read() as connection:
            stored = await connection.scalar(
                select(func.max(files.c.stored_ms)).where(files.c.bot_id == bot_id)
            )
        return None if stored is None else int(stored)

    # --- clean-up ---------------------------------------------------------------------

    async def sweep(self, max_age_s: float = 3600.0) -> int:
        """The cache's leftovers (as the directory store's), then the cached copies the
        database no longer vouches for: bots deleted (on any machine) and artefact
        versions replaced, when older than `max_age_s`."""
        removed = await self.cache.sweep(max_age_s)
        cached = await self.cache.stored_bot_ids()
        if not cached:
            return removed
        async with self._transactions.read() as connection:
            rows = await connection.execute(
                select(files.c.bot_id, files.c.name, files.c.digest).where(
                    files.c.bot_id.in_(sorted(cached))
                )
            )
            stored = [(row.bot_id, row.name, row.digest) for row in rows]
        current = {
            self._version_path(name, digest).name
            for _, name, digest in stored
            if name.endswith(f"/{ARTEFACT}")
        }
        live_bots = {bot_id for bot_id, _, _ in stored}
        cutoff = time.time() - max_age_s  # files' times are the wall clock's
        return removed + await asyncio.to_thread(
            self._sweep_cached, cached, live_bots, current, cutoff
        )

    def _sweep_cached(
        self, cached: set[str], live_bots: set[str], current: set[str], cutoff: float
    ) -> int:
        removed = 0
        bots = self.cache.root / BOTS
        for bot_id in sorted(cached):
            folder = bots / bot_id
            if bot_id not in live_bots:
                doomed = [folder]
            else:
                try:
                    entries = list(folder.iterdir())
                except FileNotFoundError:
                    continue
                doomed = [
                    entry
                    for entry in entries
                    if entry.name.startswith(f"{ARTEFACT}.") and entry.name not in current
                ]
            for path in doomed:
                try:
                    if os.lstat(path).st_mtime > cutoff:
                        continue
                    stale = hidden(path, _STALE)
                    os.rename(path, stale)
                except FileNotFoundError:
                    continue
                shutil.rmtree(stale, ignore_errors=True)
                removed += 1
        return removed

