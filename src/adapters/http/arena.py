"""The arena's static pages over HTTP (spec B6): the bot authors' guide at
`/bot-guide.html`, its style sheet, and the sample bots at `/assets/bot-examples/`.

Every file is read once from the installed `noitu.assets` package; the names shipped
there are the whitelist, so a request never becomes a lookup on disk.
"""

from __future__ import annotations

from importlib import resources

from litestar import Response, Router, get
from litestar.exceptions import NotFoundException
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath

from noitu.adapters.http.errors import ErrorBody
from noitu.adapters.http.paths import ARENA_ASSETS_PATH, BOT_GUIDE_PATH

GUIDE = ("arena", "bot-guide.html")
GUIDE_STYLE = ("arena", "guide.css")
SAMPLES = "bot-examples"
SAMPLE_SUFFIXES = (".py", ".cpp", ".java")
CACHE = "public, max-age=300"
NOT_FOUND = {404: ResponseSpec(data_container=ErrorBody, description="not_found: no such file")}


class ArenaAssets:
    def __init__(self, guide: bytes, style: bytes, samples: dict[str, bytes]) -> None:
        self.guide = guide
        self.style = style
        self.samples = samples

    @classmethod
    def from_package(cls) -> ArenaAssets:
        folder = resources.files("noitu.assets")
        samples = {
            entry.name: entry.read_bytes()
            for entry in (folder / SAMPLES).iterdir()
            if entry.is_file() and entry.name.endswith(SAMPLE_SUFFIXES)
        }
        return cls(
            (folder / GUIDE[0] / GUIDE[1]).read_bytes(),
            (folder / GUIDE_STYLE[0] / GUIDE_STYLE[1]).read_bytes(),
            samples,
        )


def arena_page_routers(assets: ArenaAssets) -> list[object]:
    @get(BOT_GUIDE_PATH, summary="The bot authors' guide (Vietnamese)", media_type="text/html",
         tags=["arena"])
    async def guide() -> Response[bytes]:
        return Response(assets.guide, media_type="text/html", headers={"Cache-Control": "no-cache"})

    @get(f"{ARENA_ASSETS_PATH}/arena/guide.css", summary="The guide's style sheet",
         media_type="text/css", tags=["arena"])
    async def guide_style() -> Response[bytes]:
        return Response(assets.style, media_type="text/css", headers={"Cache-Control": CACHE})

    @get(f"{ARENA_ASSETS_PATH}/{SAMPLES}/{{name:str}}", summary="A sample bot, as plain text",
         media_type="text/plain", responses=NOT_FOUND, tags=["arena"])
    async def sample(name: FromPath[str]) -> Response[bytes]:
        found = assets.samples.get(name)
        if found is None:
            raise NotFoundException()
        return Response(
            found,
            media_type="text/plain; charset=utf-8",
            headers={"Cache-Control": CACHE, "Content-Disposition": f'inline; filename="{name}"'},
        )

    return [Router(path="/", route_handlers=[guide, guide_style, sample])]
