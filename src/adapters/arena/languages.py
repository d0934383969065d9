"""How the sandbox runs each language (spec B2): the command lines. What each language
is (suffixes, file names, media type, what to mount) is `application/arena/languages.py`'s
`LANGUAGES`; the names below are read from it."""

from __future__ import annotations

from pathlib import Path, PurePath

from noitu.application.arena.languages import LANGUAGE_BY_SUFFIX as _BY_SUFFIX
from noitu.application.arena.languages import LANGUAGES
from noitu.application.arena.ports import Language

#: The name an upload is stored and compiled under (a Java file must be Main.java).
SOURCE_NAME = {language: spec.source_name for language, spec in LANGUAGES.items()}

#: The file of the artefact directory that must exist for the bot to start.
ENTRY_NAME = {language: spec.entry_name for language, spec in LANGUAGES.items()}


def needs_jvm(language: Language) -> bool:
    """Whether the sandbox must mount the JDK to build or run it."""
    return LANGUAGES[language].runtime == "jvm"


def language_for(filename: str) -> Language | None:
    """The language of an upload by its file name's suffix (case-insensitive)."""
    return _BY_SUFFIX.get(PurePath(filename).suffix.lower())


def accepted_suffixes() -> tuple[str, ...]:
    return tuple(_BY_SUFFIX)


#: Every JVM of a bot: a heap sized for the bot's 384 MB (without /sys it would size it
#: from the host and be killed), one GC thread, one CPU, no /tmp/hsperfdata file.
JVM_FLAGS = (
    "-XX:MaxRAM=384m",
    "-XX:MaxRAMPercentage=50",
    "-XX:+UseSerialGC",
    "-XX:ActiveProcessorCount=1",
    "-XX:-UsePerfData",
)


def run_command(language: Language, directory: str, *, python: str, java: str) -> list[str]:
    """The command line that runs the artefact found in `directory`."""
    if language is Language.PYTHON:
        # -I: no environment, no user site, no script directory on sys.path;
        # -B: no .pyc; -u: unbuffered, so a forgotten flush does not hang the match.
        return [python, "-I", "-B", "-u", f"{directory}/bot.py"]
    if language is Language.CPP:
        return [f"{directory}/bot"]
    if language is Language.JAVA:
        return [java, *JVM_FLAGS, "-cp", directory, "Main"]
    if language is Language.JAR:
        return [java, *JVM_FLAGS, "-jar", f"{directory}/{ENTRY_NAME[language]}"]
    raise ValueError(f"no run command for {language!r}")


def artefact_files(language: Language, directory: PurePath) -> list[str]:
    """Names of the files of an artefact directory that a launcher needs."""
    if language is Language.JAVA:
        return sorted(
            p.name
            for p in Path(directory).iterdir()
            if p.name.endswith(".class") and p.is_file() and not p.is_symlink()
        )
    return [ENTRY_NAME[language]]
