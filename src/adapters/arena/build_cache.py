"""A build cache for an author's own machine (`noitu arena match`): a bot whose source,
file name and language are the same as a build already made is not built again.

Each good build lives in `<cache>/arena/builds/<language>-<hash>`, the hash covering
the source's bytes, its file name and the build recipe (this package's build, driver,
JAR and language modules), so an edited bot or a changed recipe builds afresh. A build that
fails is not kept: its messages show again on the next run. The builder installs an
artefact all at once, so a run that stops halfway never leaves half a build behind.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from noitu.adapters.arena import build, build_driver, jar, languages
from noitu.adapters.arena.languages import ENTRY_NAME
from noitu.application.arena.ports import Artefact, BotBuilder, BuildResult, Language

#: Where the builds live under the cache directory.
FOLDER = Path("arena") / "builds"


def _recipe() -> bytes:
    """The build recipe's own text: a change to how bots build invalidates every entry."""
    digest = hashlib.sha256()
    for module in (build, build_driver, jar, languages):
        digest.update(Path(module.__file__ or "").read_bytes())
    return digest.digest()


class CachedBuilder:
    """A `BotBuilder` that reuses a build of identical source from `cache_dir`."""

    def __init__(self, builder: BotBuilder, cache_dir: Path) -> None:
        self._builder = builder
        self._root = cache_dir / FOLDER
        self._recipe = _recipe()
        self._reused: set[Path] = set()

    def key(self, source: Path, language: Language) -> str:
        digest = hashlib.sha256(self._recipe)
        digest.update(language.value.encode() + b"\0" + source.name.encode() + b"\0")
        digest.update(source.read_bytes())
        return f"{language.value}-{digest.hexdigest()[:32]}"

    async def build(
        self, source: Path, language: Language, into: Path, *, shown_as: str | None = None
    ) -> BuildResult:
        """`into` is ignored: the artefact lives in the cache (launchers only read it)."""
        kept = self._root / self.key(source, language)
        if (kept / ENTRY_NAME[language]).is_file():
            self._reused.add(kept)
            return BuildResult(True, Artefact(language, kept), "")
        return await self._builder.build(source, language, kept, shown_as=shown_as)

    def reused(self, artefact: Artefact) -> bool:
        """Whether `artefact` came from an earlier run's build."""
        return artefact.directory in self._reused
