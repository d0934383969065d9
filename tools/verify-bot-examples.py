#!/usr/bin/env python3
"""Build and check every sample bot of the repository with the local toolchains (spec A7).

    .venv/bin/python tools/verify-bot-examples.py

Each sample in assets/bot-examples/ (and a JAR packed from Main.java, to check the JAR
path too) is compiled with the local g++ / javac / python3 and run through the same
self-check as `noitu arena check`: the fixed requests, then whole matches against the
built-in random bot. The samples are the repository's own, trusted files: they run
without the sandbox. This tool is not for anyone else's code — use `noitu arena check`.

Exit status 0 only when every sample passes every case.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "assets" / "bot-examples"

try:
    from noitu.adapters.arena.build import DirectBuilder
    from noitu.adapters.arena.builtin import BuiltinBots
    from noitu.adapters.arena.direct import DirectLauncher
    from noitu.adapters.arena.languages import language_for
    from noitu.application.arena.check_bot import CheckBot, Verdict
except ImportError:
    sys.exit(
        "verify-bot-examples: run it with the project's virtualenv:"
        " .venv/bin/python tools/verify-bot-examples.py (after `pip install -e .`)"
    )


def pack_jar(java_source: Path, folder: Path) -> Path | None:
    """Main.java compiled and packed as a runnable JAR (Main-Class: Main), or None when
    the JDK's javac/jar are missing."""
    javac, jar = shutil.which("javac"), shutil.which("jar")
    if not javac or not jar:
        return None
    classes = folder / "classes"
    classes.mkdir(parents=True)
    shutil.copyfile(java_source, folder / "Main.java")
    subprocess.run([javac, "-d", str(classes), str(folder / "Main.java")], check=True)
    target = folder / "sample.jar"
    subprocess.run([jar, "--create", "--file", str(target), "--main-class", "Main", "-C", str(classes), "."],
                   check=True)
    return target


def show(verdict: Verdict) -> None:
    mark = "ok  " if verdict.ok else "FAIL"
    code = f"{verdict.code.value}: " if verdict.code else ""
    print(f"    {mark} {verdict.case} — {code}{verdict.detail}", flush=True)


async def verify(samples: list[Path], turn_limit: int) -> bool:
    builder = DirectBuilder()
    launcher = DirectLauncher()
    checker = CheckBot(launcher)
    passed = True
    with tempfile.TemporaryDirectory(prefix="verify-bot-examples-") as work:
        opponent = await BuiltinBots(builder, Path(work)).artefact("random")
        for index, sample in enumerate(samples):
            print(f"{sample.relative_to(ROOT) if sample.is_relative_to(ROOT) else sample.name}:")
            language = language_for(sample.name)
            if language is None:
                print("    FAIL not a bot file")
                passed = False
                continue
            built = await builder.build(sample, language, Path(work) / f"bot-{index}")
            if not built.ok or built.artefact is None:
                print(f"    FAIL does not build:\n{built.messages}")
                passed = False
                continue
            verdicts = await checker(built.artefact, opponent, turn_limit=turn_limit, on_verdict=show)
            passed = passed and all(v.ok for v in verdicts)
    return passed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turn-limit", type=int, default=200, help="turns of the whole matches")
    args = parser.parse_args()
    samples = sorted(p for p in EXAMPLES.iterdir() if language_for(p.name) is not None)
    with tempfile.TemporaryDirectory(prefix="verify-bot-examples-jar-") as folder:
        java = EXAMPLES / "Main.java"
        packed = pack_jar(java, Path(folder)) if java.is_file() else None
        if java.is_file() and packed is None:
            print("verify-bot-examples: javac/jar missing: the Java samples cannot be checked")
            sys.exit(1)
        if packed is not None:
            samples.append(packed)
        ok = asyncio.run(verify(samples, args.turn_limit))
    print("every sample passes" if ok else "some samples FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
