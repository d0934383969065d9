"""Compiling and checking uploads in the real sandbox (spec B2), then running them."""

from __future__ import annotations

import contextlib
import os
import re
import stat
import struct
import threading
import tracemalloc
import zipfile
from pathlib import Path
from typing import Self

import pytest

from noitu.adapters.arena.bubblewrap import BubblewrapLauncher
from noitu.adapters.arena.build import BuildLimits, SandboxBuilder
from noitu.adapters.arena.cgroups.limits import BUILD_LIMITS, MIB, CgroupLimits
from noitu.adapters.arena.jar import read_manifest_main_class
from noitu.adapters.arena.languages import language_for
from noitu.adapters.arena.sandbox import Sandbox
from noitu.application.arena.limits import MAX_ARTEFACT_BYTES, MAX_JAR_ENTRIES, MAX_JAVA_CLASSES
from noitu.application.arena.ports import Artefact, BuildResult, Language, ProcessFailure, Reply
from support.arena_bots import BOTS
from support.owned import is_below


@pytest.fixture
def builder(arena_sandbox: Sandbox) -> SandboxBuilder:
    if arena_sandbox.tools.gxx is None or arena_sandbox.tools.javac is None:
        pytest.fail("the arena needs g++ and javac (apt-get install g++ openjdk-17-jdk-headless)")
    return SandboxBuilder(arena_sandbox)


async def ask_once(sandbox: Sandbox, artefact: Artefact, line: str = "{}") -> bytes:
    bot = await BubblewrapLauncher(sandbox).launch(artefact)
    assert not isinstance(bot, ProcessFailure), bot
    try:
        reply = await bot.ask(line, 25.0)
        assert isinstance(reply, Reply), (reply, bot.stderr_tail())
        return reply.line
    finally:
        await bot.close()


def assert_no_server_paths(result: BuildResult, *paths: Path) -> None:
    for path in ("/src/", "/tmp/", *map(str, paths)):
        assert path not in result.messages, result.messages


def test_languages_by_file_name() -> None:
    assert language_for("bot.py") is Language.PYTHON
    for name in ("a.cpp", "a.CC", "x.cxx"):
        assert language_for(name) is Language.CPP
    assert language_for("Bot.java") is Language.JAVA
    assert language_for("bot.jar") is Language.JAR
    assert language_for("bot.c") is None and language_for("bot") is None


async def test_a_cpp_bot_compiles_and_runs(builder: SandboxBuilder, arena_sandbox: Sandbox, tmp_path: Path) -> None:
    result = await builder.build(BOTS / "echo.cpp", Language.CPP, tmp_path / "cpp")
    assert result.ok, result.messages
    assert result.artefact == Artefact(Language.CPP, tmp_path / "cpp")
    assert sorted(p.name for p in (tmp_path / "cpp").iterdir()) == ["bot"]
    assert await ask_once(arena_sandbox, result.artefact, "{1234}") == b"cpp 1 6"


async def test_a_cpp_bot_that_does_not_compile_keeps_the_compilers_messages(
    builder: SandboxBuilder, tmp_path: Path
) -> None:
    result = await builder.build(BOTS / "broken.cpp", Language.CPP, tmp_path / "broken")
    assert not result.ok and result.artefact is None and result.limit is None
    assert "bot.cpp:4:" in result.messages  # no uploaded name given: the stored one
    named = await builder.build(
        BOTS / "broken.cpp", Language.CPP, tmp_path / "named", shown_as="alpha beta.cpp"
    )
    # The messages name the file its author uploaded, wherever g++ names the file.
    assert "alpha beta.cpp:4:" in named.messages and "alpha beta.cpp: In function" in named.messages
    assert re.search(r"(?<![\w ])bot\.cpp", named.messages) is None, named.messages
    assert "error" in result.messages and "undeclared_variable" in result.messages
    assert_no_server_paths(result, BOTS, tmp_path)
    assert not (tmp_path / "broken").exists()


async def test_a_compile_past_the_wall_limit_says_so(arena_sandbox: Sandbox, tmp_path: Path) -> None:
    builder = SandboxBuilder(arena_sandbox, BuildLimits(wall_s=0.2))
    result = await builder.build(BOTS / "echo.cpp", Language.CPP, tmp_path / "slow")
    assert not result.ok and result.limit == "wall"
    assert result.messages.startswith("Biên dịch bị dừng: vượt quá giới hạn thời gian 0,2 giây.")


async def test_a_compile_past_the_memory_limit_says_so(arena_sandbox: Sandbox, tmp_path: Path) -> None:
    tight = CgroupLimits(memory_bytes=24 * MIB, cpu_quota_us=BUILD_LIMITS.cpu_quota_us,
                         cpu_period_us=BUILD_LIMITS.cpu_period_us, pids_max=BUILD_LIMITS.pids_max)
    builder = SandboxBuilder(arena_sandbox, BuildLimits(cgroup=tight))
    result = await builder.build(BOTS / "echo.cpp", Language.CPP, tmp_path / "big")
    assert not result.ok and result.limit == "memory", result
    assert result.messages.startswith("Biên dịch bị dừng: vượt quá giới hạn bộ nhớ 24 MB.")


async def test_a_java_bot_compiles_runs_and_packs_into_a_jar(
    builder: SandboxBuilder, arena_sandbox: Sandbox, tmp_path: Path
) -> None:
    upload = tmp_path / "upload-name.java"  # stored as Main.java whatever its name
    upload.write_bytes((BOTS / "Main.java").read_bytes())
    result = await builder.build(upload, Language.JAVA, tmp_path / "java")
    assert result.ok, result.messages
    assert (tmp_path / "java" / "Main.class").is_file()
    words = (await ask_once(arena_sandbox, result.artefact)).split()
    assert words[:2] == [b"java", b"1"]
    heap_mib, processors = int(words[2]), int(words[3])
    assert 100 <= heap_mib <= 200  # sized from -XX:MaxRAM=384m, not from the host
    assert processors == 1

    jar = tmp_path / "bot.jar"
    with zipfile.ZipFile(jar, "w") as archive:
        archive.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\nMain-Class: Main\r\n\r\n")
        archive.write(tmp_path / "java" / "Main.class", "Main.class")
    packed = await builder.build(jar, Language.JAR, tmp_path / "jar")
    assert packed.ok, packed.messages
    assert sorted(p.name for p in (tmp_path / "jar").iterdir()) == ["bot.jar"]
    assert (await ask_once(arena_sandbox, packed.artefact)).startswith(b"java 1 ")


async def test_a_java_file_with_a_package_is_refused(builder: SandboxBuilder, tmp_path: Path) -> None:
    result = await builder.build(BOTS / "Packaged.java", Language.JAVA, tmp_path / "packaged")
    assert not result.ok
    assert "public class Main" in result.messages and "package" in result.messages


def _jar(path: Path, manifest: str | None, entries: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        if manifest is not None:
            archive.writestr("META-INF/MANIFEST.MF", manifest)
        for name, data in entries.items():
            archive.writestr(name, data)
    return path


async def test_jars_without_a_usable_main_class_are_refused(builder: SandboxBuilder, tmp_path: Path) -> None:
    cases = {
        "no manifest": (_jar(tmp_path / "a.jar", None, {"Main.class": b"\xca\xfe"}), "không có META-INF/MANIFEST.MF"),
        "no Main-Class": (
            _jar(tmp_path / "b.jar", "Manifest-Version: 1.0\n\n", {"Main.class": b"\xca\xfe"}),
            "không có Main-Class",
        ),
        "class missing": (
            _jar(tmp_path / "c.jar", "Manifest-Version: 1.0\nMain-Class: org.example.Bot\n", {}),
            "không chứa lớp Main-Class org.example.Bot",
        ),
        "not a zip": (tmp_path / "d.jar", "bị hỏng hoặc không phải tệp zip"),
    }
    (tmp_path / "d.jar").write_bytes(b"PK\x03\x04 this is not really a zip")
    for name, (jar, message) in cases.items():
        result = await builder.build(jar, Language.JAR, tmp_path / f"out-{jar.stem}")
        assert not result.ok, name
        assert message in result.messages, (name, result.messages)
        assert not (tmp_path / f"out-{jar.stem}").exists()


def test_a_manifest_main_class_may_be_folded_over_lines(tmp_path: Path) -> None:
    jar = _jar(
        tmp_path / "folded.jar",
        "Manifest-Version: 1.0\r\nMain-Class: org.example.very.long.pack\r\n age.Bot\r\n\r\nName: x\r\n",
        {"org/example/very/long/package/Bot.class": b""},
    )
    assert read_manifest_main_class(jar) == ("org.example.very.long.package.Bot", "")
    huge = tmp_path / "huge.jar"
    with zipfile.ZipFile(huge, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("META-INF/MANIFEST.MF", "Main-Class: Main\n" + "X-Pad: " + "a" * (1 << 20) + "\n")
    assert read_manifest_main_class(huge) == (None, "META-INF/MANIFEST.MF của JAR quá lớn.")


async def test_a_python_bot_with_a_syntax_error_is_refused(builder: SandboxBuilder, tmp_path: Path) -> None:
    source = tmp_path / "mine.py"
    source.write_text("import sys\n\ndef choose(request:\n    return 1\n")
    result = await builder.build(source, Language.PYTHON, tmp_path / "py")
    assert not result.ok
    assert 'File "bot.py", line 3' in result.messages and "SyntaxError" in result.messages
    assert_no_server_paths(result, tmp_path)
    named = await builder.build(source, Language.PYTHON, tmp_path / "py", shown_as="mine.py")
    assert 'File "mine.py", line 3' in named.messages and "bot.py" not in named.messages


async def test_a_java_compile_error_names_the_uploaded_file(
    builder: SandboxBuilder, tmp_path: Path
) -> None:
    source = tmp_path / "upload.java"
    source.write_text("public class Main {\n    int x = ;\n}\n")
    result = await builder.build(source, Language.JAVA, tmp_path / "java", shown_as="Bot1.java")
    assert not result.ok and "Bot1.java:2: error:" in result.messages, result.messages
    assert "Main.java" not in result.messages


async def test_a_good_python_bot_is_kept_and_runs(builder: SandboxBuilder, arena_sandbox: Sandbox, tmp_path: Path) -> None:
    result = await builder.build(BOTS / "echo.py", Language.PYTHON, tmp_path / "py")
    assert result.ok and result.messages == ""
    assert (tmp_path / "py" / "bot.py").read_bytes() == (BOTS / "echo.py").read_bytes()
    assert await ask_once(arena_sandbox, result.artefact, "hi") == b"ok 1 hi"


async def test_an_upload_over_the_size_cap_is_refused(builder: SandboxBuilder, tmp_path: Path) -> None:
    source = tmp_path / "big.py"
    source.write_bytes(b"#" * (256 * 1024 + 1))
    result = await builder.build(source, Language.PYTHON, tmp_path / "out")
    assert not result.ok and "tối đa 256 KiB" in result.messages


class GrowthWatch:
    """The largest total size (apparent or allocated, whichever is larger) of the files
    under some folders, sampled every few milliseconds in a thread while it runs."""

    def __init__(self, *folders: Path) -> None:
        self.folders = folders
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _total(self) -> int:
        total = 0
        for folder in self.folders:
            for root, _, names in os.walk(folder):
                for name in names:
                    with contextlib.suppress(OSError):
                        info = os.lstat(os.path.join(root, name))
                        total += max(info.st_size, info.st_blocks * 512)
        return total

    def _watch(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._total())
            self._stop.wait(0.005)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._total())


async def test_a_source_whose_program_is_huge_writes_nothing_big_on_the_host(
    builder: SandboxBuilder, arena_sandbox: Sandbox, tmp_path: Path
) -> None:
    # The linker would write hundreds of MiB: all of it stays in the build's capped
    # tmpfs; neither the stage root (the host's /tmp here) nor the data directory grows.
    assert arena_sandbox.stage_root is not None
    data = tmp_path / "data"
    data.mkdir()
    with GrowthWatch(arena_sandbox.stage_root, data) as watch:
        result = await builder.build(BOTS / "aligned_section.cpp", Language.CPP, data / "artefact")
    assert watch.peak < MAX_ARTEFACT_BYTES, watch.peak
    assert not result.ok and result.artefact is None
    assert "16 MiB" in result.messages, result.messages
    assert not (data / "artefact").exists()


async def test_a_program_over_the_artefact_cap_is_refused(builder: SandboxBuilder, tmp_path: Path) -> None:
    with GrowthWatch(tmp_path) as watch:
        result = await builder.build(BOTS / "big_data.cpp", Language.CPP, tmp_path / "big")
    assert not result.ok
    assert "Chương trình biên dịch ra quá lớn (20," in result.messages, result.messages
    assert "tối đa 16 MiB" in result.messages
    assert watch.peak < MAX_ARTEFACT_BYTES
    assert not (tmp_path / "big").exists()


def _many_classes(count: int) -> str:
    others = "".join(f"class C{i} {{ int v = {i}; }}\n" for i in range(1, count))
    return "public class Main { public static void main(String[] args) {} }\n" + others


async def test_a_java_build_over_the_class_file_cap_is_refused(builder: SandboxBuilder, tmp_path: Path) -> None:
    source = tmp_path / "Many.java"
    source.write_text(_many_classes(MAX_JAVA_CLASSES + 100))
    result = await builder.build(source, Language.JAVA, tmp_path / "many")
    assert not result.ok
    assert result.messages == "Bản dựng Java tạo ra 600 tệp .class: tối đa 500 tệp.", result.messages
    assert not (tmp_path / "many").exists()
    source.write_text(_many_classes(MAX_JAVA_CLASSES))
    exactly = await builder.build(source, Language.JAVA, tmp_path / "exactly")
    assert exactly.ok, exactly.messages
    assert len(list((tmp_path / "exactly").glob("*.class"))) == MAX_JAVA_CLASSES


def _many_entry_jar(path: Path, entries: int, *, declared: int | None = None) -> Path:
    """A JAR of `entries` empty classes whose members cannot be read (every local header
    is broken), and whose end record says `declared` entries when given."""
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nMain-Class: Main\n")
        archive.writestr("Main.class", b"")
        for i in range(entries - 2):
            archive.writestr(f"c{i}.class", b"")
    data = bytearray(path.read_bytes().replace(b"PK\x03\x04", b"PK\x03\x07"))
    if declared is not None:
        end = data.rfind(b"PK\x05\x06")
        data[end + 8 : end + 12] = struct.pack("<2H", declared, declared)
    path.write_bytes(bytes(data))
    return path


async def test_a_jar_over_the_entry_cap_is_refused_before_any_member_is_read(
    builder: SandboxBuilder, tmp_path: Path
) -> None:
    refusal = "Tệp JAR có quá nhiều mục: tối đa 10.000 mục."
    jar = _many_entry_jar(tmp_path / "many.jar", MAX_JAR_ENTRIES + 1)
    result = await builder.build(jar, Language.JAR, tmp_path / "out")
    # Reading the manifest would have found the broken local headers ("bị hỏng").
    assert not result.ok and result.messages == refusal, result.messages
    # An end record that understates the entries does not help: they are counted.
    lying = _many_entry_jar(tmp_path / "lying.jar", 60_000, declared=5)
    tracemalloc.start()
    try:
        result = await builder.build(lying, Language.JAR, tmp_path / "out")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert not result.ok and result.messages == refusal, result.messages
    assert peak < MIB, peak  # one header at a time, not the whole directory
    assert not (tmp_path / "out").exists()


async def test_a_compile_runs_as_a_uid_of_its_own_in_a_private_folder_named_nowhere(
    builder: SandboxBuilder, arena_sandbox: Sandbox, tmp_path: Path
) -> None:
    assert arena_sandbox.stage_root is not None and arena_sandbox.users is not None
    root = arena_sandbox.stage_root
    seen: dict[str, tuple[int, int]] = {}  # folder -> (mode, owner)
    uids: set[int] = set()
    named: list[str] = []
    stop = threading.Event()
    before = set(os.listdir(root))  # stages other tests may have left

    def watch() -> None:
        while not stop.is_set():
            for entry in os.scandir(root):
                if entry.name in before:
                    continue
                with contextlib.suppress(OSError):
                    info = entry.stat(follow_symlinks=False)
                    seen[entry.path] = (stat.S_IMODE(info.st_mode), info.st_uid)
            for pid in filter(str.isdigit, os.listdir("/proc")):
                with contextlib.suppress(OSError):
                    with open(f"/proc/{pid}/cmdline", "rb") as handle:
                        cmdline = handle.read().decode("utf-8", "replace")
                    if any(folder in cmdline for folder in seen):
                        named.append(cmdline)
                    with open(f"/proc/{pid}/comm") as handle:
                        # The compiler itself: this test's, not another javac of the machine.
                        if handle.read().strip() == "javac" and is_below(int(pid), os.getpid()):
                            uids.add(os.stat(f"/proc/{pid}").st_uid)
            stop.wait(0.005)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        result = await builder.build(BOTS / "Main.java", Language.JAVA, tmp_path / "java")
    finally:
        stop.set()
        thread.join()
    assert result.ok, result.messages
    assert seen, "the compile's folder was never seen"
    for mode, owner in seen.values():
        assert mode == 0o700, oct(mode)
        assert owner in arena_sandbox.users.uids and owner != 65534, owner
    # The compiler ran as the folder's uid.
    assert {owner for _, owner in seen.values()} == uids, (uids, seen)
    assert not named, named
    assert not any(os.path.lexists(folder) for folder in seen)  # removed: the uid is free again
