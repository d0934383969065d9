"""What a compile runs in the sandbox, and what it hands back (spec B2, B10).

A small driver (`DRIVER`, the system's Python) copies the upload into the sandbox's
tmpfs, runs the compiler there, then sends what it made through a pipe: one JSON line,
then the files' bytes. The server reads at most `MAX_HEADER_BYTES` +
`MAX_ARTEFACT_BYTES` from that pipe and checks every name and size itself
(`unpack_artefact`) before anything is written.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from noitu.application.arena.limits import MAX_ARTEFACT_BYTES, MAX_JAVA_CLASSES
from noitu.application.arena.ports import BUILD_MESSAGES_BYTES, BuildLimit, Language

#: Where the upload is mounted (read-only) and where the compiler works (the tmpfs).
SOURCE_DIR = "/src"
WORK_DIR = "/tmp/build"
#: The driver's JSON line on the artefact pipe, at most.
MAX_HEADER_BYTES = 256 * 1024

#: Runs in the sandbox as `python3 -I -S -B -c DRIVER SOURCE WORK FD LANGUAGE NAME CAP
#: MOST -- COMPILER...`: copies the upload into WORK, runs the compiler there, then writes
#: to descriptor FD one JSON line ({"status", "code", "count", "bytes", "files": [[name,
#: size], ...]}) and the files' bytes in that order. The server trusts none of it.
DRIVER = """\
import json, os, shutil, stat, subprocess, sys
source, work, fd, language, name, cap, most = sys.argv[1:8]
cap, most = int(cap), int(most)
os.makedirs(os.path.join(work, "out"))
shutil.copyfile(os.path.join(source, name), os.path.join(work, name))
os.chdir(work)
code = subprocess.call(sys.argv[9:], stdin=subprocess.DEVNULL)
status, found, items = "ok", 0, []
if code != 0:
    status = "failed"
elif language == "cpp":
    items = [("bot", "bot")]
elif language == "java":
    for _, _, names in os.walk("out"):
        found += sum(1 for n in names if n.endswith(".class"))
    items = [(n, os.path.join("out", n)) for n in sorted(os.listdir("out")) if n.endswith(".class")]
sized = []
for shown, path in items:
    try:
        info = os.lstat(path)
    except OSError:
        continue
    if stat.S_ISREG(info.st_mode):
        sized.append((shown, path, info.st_size))
total = sum(size for _, _, size in sized)
if status == "ok" and found > most:
    status = "too_many"
elif status == "ok" and total > cap:
    status = "too_big"
send = sized if status == "ok" else []
header = {"status": status, "code": code, "count": found, "bytes": total,
          "files": [[shown, size] for shown, _, size in send]}
with os.fdopen(int(fd), "wb") as out:
    out.write(json.dumps(header).encode() + b"\\n")
    for _, path, size in send:
        with open(path, "rb") as handle:
            left = size
            while left:
                chunk = handle.read(min(left, 1 << 20))
                if not chunk:
                    sys.exit("short read")
                out.write(chunk)
                left -= len(chunk)
sys.exit(0 if status == "ok" else 1)
"""


def driver_argv(
    python: str, compiler: list[str], source_dir: str, work_dir: str, fd: int,
    language: Language, name: str,
) -> list[str]:
    """The driver's command line: it runs `compiler` and writes to descriptor `fd`."""
    caps = [str(MAX_ARTEFACT_BYTES), str(MAX_JAVA_CLASSES)]
    head = [python, "-I", "-S", "-B", "-c", DRIVER, source_dir, work_dir, str(fd)]
    return [*head, language.value, name, *caps, "--", *compiler]


_CLASS_FILE = re.compile(r"[^./\\\x00-\x1f][^/\\\x00-\x1f]*\.class")


def unpack_artefact(
    language: Language, packed: bytes, overflow: bool
) -> tuple[dict[str, object] | None, list[tuple[str, bytes]]]:
    """The driver's header and files from what came through the artefact pipe, checked
    here whatever the sandbox sent: (None, []) when it is not what the driver writes."""
    if overflow:
        return {"status": "too_big", "bytes": None}, []
    line, newline, body = packed.partition(b"\n")
    if not newline or len(line) > MAX_HEADER_BYTES:
        return None, []
    try:
        header = json.loads(line)
    except ValueError:
        return None, []
    if not isinstance(header, dict) or header.get("status") not in (
        "ok", "failed", "too_big", "too_many"
    ):
        return None, []
    if header["status"] != "ok":
        return header, []
    listed = header.get("files")
    if not isinstance(listed, list) or len(listed) > MAX_JAVA_CLASSES:
        return None, []
    files: list[tuple[str, bytes]] = []
    offset = 0
    for item in listed:
        if not (
            isinstance(item, list)
            and len(item) == 2
            and isinstance(item[0], str)
            and type(item[1]) is int
            and 0 <= item[1] <= MAX_ARTEFACT_BYTES
        ):
            return None, []
        name, size = item
        good = name == "bot" if language is Language.CPP else bool(_CLASS_FILE.fullmatch(name))
        if not good or len(name.encode()) > 255 or any(name == seen for seen, _ in files):
            return None, []
        files.append((name, body[offset : offset + size]))
        offset += size
    if offset != len(body) or offset > MAX_ARTEFACT_BYTES:
        return None, []
    return header, files


@dataclass(slots=True)
class Ran:
    """What a compile's run gave: its exit code, its text, the limit it met."""

    code: int | None
    output: bytes
    truncated: bool
    limit: BuildLimit | None
    #: What came through the artefact pipe (at most its cap), and whether more came.
    packed: bytes
    overflow: bool


async def _drain(fd: int, cap: int) -> tuple[bytes, bool]:
    """Read the pipe `fd` to its end, keeping at most `cap` bytes (then stop reading:
    (kept, True)). Closes `fd`."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 20)
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", buffering=0)
    )
    kept = bytearray()
    try:
        while chunk := await reader.read(1 << 20):
            if len(kept) + len(chunk) > cap:
                return bytes(kept), True
            kept += chunk
        return bytes(kept), False
    finally:
        transport.close()


async def _collect_output(stream: asyncio.StreamReader, kept: bytearray) -> bool:
    """Read `stream` to its end, keeping its first BUILD_MESSAGES_BYTES; True if cut."""
    truncated = False
    while chunk := await stream.read(64 * 1024):
        room = BUILD_MESSAGES_BYTES - len(kept)
        if len(chunk) > room:
            truncated = True
        kept.extend(chunk[: max(room, 0)])
    return truncated


async def watch_driver(
    process: asyncio.subprocess.Process,
    read_end: int,
    stop: Callable[[], Awaitable[None]],
    wall_s: float,
) -> Ran:
    """Read the driver's output and the artefact pipe `read_end` while it runs for
    at most the wall limit, then `stop()` whatever is left of it (both builders'
    way to kill) and collect what came, giving up on a stuck pipe after 2 s."""
    assert process.stdout is not None
    kept = bytearray()
    reader = asyncio.create_task(_collect_output(process.stdout, kept))
    artefact = asyncio.create_task(_drain(read_end, MAX_HEADER_BYTES + MAX_ARTEFACT_BYTES))
    limit: BuildLimit | None = None
    try:
        await asyncio.wait_for(process.wait(), wall_s)
    except TimeoutError:
        limit = "wall"
    finally:
        await stop()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), 5.0)
        truncated = False
        with contextlib.suppress(TimeoutError):
            truncated = await asyncio.wait_for(reader, 2.0)
        packed, overflow = b"", False
        with contextlib.suppress(TimeoutError):
            packed, overflow = await asyncio.wait_for(artefact, 2.0)
    return Ran(process.returncode, bytes(kept), truncated, limit, packed, overflow)
