"""The one server of both games' files: `Assets`, every file a part of the site answers,
read once at start-up from the installed `noitu.assets` package and answered by name.

The names read are the whitelist: a name that is not one of them is a 404, never a lookup on disk. What a file is answered with follows from its
name: its media type from its suffix; a page (`.html`) "no-cache", so a new release's
links show at once, and everything else `RELEASE_CACHE`. Each part says which files it
serves (nối từ's page in `noitu.py`, the arena's page, guide and samples in `arena.py`,
the kernel both pages load in `pages.py`); CSP and the other headers come from
`middleware.py`, by path, for all of them alike.

A page may mark a figure the server owns (`<span data-limit="NAME"></span>`, empty in
the shipped file): the server writes each figure there once, at start-up (`fill_marks`),
so the page is right on its first paint with no copy of its own. nối từ's rules mark the
turn length, an operator's setting the start screen states before any game view brings
`turn_limit_ms`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import PurePosixPath

from litestar import Response
from litestar.exceptions import NotFoundException

#: The Cache-Control of what changes only with a new release: the pages' files (not
#: the pages themselves, "no-cache") and the arena's `/config` answer.
RELEASE_CACHE = "public, max-age=300"
PAGE_CACHE = "no-cache"
MEDIA_TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}
#: A page's ES modules: every `*.js` directly in its folder's `js/`, named "js/<file>".
SCRIPT_FOLDER = "js"
#: A figure's mark: its opening tag (group 1, the name in group 2), then its content.
MARK = re.compile(rb'(<span data-limit="([a-z_0-9]+)"[^>]*>)([^<]*)</span>')


def package_folder(*parts: str) -> Traversable:
    """A folder of the installed `noitu.assets` package."""
    return resources.files("noitu.assets").joinpath(*parts)


def fill_marks(page: bytes, figures: Mapping[str, int]) -> bytes:
    """`page` with each figure written into its mark. Each figure must have exactly one
    mark, empty, and each mark a figure: else the page would show a blank or a copy."""
    marks = [(found.group(2).decode(), found.group(3)) for found in MARK.finditer(page)]
    names = sorted(name for name, _ in marks)
    if names != sorted(figures) or any(content for _, content in marks):
        raise RuntimeError(f"the page's marks {marks} are not empty marks of {sorted(figures)}")
    return MARK.sub(
        lambda found: found.group(1) + str(figures[found.group(2).decode()]).encode() + b"</span>",
        page,
    )


@dataclass(frozen=True, slots=True)
class Asset:
    body: bytes
    media_type: str
    cache: str = RELEASE_CACHE
    #: A Content-Disposition header, if any (a sample bot names its file).
    disposition: str | None = None

    @classmethod
    def named(cls, name: str, body: bytes) -> Asset:
        """A shipped file, answered as its name says."""
        suffix = PurePosixPath(name).suffix
        return cls(body, MEDIA_TYPES[suffix], PAGE_CACHE if suffix == ".html" else RELEASE_CACHE)

    def with_figures(self, figures: Mapping[str, int]) -> Asset:
        return replace(self, body=fill_marks(self.body, figures))

    def response(self) -> Response[bytes]:
        headers = {"Cache-Control": self.cache}
        if self.disposition is not None:
            headers["Content-Disposition"] = self.disposition
        return Response(self.body, media_type=self.media_type, headers=headers)


def read_files(folder: Traversable, *names: str) -> dict[str, Asset]:
    """The files `names` of `folder`, by name (a missing one stops the start-up)."""
    return {name: Asset.named(name, (folder / name).read_bytes()) for name in names}


def read_scripts(folder: Traversable) -> dict[str, Asset]:
    """The ES modules of `folder`: each `*.js` file in its `js/`, as "js/<file>" (none
    when there is no such folder)."""
    scripts = folder / SCRIPT_FOLDER
    if not scripts.is_dir():
        return {}
    return {
        f"{SCRIPT_FOLDER}/{entry.name}": Asset.named(entry.name, entry.read_bytes())
        for entry in scripts.iterdir()
        if entry.name.endswith(".js") and entry.is_file()
    }


class Assets:
    """Files by name: what a part of the site answers, and nothing else."""

    def __init__(self, files: Mapping[str, Asset]) -> None:
        self._files = dict(files)

    def answer(self, name: str) -> Response[bytes]:
        """The file `name` ("app.js", "js/dom.js"); 404 when it is not one served."""
        found = self._files.get(name)
        if found is None:
            raise NotFoundException()
        return found.response()
