"""The pages' files, read once from the installed `noitu.assets` package: nối từ's
page (`PageAssets`) and the kernel both games' pages share (`KernelAssets`).

Besides the three named files, every `*.js` file shipped in `noitu.assets/js/` (the
page's ES modules, imported by app.js) is read at start-up; the kernel's are those of
`noitu.assets/kernel/js/`. Such a listing is the whitelist a module is answered from:
a name that is not one of those files gets None, never a lookup on disk.

index.html states the turn length in its rules; the server writes its own setting
there once, at start-up (the page has no inline script to read a value from, and the
start screen shows before any game view brings `turn_limit_ms`).
"""

from __future__ import annotations

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
TURN_SECONDS_MARK = b'<span id="rules-turn-seconds" data-testid="rules-turn-seconds">30</span>'


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


def with_turn_seconds(page: bytes, turn_seconds: int) -> bytes:
    """index.html with the rules' turn length set; the mark must be there exactly once."""
    if page.count(TURN_SECONDS_MARK) != 1:
        raise RuntimeError("index.html lacks the turn length of its rules (#rules-turn-seconds)")
    return page.replace(TURN_SECONDS_MARK, TURN_SECONDS_MARK.replace(b">30<", f">{turn_seconds}<".encode()))


class PageAssets:
    def __init__(self, files: dict[str, bytes], scripts: dict[str, bytes] | None = None) -> None:
        self._files = files
        self._scripts = dict(scripts or {})

    @classmethod
    def from_package(cls, turn_seconds: int = 30) -> PageAssets:
        """The shipped files; the rules in index.html say `turn_seconds`."""
        folder = resources.files("noitu.assets")
        scripts = scripts_in(folder / SCRIPT_FOLDER)
        files = {name: (folder / name).read_bytes() for name in MEDIA_TYPES}
        files["index.html"] = with_turn_seconds(files["index.html"], turn_seconds)
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
