"""Compiling and checking uploads in the sandbox (spec B2): `BotBuilder`.

- C++: `g++ -std=c++17 -O2 -o bot bot.cpp`;
- Java: the file as `Main.java`, `javac -d out Main.java` (JVM flags that fit the
  compile's 1 GiB); it must give `out/Main.class` (public class Main, no package);
- Python: a syntax check by `/usr/bin/python3`'s own `compile()`, in the sandbox;
- JAR: no compile; its `META-INF/MANIFEST.MF` (read with size caps) must name a
  `Main-Class` the JAR holds.

Each compile runs in the sandbox with its own limits (60 s wall, 1 CPU, 1 GiB, 64 pids);
going past one fails the build with a message naming it.

What a compile writes stays in the sandbox (spec B10): the upload is mounted read-only
from a private folder (0700, the compile's own uid, mounted through a descriptor), the
compiler works in the sandbox's size-capped tmpfs (`/tmp/build`), and a small driver
(`_DRIVER`, the system's Python) runs it, then sends what it made through a pipe: one
JSON line, then the files' bytes. The server reads at most `MAX_ARTEFACT_BYTES` from
that pipe and checks every name and size itself before writing anything, so neither
the host's `/tmp` nor the data directory receives more than the capped artefact. A C++
program or a Java build's class files together are at most `MAX_ARTEFACT_BYTES`, a Java
build at most `MAX_JAVA_CLASSES` class files; a JAR's entries are counted from its
central directory (`count_jar_entries`, constant memory) before any is read. The compiler's own text is kept
(first 16 KiB) for the owner, never naming a server path. The file is compiled under
its stored name (`bot.cpp`, `Main.java` — which javac requires for `public class Main` —
`bot.py`); where the messages name that file (`bot.cpp:3:5: error`, `File "bot.py"`,
`Note: Main.java uses …`) they name the uploaded file instead (`shown_as`). A sandbox
that cannot run at all raises `BuildUnavailable` (the server's problem, not the bot's).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import struct
import tempfile
import zipfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from noitu.adapters.arena.bubblewrap import HOST_ENV, NoFreeUser, Sandbox
from noitu.adapters.arena.cgroups.limits import BUILD_LIMITS, MIB, CgroupLimits
from noitu.adapters.arena.cgroups.tree import CgroupError
from noitu.adapters.arena.languages import SOURCE_NAME, needs_jvm
from noitu.application.arena.errors import FileTooLarge
from noitu.application.arena.limits import (
    MAX_ARTEFACT_BYTES,
    MAX_JAR_ENTRIES,
    MAX_JAVA_CLASSES,
    max_upload_bytes,
)
from noitu.application.arena.ports import (
    BUILD_MESSAGES_BYTES,
    Artefact,
    BuildLimit,
    BuildResult,
    Language,
)

MAX_MANIFEST_BYTES = 64 * 1024
#: Where the upload is mounted (read-only) and where the compiler works (the tmpfs).
SOURCE_DIR = "/src"
WORK_DIR = "/tmp/build"
#: The driver's JSON line on the artefact pipe, at most.
MAX_HEADER_BYTES = 256 * 1024
#: The C library's text for ENOSPC: the build's tmpfs is full.
_NO_SPACE = "No space left on device"

#: Runs in the sandbox as `python3 -I -S -B -c _DRIVER SOURCE WORK FD LANGUAGE NAME CAP
#: MOST -- COMPILER...`: copies the upload into WORK, runs the compiler there, then writes
#: to descriptor FD one JSON line ({"status", "code", "count", "bytes", "files": [[name,
#: size], ...]}) and the files' bytes in that order. The server trusts none of it.
_DRIVER = """\
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

_PYTHON_CHECK = """\
import sys, traceback
try:
    with open("bot.py", "rb") as handle:
        compile(handle.read(), "bot.py", "exec", dont_inherit=True)
except Exception as error:
    sys.stderr.write("".join(traceback.format_exception_only(type(error), error)))
    sys.exit(1)
"""

JAVAC_FLAGS = (
    "-J-XX:MaxRAM=1g",
    "-J-XX:+UseSerialGC",
    "-J-XX:ActiveProcessorCount=1",
    "-J-XX:TieredStopAtLevel=1",
    "-J-XX:-UsePerfData",
)


class BuildUnavailable(RuntimeError):
    """The sandbox could not run the compiler at all."""


@dataclass(frozen=True, slots=True)
class BuildLimits:
    wall_s: float = 60.0
    cgroup: CgroupLimits = field(default_factory=lambda: BUILD_LIMITS)
    tmp_bytes: int = 256 * MIB


def _limit_message(limit: BuildLimit, limits: BuildLimits) -> str:
    if limit == "wall":
        seconds = f"{limits.wall_s:g}".replace(".", ",")
        return f"Biên dịch bị dừng: vượt quá giới hạn thời gian {seconds} giây."
    if limit == "memory":
        megabytes = limits.cgroup.memory_bytes // MIB
        return f"Biên dịch bị dừng: vượt quá giới hạn bộ nhớ {megabytes} MB."
    pids = limits.cgroup.pids_max
    return f"Biên dịch bị dừng: vượt quá giới hạn {pids} tiến trình/luồng."


def _clean(output: bytes, truncated: bool) -> str:
    text = output.decode("utf-8", "replace")
    for folder in (WORK_DIR, SOURCE_DIR):
        text = text.replace(f"{folder}/", "")
    if truncated:
        text += "\n… (đã cắt bớt)"
    return text.strip()


def name_the_upload(messages: str, compiled_as: str, shown_as: str | None) -> str:
    """`messages` where they name the compiled file `compiled_as` as a place (followed
    by `:` or `"`, or after javac's `Note: `) naming `shown_as` instead."""
    if not shown_as or shown_as == compiled_as:
        return messages
    name = re.escape(compiled_as)
    place = re.compile(rf'(?<![\w./\\-]){name}(?=[:"])|(?<=Note: ){name}(?![\w.])')
    return place.sub(lambda _: shown_as, messages)


def _refuse(message: str) -> BuildResult:
    return BuildResult(ok=False, artefact=None, messages=message)


_BROKEN_ZIP = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    OSError,
    EOFError,
    ValueError,
    NotImplementedError,  # an unknown compression method
    RuntimeError,  # an encrypted entry
)


def read_manifest_main_class(path: Path) -> tuple[str | None, str]:
    """(Main-Class, "") of a JAR, or (None, why it is refused)."""
    try:
        with zipfile.ZipFile(path) as jar:
            try:
                info = jar.getinfo("META-INF/MANIFEST.MF")
            except KeyError:
                return None, "JAR không có META-INF/MANIFEST.MF, nên không có Main-Class."
            if info.file_size > MAX_MANIFEST_BYTES:
                return None, "META-INF/MANIFEST.MF của JAR quá lớn."
            with jar.open(info) as handle:
                data = handle.read(MAX_MANIFEST_BYTES + 1)
            if len(data) > MAX_MANIFEST_BYTES:
                return None, "META-INF/MANIFEST.MF của JAR quá lớn."
            names = set(jar.namelist())
    except _BROKEN_ZIP:
        return None, "Tệp JAR bị hỏng hoặc không phải tệp zip."
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, "META-INF/MANIFEST.MF của JAR không phải UTF-8."
    headers: dict[str, str] = {}
    last: str | None = None
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if line.startswith(" ") and last is not None:
            headers[last] += line[1:]
        elif ":" in line:
            key, _, value = line.partition(":")
            last = key.strip().lower()
            headers[last] = value.strip()
        elif not line:
            if headers:
                break  # the main section ends at the first empty line
            last = None
    main = headers.get("main-class", "").strip()
    if not main:
        return None, "META-INF/MANIFEST.MF của JAR không có Main-Class."
    if main.replace(".", "/") + ".class" not in names:
        return None, f"JAR không chứa lớp Main-Class {main}."
    return main, ""


def _vi_number(value: int) -> str:
    return f"{value:,}".replace(",", ".")


def _mib(size: int) -> str:
    return f"{size / MIB:.1f}".replace(".", ",")


def artefact_too_big(size: int | None = None) -> str:
    made = f" ({_mib(size)} MiB)" if size else ""
    return (
        f"Chương trình biên dịch ra quá lớn{made}: tối đa {MAX_ARTEFACT_BYTES // MIB} MiB."
    )


def too_many_classes(count: int) -> str:
    return (
        f"Bản dựng Java tạo ra {_vi_number(count)} tệp .class: "
        f"tối đa {_vi_number(MAX_JAVA_CLASSES)} tệp."
    )


def too_many_jar_entries() -> str:
    return f"Tệp JAR có quá nhiều mục: tối đa {_vi_number(MAX_JAR_ENTRIES)} mục."


def build_space_full(limits: BuildLimits) -> str:
    return (
        f"Biên dịch bị dừng: các tệp tạm của bản dựng vượt quá {limits.tmp_bytes // MIB} MiB "
        f"(chương trình biên dịch ra tối đa {MAX_ARTEFACT_BYTES // MIB} MiB)."
    )


_EOCD = struct.Struct("<4s4H2LH")  # end of central directory record
_CENTRAL = struct.Struct("<4s24x3H12x")  # a central directory header: its three lengths
_EOCD_SIGNATURE = b"PK\x05\x06"
_CENTRAL_SIGNATURE = b"PK\x01\x02"


def count_jar_entries(path: Path, most: int = MAX_JAR_ENTRIES) -> int | None:
    """The entries of the zip `path` by its central directory, reading no member and
    holding one header at a time; counting stops past `most` (a count above `most` means
    "too many"). None when there is no consistent central directory. The directory is
    found where zipfile and the JVM look for it: just before the end record."""
    with open(path, "rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        tail_length = min(size, _EOCD.size + 0xFFFF)
        handle.seek(size - tail_length)
        tail = handle.read(tail_length)
        at = tail.rfind(_EOCD_SIGNATURE)
        if at < 0 or len(tail) - at < _EOCD.size:
            return None
        _, _, _, _, total, cd_size, _, _ = _EOCD.unpack_from(tail, at)
        if total == 0xFFFF:  # Zip64: 65,535 entries or more
            return max(most + 1, total)
        if total > most:
            return total
        end = size - tail_length + at
        position = end - cd_size
        if position < 0:
            return None
        count = 0
        while position < end:
            handle.seek(position)
            header = handle.read(_CENTRAL.size)
            if len(header) < _CENTRAL.size or not header.startswith(_CENTRAL_SIGNATURE):
                return None
            _, name, extra, comment = _CENTRAL.unpack(header)
            position += _CENTRAL.size + name + extra + comment
            count += 1
            if count > most:
                return count
        if position != end or count != total:
            return None
        return count


def _install(files: list[tuple[str, bytes | Path, int]], into: Path) -> bool:
    """Put (name, bytes or a file to copy, mode) into the fresh directory `into`, all or
    nothing."""
    into.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{into.name}-", dir=into.parent))
    try:
        for name, data, mode in files:
            target = staging / name
            if isinstance(data, Path):
                shutil.copyfile(data, target, follow_symlinks=False)
            else:
                target.write_bytes(data)
            os.chmod(target, mode)
        os.chmod(staging, 0o755)
        if into.exists():
            shutil.rmtree(into)
        os.rename(staging, into)
        return True
    except OSError:
        return False
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


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


def _fill(folder: Path, source: Path, name: str, user: tuple[int, int] | None) -> None:
    """Copy the upload into `folder` as `name`, readable by `user` alone (when set)."""
    target = folder / name
    shutil.copyfile(source, target)
    os.chmod(target, 0o400)
    if user is not None:
        os.chown(target, *user)
        os.chown(folder, *user)


@dataclass(slots=True)
class _Ran:
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


class SandboxBuilder:
    """`BotBuilder` that compiles in the bubblewrap + cgroup sandbox."""

    def __init__(self, sandbox: Sandbox, limits: BuildLimits | None = None) -> None:
        self.sandbox = sandbox
        self.tools = sandbox.tools
        self.limits = limits or BuildLimits()

    async def build(
        self, source: Path, language: Language, into: Path, *, shown_as: str | None = None
    ) -> BuildResult:
        try:
            size = source.stat().st_size
        except OSError:
            return _refuse("Không đọc được tệp tải lên.")
        if size > max_upload_bytes(language):
            return _refuse(FileTooLarge().message)
        if language is Language.JAR:
            return await asyncio.to_thread(self._jar, source, into)
        name = SOURCE_NAME[language]
        compiler = self._compiler(language, name)
        folder = self._new_folder()
        try:
            user = self._lease(folder)
            await asyncio.to_thread(_fill, folder, source, name, user)
            ran = await self._run(compiler, folder, user, language, name)
        finally:
            await asyncio.to_thread(shutil.rmtree, folder, True)
        messages = name_the_upload(_clean(ran.output, ran.truncated), name, shown_as)
        if ran.limit is not None:
            text = _limit_message(ran.limit, self.limits)
            return BuildResult(False, None, f"{text}\n{messages}".strip(), ran.limit)
        return await asyncio.to_thread(self._collect, language, ran, source, into, messages)

    def _compiler(self, language: Language, name: str) -> list[str]:
        tools = self.tools
        if language is Language.PYTHON:
            return [tools.python, "-I", "-B", "-c", _PYTHON_CHECK]
        if language is Language.CPP:
            if not tools.gxx:
                raise BuildUnavailable("g++ is not installed")
            return [tools.gxx, "-std=c++17", "-O2", "-o", "bot", name]
        if language is Language.JAVA:
            if not tools.javac:
                raise BuildUnavailable("javac is not installed (openjdk-17-jdk-headless)")
            options = ["-encoding", "UTF-8", "-proc:none", "-d", "out"]
            return [tools.javac, *JAVAC_FLAGS, *options, name]
        raise BuildUnavailable(f"no compiler for {language.value}")

    def _new_folder(self) -> Path:
        """A private folder (0700) for the upload's copy, removed after the build."""
        return self.sandbox.new_stage()

    def _lease(self, folder: Path) -> tuple[int, int] | None:
        """The uid of its own the compile runs as, leased until `folder` is removed
        (on the event loop's thread, like every lease)."""
        try:
            return self.sandbox.lease_user(folder)
        except NoFreeUser as error:
            raise BuildUnavailable(str(error)) from error

    @staticmethod
    def _driver(
        compiler: list[str], source_dir: str, work_dir: str, fd: int, language: Language, name: str
    ) -> list[str]:
        caps = [str(MAX_ARTEFACT_BYTES), str(MAX_JAVA_CLASSES)]
        head = ["-I", "-S", "-B", "-c", _DRIVER, source_dir, work_dir, str(fd)]
        return [*head, language.value, name, *caps, "--", *compiler]

    def _jar(self, source: Path, into: Path) -> BuildResult:
        try:
            entries = count_jar_entries(source)
        except OSError:
            entries = None
        if entries is None:
            return _refuse("Tệp JAR bị hỏng hoặc không phải tệp zip.")
        if entries > MAX_JAR_ENTRIES:
            return _refuse(too_many_jar_entries())
        main, why = read_manifest_main_class(source)
        if main is None:
            return _refuse(why)
        if not _install([("bot.jar", source, 0o644)], into):
            return _refuse("Không lưu được tệp JAR.")
        return BuildResult(True, Artefact(Language.JAR, into), "")

    def _collect(
        self, language: Language, ran: _Ran, source: Path, into: Path, messages: str
    ) -> BuildResult:
        header, files = unpack_artefact(language, ran.packed, ran.overflow)
        status = header.get("status") if header is not None else None
        if status == "too_big":
            size = header.get("bytes") if header is not None else None
            return _refuse(artefact_too_big(size if type(size) is int else None))
        if status == "too_many":
            count = header.get("count") if header is not None else None
            return _refuse(too_many_classes(count if type(count) is int else MAX_JAVA_CLASSES + 1))
        if status != "ok" or ran.code != 0:
            if _NO_SPACE in messages:
                return _refuse(f"{build_space_full(self.limits)}\n{messages}".strip())
            return _refuse(messages or f"Trình biên dịch dừng với mã {ran.code}.")
        if language is Language.PYTHON:
            stored: list[tuple[str, bytes | Path, int]] = [("bot.py", source, 0o644)]
        elif language is Language.CPP:
            stored = [(name, data, 0o755) for name, data in files]
        elif language is Language.JAVA:
            if "Main.class" not in {name for name, _ in files}:
                return _refuse(
                    (messages + "\n" if messages else "")
                    + "Không có Main.class: tệp Java phải khai báo `public class Main` "
                    "và không có `package`."
                )
            stored = [(name, data, 0o644) for name, data in files]
        else:
            return _refuse(f"Máy chủ chưa biết dựng bot {language.value}.")
        if not stored or not _install(stored, into):
            return _refuse("Trình biên dịch không tạo ra chương trình.")
        return BuildResult(True, Artefact(language, into), messages)

    async def _run(
        self,
        compiler: list[str],
        folder: Path,
        user: tuple[int, int] | None,
        language: Language,
        name: str,
    ) -> _Ran:
        try:
            cgroup = self.sandbox.cgroups.create("build", self.limits.cgroup)
        except CgroupError as error:
            raise BuildUnavailable(str(error)) from error
        read_end, write_end = os.pipe2(os.O_CLOEXEC)
        folder_fd = -1
        try:
            folder_fd = os.open(folder, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
            driver = [self.tools.python, *self._driver(
                compiler, SOURCE_DIR, WORK_DIR, write_end, language, name
            )]
            with self.sandbox.kernel_filter() as seccomp_fd:
                argv = self.sandbox.argv(
                    cgroup,
                    self.sandbox.bwrap_args(
                        driver,
                        read_only=[(folder_fd, SOURCE_DIR)],
                        chdir="/tmp",
                        tmp_bytes=self.limits.tmp_bytes,
                        seccomp_fd=seccomp_fd,
                        java=needs_jvm(language),
                    ),
                    user,
                )
                passed = [write_end, folder_fd] + ([] if seccomp_fd is None else [seccomp_fd])
                process = await asyncio.create_subprocess_exec(
                    *argv,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.STDOUT,
                    env=dict(HOST_ENV),
                    cwd="/",
                    start_new_session=True,
                    pass_fds=passed,
                )
        except (OSError, RuntimeError) as error:
            os.close(read_end)
            await cgroup.remove()
            raise BuildUnavailable(f"cannot start the compiler sandbox: {error}") from error
        finally:
            os.close(write_end)
            if folder_fd >= 0:
                os.close(folder_fd)

        async def stop() -> None:
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
            await cgroup.kill_all()

        try:
            ran = await self._watch(process, read_end, stop)
        finally:
            oom = cgroup.oom_kills() > 0
            forks = cgroup.pids_limit_hits() > 0
            await cgroup.remove()
        if ran.limit is None and oom:
            ran.limit = "memory"
        if ran.limit is None and forks and ran.code != 0:
            ran.limit = "pids"
        return ran

    async def _watch(
        self,
        process: asyncio.subprocess.Process,
        read_end: int,
        stop: Callable[[], Awaitable[None]],
    ) -> _Ran:
        """Read the driver's output and the artefact pipe `read_end` while it runs for
        at most the wall limit, then `stop()` whatever is left of it (both builders'
        way to kill) and collect what came, giving up on a stuck pipe after 2 s."""
        assert process.stdout is not None
        kept = bytearray()
        reader = asyncio.create_task(_collect_output(process.stdout, kept))
        artefact = asyncio.create_task(_drain(read_end, MAX_HEADER_BYTES + MAX_ARTEFACT_BYTES))
        limit: BuildLimit | None = None
        try:
            await asyncio.wait_for(process.wait(), self.limits.wall_s)
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
        return _Ran(process.returncode, bytes(kept), truncated, limit, packed, overflow)


class DirectBuilder(SandboxBuilder):
    """`BotBuilder` with the local compilers and no sandbox, for trusted files only: the
    repository's own samples (tools/verify-bot-examples.py) and the CLI's explicit
    `--no-sandbox`. Same driver, steps, file names, output limits and messages; the
    compiler works in a host temporary folder, and only the wall-clock limit is enforced
    (there is no cgroup)."""

    def __init__(self, limits: BuildLimits | None = None, path: str | None = None) -> None:
        from noitu.adapters.arena.bubblewrap import SandboxTools

        self.tools = SandboxTools.find(path)
        self.limits = limits or BuildLimits()

    def _new_folder(self) -> Path:
        return Path(tempfile.mkdtemp(prefix="noitu-build-"))

    def _lease(self, folder: Path) -> tuple[int, int] | None:
        return None

    async def _run(
        self,
        compiler: list[str],
        folder: Path,
        user: tuple[int, int] | None,
        language: Language,
        name: str,
    ) -> _Ran:
        read_end, write_end = os.pipe2(os.O_CLOEXEC)
        work = folder / "work"
        driver = [self.tools.python, *self._driver(
            compiler, str(folder), str(work), write_end, language, name
        )]
        try:
            process = await asyncio.create_subprocess_exec(
                *driver,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                env=dict(HOST_ENV),
                cwd="/",
                start_new_session=True,
                pass_fds=(write_end,),
            )
        except OSError as error:
            os.close(read_end)
            raise BuildUnavailable(f"cannot start {driver[0]}: {error}") from error
        finally:
            os.close(write_end)

        async def stop() -> None:
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)

        ran = await self._watch(process, read_end, stop)
        ran.output = ran.output.replace(f"{work}/".encode(), b"")
        return ran
