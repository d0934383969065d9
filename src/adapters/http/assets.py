"""The page's files, read once from the installed `noitu.assets` package.

Besides the three named files, every `*.js` file shipped in `noitu.assets/js/` (the
page's ES modules, imported by app.js) is read at start-up. That listing is the
whitelist `script(name)` answers from: a name that is not one of those files gets
None, never a lookup on disk.
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


class PageAssets:
    def __init__(self, files: dict[str, bytes], scripts: dict[str, bytes] | None = None) -> None:
        self._files = files
        self._scripts = dict(scripts or {})

    @classmethod
    def from_package(cls) -> PageAssets:
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
        return cls({name: (folder / name).read_bytes() for name in MEDIA_TYPES}, scripts)

    def response(self, name: str) -> Response[bytes]:
        return Response(
            self._files[name],
            media_type=MEDIA_TYPES[name],
            headers={"Cache-Control": "no-cache" if name == "index.html" else ASSET_CACHE},
        )

    @property
    def script_names(self) -> frozenset[str]:
        """The module files `script` answers, e.g. "api.js"."""
        return frozenset(self._scripts)

    def script(self, name: str) -> Response[bytes] | None:
        """The module `js/<name>` (a bare file name such as "api.js"), served like
        app.js; None when `name` is not one of the shipped modules (the route answers
        404)."""
        body = self._scripts.get(name)
        if body is None:
            return None
        return Response(body, media_type=SCRIPT_MEDIA_TYPE, headers={"Cache-Control": ASSET_CACHE})
