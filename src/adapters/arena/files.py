"""`ArenaFiles` in a data directory (spec B4, B5):

    <data>/bots/<bot id>/source.<py|cpp|java|jar>   the upload as received
    <data>/bots/<bot id>/artefact/                  what runs (see languages.ENTRY_NAME)
    <data>/replays/<match id>.jsonl.zst             a finished match's replay (B14:
                                                    compressed; `.jsonl` before)
    <data>/tmp/<random>/                            scratch directories (builds)

Every path is built here from an id checked against its pattern (`BOT_ID_PATTERN`,
`MATCH_ID_PATTERN`) or from a stored name checked against the exact forms above; a
name that is neither raises ValueError before it touches the file system. Nothing comes
from an upload's file name.

Every write is atomic: the bytes go to a hidden temporary file (or directory) in the
target's own directory, are synced, and replace the target in one rename; a reader sees
the old file or the new one, never half of one, and a crash leaves only a hidden
temporary that `sweep` removes. A bot's files are deleted by renaming its directory to a
hidden name first, so a half-deleted bot never looks whole.

The data directory's total (uploaded bots under `bots/` and finished replays under
`replays/`, spec B10 and B14) may reach at most `uploads_max_bytes` (the operator's
NOITU_ARENA_UPLOADS_MIB): a source that would pass it is refused with `StorageFull`
before anything is written. The total is counted by walking both once, then kept up to
date by this object's own writes and deletions (a finished replay adds its size, a
deleted one frees it), and counted again after `RECOUNT_S` (other instances sharing the
directory write too). Matches are never refused: a replay written past the cap only
makes the next upload wait for the retention sweep. An artefact is written after its
source was admitted, so the total may pass the cap by at most one artefact
(`MAX_ARTEFACT_BYTES`) per build under way.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import re
import secrets
import shutil
import stat
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from noitu.adapters.arena import replay_codec
from noitu.adapters.arena.replay_file import ReplayFile
from noitu.application.arena.errors import StorageFull
from noitu.application.arena.languages import LANGUAGES
from noitu.application.arena.ports import Language
from noitu.application.arena.records import is_bot_id, is_match_id

BOTS = "bots"
REPLAYS = "replays"
SCRATCH = "tmp"
ARTEFACT = "artefact"
#: Seconds a count of the stored bytes is trusted before the directory is walked again.
RECOUNT_S = 300.0
_PARTIAL = ".partial"
_DELETED = ".deleted"
_OLD = ".old"

_SOURCE_NAME = re.compile(
    r"bots/([0-9a-z]{16})/source\.("
    + "|".join(re.escape(spec.stored_suffix) for spec in LANGUAGES.values())
    + ")"
)
_ARTEFACT_NAME = re.compile(r"bots/([0-9a-z]{16})/artefact")
_REPLAY_NAME = re.compile(r"replays/([0-9A-F]{8})\.jsonl(?:\.zst)?")


def _check_bot_id(bot_id: str) -> str:
    if not is_bot_id(bot_id):
        raise ValueError(f"not a bot id: {bot_id!r}")
    return bot_id


def _check_match_id(match_id: str) -> str:
    if not is_match_id(match_id):
        raise ValueError(f"not a match id: {match_id!r}")
    return match_id


def _check_name(name: str, pattern: re.Pattern[str]) -> str:
    if not pattern.fullmatch(name):
        raise ValueError(f"not a name of the arena's files store: {name!r}")
    return name


def _fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _hidden(target: Path, suffix: str) -> Path:
    return target.with_name(f".{target.name}.{secrets.token_hex(6)}{suffix}")


def write_atomically(target: Path, data: bytes, mode: int = 0o644) -> None:
    """Replace `target` with `data`: a synced temporary file beside it, then a rename."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = _hidden(target, _PARTIAL)
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(partial, mode)
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    _fsync_directory(target.parent)


def check_tree(directory: Path) -> None:
    """Only regular files and directories, no symlink anywhere (ValueError)."""
    info = os.lstat(directory)
    if not stat.S_ISDIR(info.st_mode):
        raise ValueError(f"an artefact is a directory: {directory}")
    for root, dirs, files in os.walk(directory):
        for entry in (*dirs, *files):
            mode = os.lstat(os.path.join(root, entry)).st_mode
            if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
                raise ValueError(f"an artefact holds only files and directories: {entry!r}")


def tree_bytes(path: Path) -> int:
    """The sizes of the regular files under `path` added up (no symlink followed; files
    that vanish meanwhile count nothing)."""
    total = 0
    for root, _, names in os.walk(path):
        for name in names:
            with contextlib.suppress(OSError):
                info = os.lstat(os.path.join(root, name))
                if stat.S_ISREG(info.st_mode):
                    total += info.st_size
    return total


def finished_replays_bytes(directory: Path) -> int:
    """The sizes of the finished replays in `directory` (not the hidden ones being
    written: their size is counted when they are finished)."""
    total = 0
    with contextlib.suppress(FileNotFoundError), os.scandir(directory) as entries:
        for entry in entries:
            if entry.name.startswith("."):
                continue
            with contextlib.suppress(OSError):
                if entry.is_file(follow_symlinks=False):
                    total += entry.stat(follow_symlinks=False).st_size
    return total


def _unlink_counted(path: Path) -> int:
    """Remove the file at `path`; the bytes it took (0 when it was not there)."""
    try:
        size = os.lstat(path).st_size
        os.unlink(path)
    except FileNotFoundError:
        return 0
    return size


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


class _Replay:
    """`ReplayWriter`: the events go to a hidden file beside the target (ReplayFile)."""

    def __init__(
        self, path: Path, name: str, counted: Callable[[int], None] | None = None
    ) -> None:
        self._file = ReplayFile(path, compressed=True)
        self._name = name
        self._path = path
        self._counted = counted

    def record(self, event: object) -> None:
        self._file.record(event)  # type: ignore[arg-type]

    async def finish(self) -> str:
        self._file.finish()
        if self._counted is not None:
            with contextlib.suppress(OSError):
                self._counted(os.stat(self._path).st_size)
        return self._name

    def discard(self) -> None:
        self._file.discard()


class DataDirFiles:
    """The files store of one data directory (created when missing)."""

    def __init__(self, root: Path, uploads_max_bytes: int | None = None) -> None:
        """`uploads_max_bytes`: what uploaded bots and replays may take together (None:
        no cap)."""
        self.root = Path(root).absolute()
        for folder in (BOTS, REPLAYS, SCRATCH):
            (self.root / folder).mkdir(parents=True, exist_ok=True)
        self.uploads_max_bytes = uploads_max_bytes
        self._stored_bytes: int | None = None
        self._counted_at = 0.0
        self._counting = asyncio.Lock()

    async def stored_bytes(self) -> int:
        """What uploaded bots and finished replays take in the store now (see the
        module's note)."""
        now = time.monotonic()
        if self._stored_bytes is None or now - self._counted_at > RECOUNT_S:
            self._stored_bytes = await asyncio.to_thread(self._count)
            self._counted_at = now
        return self._stored_bytes

    def _count(self) -> int:
        return tree_bytes(self.root / BOTS) + finished_replays_bytes(self.root / REPLAYS)

    def _counted(self, change: int) -> None:
        if self._stored_bytes is not None:
            self._stored_bytes = max(0, self._stored_bytes + change)

    # --- names and paths --------------------------------------------------------------

    def _bot_dir(self, bot_id: str) -> Path:
        return self.root / BOTS / _check_bot_id(bot_id)

    @staticmethod
    def source_name(bot_id: str, language: Language) -> str:
        return f"{BOTS}/{_check_bot_id(bot_id)}/source.{LANGUAGES[language].stored_suffix}"

    @staticmethod
    def artefact_name(bot_id: str) -> str:
        return f"{BOTS}/{_check_bot_id(bot_id)}/{ARTEFACT}"

    @staticmethod
    def replay_name(match_id: str) -> str:
        return f"{REPLAYS}/{_check_match_id(match_id)}.jsonl{replay_codec.SUFFIX}"

    def source_path(self, name: str) -> Path:
        return self.root / _check_name(name, _SOURCE_NAME)

    def artefact_path(self, name: str) -> Path:
        return self.root / _check_name(name, _ARTEFACT_NAME)

    async def local_source(self, name: str) -> Path:
        path = self.source_path(name)
        if not await asyncio.to_thread(path.is_file):
            raise FileNotFoundError(name)
        return path

    async def local_artefact(self, name: str) -> Path:
        path = self.artefact_path(name)
        if not await asyncio.to_thread(path.is_dir):
            raise FileNotFoundError(name)
        return path

    def replay_path(self, name: str) -> Path:
        return self.root / _check_name(name, _REPLAY_NAME)

    # --- sources and artefacts --------------------------------------------------------

    async def put_source(self, bot_id: str, language: Language, data: bytes) -> str:
        """Store an upload's source; `StorageFull` (nothing written) when uploads would
        take more than `uploads_max_bytes`."""
        name = self.source_name(bot_id, language)
        if self.uploads_max_bytes is not None:
            async with self._counting:
                used = await self.stored_bytes()
                if used + len(data) > self.uploads_max_bytes:
                    raise StorageFull()
                self._counted(len(data))  # held for it before the write
        await asyncio.to_thread(write_atomically, self.root / name, data)
        return name

    async def read_source(self, name: str) -> bytes:
        return await asyncio.to_thread(self.source_path(name).read_bytes)

    @contextlib.asynccontextmanager
    async def scratch(self) -> AsyncIterator[Path]:
        directory = self.root / SCRATCH / secrets.token_hex(8)
        directory.mkdir(mode=0o755)
        try:
            yield directory
        finally:
            await asyncio.to_thread(shutil.rmtree, directory, True)

    async def put_artefact(self, bot_id: str, directory: Path) -> str:
        name = self.artefact_name(bot_id)
        change = await asyncio.to_thread(self._put_artefact, self.root / name, Path(directory))
        self._counted(change)
        return name

    def _put_artefact(self, target: Path, directory: Path) -> int:
        """Install the artefact; the bytes it adds to the store (less the old one's)."""
        check_tree(directory)
        change = tree_bytes(directory)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = _hidden(target, _PARTIAL)
        try:
            try:
                os.rename(directory, partial)  # a scratch directory: same file system
            except OSError as error:
                if error.errno != errno.EXDEV:
                    raise
                shutil.copytree(directory, partial, symlinks=True)
            os.chmod(partial, 0o755)
            old = None
            if target.exists():
                old = _hidden(target, _OLD)
                os.rename(target, old)
            os.rename(partial, target)
        except BaseException:
            _remove(partial)
            raise
        _fsync_directory(target.parent)
        if old is not None:
            change -= tree_bytes(old)
            shutil.rmtree(old, ignore_errors=True)
        return change

    async def delete_bot_files(self, bot_id: str) -> None:
        freed = await asyncio.to_thread(self._delete_bot_files, self._bot_dir(bot_id))
        self._counted(-freed)

    @staticmethod
    def _delete_bot_files(directory: Path) -> int:
        """Delete a bot's files; the bytes freed."""
        doomed = _hidden(directory, _DELETED)
        try:
            os.rename(directory, doomed)
        except FileNotFoundError:
            return 0
        freed = tree_bytes(doomed)
        shutil.rmtree(doomed, ignore_errors=True)
        return freed

    async def stored_bot_ids(self) -> set[str]:
        def scan() -> set[str]:
            return {
                entry.name
                for entry in os.scandir(self.root / BOTS)
                if is_bot_id(entry.name) and entry.is_dir(follow_symlinks=False)
            }

        return await asyncio.to_thread(scan)

    async def bot_files_modified_ms(self, bot_id: str) -> int | None:
        """When the bot's directory last changed (wall clock, ms); None without one."""
        try:
            stat = await asyncio.to_thread(os.stat, self._bot_dir(bot_id))
        except FileNotFoundError:
            return None
        return stat.st_mtime_ns // 1_000_000

    # --- replays ----------------------------------------------------------------------

    def replay_writer(self, match_id: str) -> _Replay:
        name = self.replay_name(match_id)
        return _Replay(self.root / name, name, self._counted)

    async def read_replay(self, name: str) -> bytes:
        data = await asyncio.to_thread(self.replay_path(name).read_bytes)
        return await asyncio.to_thread(replay_codec.plain, data)

    async def read_replay_zstd(self, name: str) -> bytes | None:
        data = await asyncio.to_thread(self.replay_path(name).read_bytes)
        return data if replay_codec.is_compressed(data) else None

    async def delete_replay(self, name: str) -> int:
        freed = await asyncio.to_thread(_unlink_counted, self.replay_path(name))
        self._counted(-freed)
        return freed

    # --- clean-up ---------------------------------------------------------------------

    async def sweep(self, max_age_s: float = 3600.0) -> int:
        return await asyncio.to_thread(self._sweep, time.time() - max_age_s)

    def _sweep(self, cutoff: float) -> int:
        leftovers: list[Path] = list((self.root / SCRATCH).iterdir())
        leftovers += [p for p in (self.root / BOTS).iterdir() if p.name.startswith(".")]
        leftovers += [p for p in (self.root / REPLAYS).iterdir() if p.name.startswith(".")]
        for bot in (self.root / BOTS).iterdir():
            if is_bot_id(bot.name) and bot.is_dir() and not bot.is_symlink():
                leftovers += [p for p in bot.iterdir() if p.name.startswith(".")]
        removed = 0
        for path in leftovers:
            try:
                if os.lstat(path).st_mtime > cutoff:
                    continue
            except FileNotFoundError:
                continue
            _remove(path)
            removed += 1
        return removed
