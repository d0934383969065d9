"""An artefact (a directory) as one archive (spec B9), for the stores that keep it as a
blob: a gzipped tar made here, of regular files and directories only, sorted, without
owners or times, so equal contents give equal bytes. Unpacking trusts nothing in the
archive: no absolute name, no `..`, no link or device, at most `MAX_UNPACKED_FILES`
entries and `MAX_UNPACKED_BYTES` bytes (ValueError otherwise). A directory is put in
place whole (`unpack_in_place`, `install`): a reader never sees half of one.
"""

from __future__ import annotations

import errno
import gzip
import io
import os
import secrets
import shutil
import stat
import tarfile
from pathlib import Path, PurePosixPath

from noitu.adapters.arena.files import check_tree
from noitu.application.arena.limits import MAX_ARTEFACT_BYTES, MAX_JAR_BYTES

#: What an unpacked artefact may hold: an artefact is at most 16 MiB (a build's cap)
#: or an uploaded JAR; twice their sum leaves room and still stops a bomb.
MAX_UNPACKED_BYTES = 2 * (MAX_ARTEFACT_BYTES + MAX_JAR_BYTES)
MAX_UNPACKED_FILES = 20_000
_UNPACKING = ".unpacking"


def hidden(target: Path, suffix: str) -> Path:
    return target.with_name(f".{target.name}.{secrets.token_hex(6)}{suffix}")

def pack(directory: Path) -> bytes:
    """The artefact `directory` as a gzipped tar: regular files and directories only
    (ValueError otherwise, as `check_tree`), in sorted order, modes kept (0755 or
    0644), no owner, no time."""
    check_tree(directory)
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as zipped,
        tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as archive,
    ):
        for root, dirs, names in os.walk(directory):
            dirs.sort()
            relative = PurePosixPath(Path(root).relative_to(directory).as_posix())
            for name in sorted(dirs):
                entry = tarfile.TarInfo(str(relative / name))
                entry.type = tarfile.DIRTYPE
                entry.mode = 0o755
                archive.addfile(entry)
            for name in sorted(names):
                path = Path(root) / name
                info = os.lstat(path)
                if not stat.S_ISREG(info.st_mode):  # replaced since the check
                    raise ValueError(f"an artefact holds only files and directories: {name!r}")
                entry = tarfile.TarInfo(str(relative / name))
                entry.size = info.st_size
                entry.mode = 0o755 if info.st_mode & 0o111 else 0o644
                with open(path, "rb") as handle:
                    archive.addfile(entry, handle)
    return buffer.getvalue()


def member_path(name: str) -> PurePosixPath:
    """An archive entry's name as a relative path inside the artefact (ValueError for an
    absolute name, `..`, an empty or odd name)."""
    if not name or name.startswith("/") or "\\" in name or "\x00" in name:
        raise ValueError(f"not a name inside an artefact: {name!r}")
    path = PurePosixPath(name)
    if not path.parts or any(part in ("", ".", "..") for part in path.parts):
        raise ValueError(f"not a name inside an artefact: {name!r}")
    return path


def unpack(blob: bytes, directory: Path) -> None:
    """Unpack an archive made by `pack` into the new directory `directory` (its parent
    exists). Only files and directories with safe names, within the caps (ValueError,
    and nothing is left, otherwise)."""
    directory.mkdir(mode=0o755)
    try:
        total = 0
        with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as archive:
            for count, member in enumerate(archive, start=1):
                if count > MAX_UNPACKED_FILES:
                    raise ValueError("a stored artefact has too many entries")
                target = directory.joinpath(*member_path(member.name).parts)
                if member.isdir():
                    target.mkdir(mode=0o755, parents=True, exist_ok=True)
                    continue
                if not member.isreg():
                    raise ValueError(f"a stored artefact holds a link or a device: {member.name!r}")
                total += member.size
                if total > MAX_UNPACKED_BYTES:
                    raise ValueError("a stored artefact is too large")
                target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
                source = archive.extractfile(member)
                assert source is not None  # a regular file's
                mode = 0o755 if member.mode & 0o111 else 0o644
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
                with os.fdopen(fd, "wb") as handle:
                    shutil.copyfileobj(source, handle)
                os.chmod(target, mode)
    except (tarfile.TarError, EOFError, OSError, gzip.BadGzipFile) as error:
        shutil.rmtree(directory, ignore_errors=True)
        raise ValueError(f"a stored artefact cannot be unpacked: {error}") from error
    except BaseException:
        shutil.rmtree(directory, ignore_errors=True)
        raise


def unpack_in_place(blob: bytes, target: Path) -> None:
    """Unpack `blob` (as `unpack`) into `target`, whole, unless another task put it
    there meanwhile."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = hidden(target, _UNPACKING)
    unpack(blob, partial)
    try:
        settle(partial, target)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise


def install(directory: Path, target: Path) -> None:
    """Move (or copy, across file systems) `directory` to `target` whole, unless a copy
    is there already (another task put the same version: `directory` is dropped)."""
    if target.is_dir():
        return
    partial = hidden(target, _UNPACKING)
    try:
        try:
            os.rename(directory, partial)
        except OSError as error:
            if error.errno != errno.EXDEV:
                raise
            shutil.copytree(directory, partial, symlinks=True)
        os.chmod(partial, 0o755)
        settle(partial, target)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise


def settle(partial: Path, target: Path) -> None:
    """Rename the finished `partial` to `target`, or drop it when `target` was made
    meanwhile (by another task fetching the same version)."""
    try:
        os.rename(partial, target)
    except OSError as error:
        if error.errno not in (errno.EEXIST, errno.ENOTEMPTY):
            raise
        shutil.rmtree(partial, ignore_errors=True)
