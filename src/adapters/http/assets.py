"""The pages' files, read once from the installed `noitu.assets` package: nối từ's
page (`PageAssets`) and the kernel both games' pages share (`KernelAssets`).

Besides the three named files, every `*.js` file shipped in `noitu.assets/js/` (the
page's ES modules, imported by app.js) is read at start-up; the kernel's are those of
`noitu.assets/kernel/js/`. Such a listing is the whitelist a module is answered from:
a name that is not one of those files gets None, never a lookup on disk.

A page may mark a figure the server owns (`<span data-limit="NAME"></span>`, empty in
the shipped file): the server writes each figure there once, at start-up (`fill_marks`),
so the page is right on its first paint with no copy of its own. nối từ's rules mark the
turn length, an operator's setting the start screen states before any game view brings
`turn_limit_ms`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from importlib import resources
from importlib.resources.abc import Traversable

from litestar import Response

MEDIA_TYPES = {
    "index.html": "text/html",
    "app.js": "text/javascript",
    "app.css": "text/css",
}
SCRIPT_FOLDER = "js"
SCRIPT_MEDIA_TYPE = "text/javascript"
#: The Cache-Control of what changes only with a new release: the pages' files (not
#: the pages themselves, "no-cache") and the arena's `/config` answer.
RELEASE_CACHE = "public, max-age=300"
#: A figure's mark: its opening tag (group 1, the name in group 2), then its content.
MARK = re.compile(rb'(<span data-limit="([a-z_0-9]+)"[^>]*>)([^<]*)</span>')


#: The kernel: assets/kernel/kernel.css (the design tokens and base rules both style
#: sheets build on) and the ES modules in assets/kernel/js/ both pages import.
KERNEL_FOLDER = "kernel"
KERNEL_STYLE = "kernel.css"


def scripts_in(folder: Traversable) -> dict[str, bytes]:
    """The `*.js` files directly in `folder`, by bare file name (none when it is absent)."""
    if not folder.is_dir():
        return {}
    return {
        entry.name: entry.read_bytes()
        for entry in folder.iterdir()
        if entry.name.endswith(".js") and entry.is_file()
    }


def script_response(body: bytes) -> Response[bytes]:
    return Response(body, media_type=SCRIPT_MEDIA_TYPE, headers={"Cache-Control": RELEASE_CACHE})


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


class PageAssets:
    def __init__(self, files: dict[str, bytes], scripts: dict[str, bytes] | None = None) -> None:
        self._files = files
        self._scripts = dict(scripts or {})

    @classmethod
    def from_package(cls, figures: Mapping[str, int]) -> PageAssets:
        """The shipped files; index.html's marks say `figures`."""
        folder = resources.files("noitu.assets")
        scripts = scripts_in(folder / SCRIPT_FOLDER)
        files = {name: (folder / name).read_bytes() for name in MEDIA_TYPES}
        files["index.html"] = fill_marks(files["index.html"], figures)
        return cls(files, scripts)

    def response(self, name: str) -> Response[bytes]:
        return Response(
            self._files[name],
            media_type=MEDIA_TYPES[name],
            headers={"Cache-Control": "no-cache" if name == "index.html" else RELEASE_CACHE},
        )

    def script(self, name: str) -> Response[bytes] | None:
        """The module `js/<name>` (a bare file name such as "api.js"), served like
        app.js; None when `name` is not one of the shipped modules (the route answers
        404)."""
        body = self._scripts.get(name)
        return None if body is None else script_response(body)


class KernelAssets:
    """What both pages share: the kernel's style sheet and its ES modules."""

    def __init__(self, style: bytes, scripts: dict[str, bytes]) -> None:
        self._style = style
        self._scripts = dict(scripts)

    @classmethod
    def from_package(cls) -> KernelAssets:
        folder = resources.files("noitu.assets") / KERNEL_FOLDER
        return cls((folder / KERNEL_STYLE).read_bytes(), scripts_in(folder / SCRIPT_FOLDER))

    def style(self) -> Response[bytes]:
        return Response(self._style, media_type="text/css", headers={"Cache-Control": RELEASE_CACHE})

    def script(self, name: str) -> Response[bytes] | None:
        """The module `kernel/js/<name>` ("dom.js"); None when it is not shipped."""
        body = self._scripts.get(name)
        return None if body is None else script_response(body)
