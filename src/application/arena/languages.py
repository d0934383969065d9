"""Every language a bot may be written in (spec B2), one `LanguageSpec` each: what the
server reads from this table rather than keeping a copy.

- `suffixes`: the upload's file name suffixes (compared in lower case), the first being
  the one the page offers and a download carries;
- `source_name`: the name the upload is compiled under and handed back to its owner
  under (a Java file must be Main.java);
- `stored_suffix`: the suffix of the kept copy in the data folder (`source.<suffix>`);
- `entry_name`: the artefact's file that must exist for the bot to start;
- `media_type`: what a download of the source is sent as;
- `runtime`: what the sandbox must mount for it to build and run (`python`: the
  interpreter, `native`: nothing more, `jvm`: the JDK);
- `title`: the name people read (the samples page, the config route);
- `version`: the toolchain's major version the server promises (Python's, g++'s, the
  JDK's): BOT-UPLOAD.md and the guide mark it (`data-version`), a test compares them
  with this table, and another builds and runs a probe in the real sandbox against it.

The adapters keep the command lines (`adapters/arena/languages.py`'s `run_command`,
`build.py`'s `_compiler`), each one branch per language and none a catch-all; the SQL
column's CHECK lists the same names (a test compares them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from noitu.application.arena.ports import Language

Runtime = Literal["python", "native", "jvm"]


@dataclass(frozen=True, slots=True)
class LanguageSpec:
    language: Language
    title: str
    suffixes: tuple[str, ...]
    source_name: str
    stored_suffix: str
    entry_name: str
    media_type: str
    runtime: Runtime
    version: str


LANGUAGES: dict[Language, LanguageSpec] = {
    spec.language: spec
    for spec in (
        LanguageSpec(
            Language.PYTHON, "Python", (".py",), "bot.py", "py", "bot.py", "text/plain", "python",
            "3.11",
        ),
        LanguageSpec(
            Language.CPP, "C++", (".cpp", ".cc", ".cxx"), "bot.cpp", "cpp", "bot", "text/plain",
            "native", "12",
        ),
        LanguageSpec(
            Language.JAVA, "Java", (".java",), "Main.java", "java", "Main.class", "text/plain",
            "jvm", "17",
        ),
        LanguageSpec(
            Language.JAR, "JAR", (".jar",), "bot.jar", "jar", "bot.jar",
            "application/java-archive", "jvm", "17",
        ),
    )
}

#: The languages by a file name's suffix, compared in lower case.
LANGUAGE_BY_SUFFIX: dict[str, Language] = {
    suffix: spec.language for spec in LANGUAGES.values() for suffix in spec.suffixes
}
