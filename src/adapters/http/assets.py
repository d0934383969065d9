"""The page's files, read once from the installed `noitu.assets` package.

Besides the three named files, every `*.js` file shipped in `noitu.assets/js/` (the
page's ES modules, imported by app.js) is read at start-up. That listing is the
whitelist `script(name)` answers from: a name that is not one of those files gets
None, never a lookup on disk.

index.html states the turn length in its rules; the server writes its own setting
there once, at start-up (the page has no inline script to read a value from, and the
start screen shows before any game view brings `turn_limit_ms`).
"""

from __future__ import annotations

from importlib import resources

from litestar import Response

MEDIA_TYPES = {
    "index.html": "text/html",
    "app.js": "text/javascript",
    "app.css": "text/css",
}
SCRIPT_FOLDER = "js"
SCRIPT_MEDIA_TYPE = "text/javascript"
ASSET_CACHE = "public, max-age=300"
TURN_SECONDS_MARK = b'<span id="rules-turn-seconds" data-testid="rules-turn-seconds">30</span>'


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
        modules = folder / SCRIPT_FOLDER
        scripts = (
            {
                entry.name: entry.read_bytes()
                for entry in modules.iterdir()
                if entry.name.endswith(".js") and entry.is_file()
            }
            if modules.is_dir()
            else {}
        )
        files = {name: (folder / name).read_bytes() for name in MEDIA_TYPES}
        files["index.html"] = with_turn_seconds(files["index.html"], turn_seconds)
        return cls(files, scripts)

    def response(self, name: str) -> Response[bytes]:
        return Response(
            self._files[name],
            media_type=MEDIA_TYPES[name],
            headers={"Cache-Control": "no-cache" if name == "index.html" else ASSET_CACHE},
        )

    def script(self, name: str) -> Response[bytes] | None:
        """The module `js/<name>` (a bare file name such as "api.js"), served like
        app.js; None when `name` is not one of the shipped modules (the route answers
        404)."""
        body = self._scripts.get(name)
        if body is None:
            return None
        return Response(body, media_type=SCRIPT_MEDIA_TYPE, headers={"Cache-Control": ASSET_CACHE})
