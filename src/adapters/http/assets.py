"""The page's three files, read once from the installed `noitu.assets` package."""

from __future__ import annotations

from importlib import resources

from litestar import Response

MEDIA_TYPES = {
    "index.html": "text/html",
    "app.js": "text/javascript",
    "app.css": "text/css",
}
ASSET_CACHE = "public, max-age=300"


class PageAssets:
    def __init__(self, files: dict[str, bytes]) -> None:
        self._files = files

    @classmethod
    def from_package(cls) -> PageAssets:
        folder = resources.files("noitu.assets")
        return cls({name: (folder / name).read_bytes() for name in MEDIA_TYPES})

    def response(self, name: str) -> Response[bytes]:
        return Response(
            self._files[name],
            media_type=MEDIA_TYPES[name],
            headers={"Cache-Control": "no-cache" if name == "index.html" else ASSET_CACHE},
        )
