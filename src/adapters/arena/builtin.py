"""The server's own bots (spec B4): `random`, `tactical` and `strong`, shipped as single
programs in `noitu.assets/builtin-bots/` and run through the same runner, protocol and
clock as an uploaded bot.

Each is built once with the builder it is given (a syntax check for Python, g++ for the
C++ one) into a cache folder named by its source's SHA-256, so a changed bot is rebuilt
and an unchanged one is reused across runs.
"""

from __future__ import annotations

import asyncio
import hashlib
import tempfile
from importlib import resources
from pathlib import Path

from noitu.adapters.arena.languages import ENTRY_NAME, language_for
from noitu.application.arena.ports import Artefact, BotBuilder, Language

BUILTIN_SOURCES = {"random": "random.py", "tactical": "tactical.py", "strong": "strong.cpp"}
FOLDER = "builtin-bots"


class BuiltinUnavailable(RuntimeError):
    """A built-in bot that does not exist or could not be built (the server's problem)."""


class BuiltinBots:
    def __init__(self, builder: BotBuilder, cache_dir: Path | None) -> None:
        self._builder = builder
        self._cache = cache_dir or Path(tempfile.mkdtemp(prefix="noitu-builtin-bots-"))
        self._built: dict[str, Artefact] = {}
        self._lock = asyncio.Lock()

    @staticmethod
    def names() -> tuple[str, ...]:
        return tuple(BUILTIN_SOURCES)

    @staticmethod
    def language(name: str) -> Language:
        """The language a built-in bot is written in (by its source's suffix)."""
        found = language_for(BUILTIN_SOURCES[name])
        if found is None:
            raise BuiltinUnavailable(f"the built-in bot {name!r} has a source of no language")
        return found

    @staticmethod
    def source(name: str) -> Path:
        if name not in BUILTIN_SOURCES:
            raise BuiltinUnavailable(
                f"no built-in bot {name!r}; there are {', '.join(BUILTIN_SOURCES)}"
            )
        with resources.as_file(resources.files("noitu.assets") / FOLDER / BUILTIN_SOURCES[name]) as path:
            return Path(path)

    async def artefact(self, name: str) -> Artefact:
        async with self._lock:
            found = self._built.get(name)
            if found is not None:
                return found
            source = self.source(name)
            language = language_for(source.name)
            assert language is not None
            digest = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
            into = self._cache / "arena" / f"builtin-{name}-{digest}"
            if (into / ENTRY_NAME[language]).is_file():
                found = Artefact(language, into)  # built by an earlier run
            else:
                built = await self._builder.build(source, language, into)
                if not built.ok or built.artefact is None:
                    raise BuiltinUnavailable(
                        f"the built-in bot {name} did not build: {built.messages}"
                    )
                found = built.artefact
            self._built[name] = found
            return found
