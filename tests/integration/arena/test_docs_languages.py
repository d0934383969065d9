"""The language versions and compiler flags the authors' documents (BOT-UPLOAD.md, the
guide) promise, against what the server really builds and runs: a probe bot per
language is built and run in this machine's sandbox, exactly as an upload would be, and
says which version it got."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from noitu.adapters.arena.bubblewrap import BubblewrapLauncher
from noitu.adapters.arena.build import SandboxBuilder
from noitu.adapters.arena.sandbox import Sandbox
from noitu.application.arena.languages import LANGUAGES
from noitu.application.arena.ports import Artefact, Language, ProcessFailure, Reply

ROOT = Path(__file__).resolve().parents[3]
DOCUMENTS = (ROOT / "BOT-UPLOAD.md", ROOT / "assets" / "arena" / "bot-guide.html")
VERSION = re.compile(r'<span data-version="([a-z]+)">([^<]*)</span>')

PYTHON_PROBE = """\
import sys
sys.stdin.readline()
print("%d.%d" % sys.version_info[:2], flush=True)
"""

CPP_PROBE = """\
#include <iostream>
#include <string>
int main() {
    std::string line;
    std::getline(std::cin, line);
#ifdef __OPTIMIZE__
    const char *optimised = "optimised";
#else
    const char *optimised = "unoptimised";
#endif
    std::cout << __GNUC__ << " " << __cplusplus << " " << optimised << std::endl;
}
"""

JAVA_PROBE = """\
import java.io.BufferedReader;
import java.io.InputStreamReader;

public class Main {
    public static void main(String[] args) throws Exception {
        new BufferedReader(new InputStreamReader(System.in)).readLine();
        System.out.println(Runtime.version().feature());
        System.out.flush();
    }
}
"""

#: `__cplusplus` for each `-std=c++NN`.
CPLUSPLUS = {"11": "201103", "14": "201402", "17": "201703", "20": "202002"}


def _promised() -> dict[str, str]:
    """The one version each document gives per language; both must agree."""
    versions: dict[str, set[str]] = {}
    for document in DOCUMENTS:
        found = VERSION.findall(document.read_text(encoding="utf-8"))
        named = {name for name, _ in found}
        assert named == {"python", "gxx", "java"}, f"{document.name} marks versions of {sorted(named)}"
        for name, written in found:
            versions.setdefault(name, set()).add(written.strip())
    assert all(len(v) == 1 for v in versions.values()), f"the documents disagree: {versions}"
    return {name: next(iter(v)) for name, v in versions.items()}


def _cpp_flags() -> tuple[str, str]:
    """The `-std=c++NN` and `-On` every `g++` command of the documents uses."""
    standards, levels = set(), set()
    for document in DOCUMENTS:
        for command in re.findall(r"g\+\+ (-std=c\+\+\d+ -O\d)", document.read_text(encoding="utf-8")):
            standard, level = command.split()
            standards.add(standard.removeprefix("-std=c++"))
            levels.add(level.removeprefix("-O"))
    assert len(standards) == 1 and len(levels) == 1, f"the documents name several: {standards}, {levels}"
    return standards.pop(), levels.pop()


def test_the_documents_promise_the_versions_of_the_language_table() -> None:
    promised = _promised()
    assert promised == {
        "python": LANGUAGES[Language.PYTHON].version,
        "gxx": LANGUAGES[Language.CPP].version,
        "java": LANGUAGES[Language.JAVA].version,
    }
    assert LANGUAGES[Language.JAR].version == LANGUAGES[Language.JAVA].version


async def _answer(sandbox: Sandbox, artefact: Artefact) -> str:
    bot = await BubblewrapLauncher(sandbox).launch(artefact)
    assert not isinstance(bot, ProcessFailure), bot
    try:
        reply = await bot.ask("{}", 25.0)
        assert isinstance(reply, Reply), (reply, bot.stderr_tail())
        return reply.line.decode()
    finally:
        await bot.close()


async def _built(sandbox: Sandbox, language: Language, name: str, source: str, tmp_path: Path) -> Artefact:
    missing_gxx = language is Language.CPP and sandbox.tools.gxx is None
    if missing_gxx or (language is Language.JAVA and sandbox.tools.javac is None):
        pytest.fail("the arena needs g++ and javac (apt-get install g++ openjdk-17-jdk-headless)")
    (tmp_path / name).write_text(source)
    result = await SandboxBuilder(sandbox).build(tmp_path / name, language, tmp_path / f"{language}-built")
    assert result.ok and result.artefact is not None, result.messages
    return result.artefact


async def test_python_bots_run_on_the_python_the_documents_name(arena_sandbox: Sandbox, tmp_path: Path) -> None:
    artefact = await _built(arena_sandbox, Language.PYTHON, "probe.py", PYTHON_PROBE, tmp_path)
    assert await _answer(arena_sandbox, artefact) == _promised()["python"]


async def test_cpp_bots_are_built_by_the_gxx_and_flags_the_documents_name(
    arena_sandbox: Sandbox, tmp_path: Path
) -> None:
    standard, level = _cpp_flags()
    assert level != "0", "the documents say the server does not optimise"
    artefact = await _built(arena_sandbox, Language.CPP, "probe.cpp", CPP_PROBE, tmp_path)
    major, cplusplus, optimised = (await _answer(arena_sandbox, artefact)).split()
    assert major == _promised()["gxx"], f"the server builds with g++ {major}"
    assert cplusplus == CPLUSPLUS[standard], f"the server builds C++ as __cplusplus {cplusplus}"
    assert optimised == "optimised"


async def test_java_bots_are_built_and_run_by_the_java_the_documents_name(
    arena_sandbox: Sandbox, tmp_path: Path
) -> None:
    artefact = await _built(arena_sandbox, Language.JAVA, "Probe.java", JAVA_PROBE, tmp_path)
    assert await _answer(arena_sandbox, artefact) == _promised()["java"]
