"""Compiling and checking uploads in the real sandbox (spec B2), then running them."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest
from support.arena_bots import BOTS

from noitu.adapters.arena.bubblewrap import BubblewrapLauncher, Sandbox
from noitu.adapters.arena.build import BuildLimits, SandboxBuilder, read_manifest_main_class
from noitu.adapters.arena.cgroups import BUILD_LIMITS, MIB, CgroupLimits
from noitu.adapters.arena.languages import language_for
from noitu.application.arena.ports import Artefact, BuildResult, Language, ProcessFailure, Reply


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
