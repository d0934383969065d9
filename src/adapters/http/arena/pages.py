"""The arena's static pages over HTTP (spec B6): the page "Vào trận" at `/arena/`
(its script, style sheet and ES modules next to it: `/arena/app.js`,
`/arena/arena.css`, `/arena/js/<name>.js`), the bot authors' guide at
`/bot-guide.html` with its style sheet, and the sample bots at `/assets/bot-examples/`
(that folder itself answers a small page listing them). Each answers HEAD as GET.

Every file is read once from the installed `noitu.assets` package into one `Assets`
(`assets.py`, the server of both games' files); the names read are the whitelist, so a
request never becomes a lookup on disk.
"""

from __future__ import annotations

import html
from pathlib import PurePosixPath

from litestar import Request, Response, Router
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath
from litestar.response import Redirect

from noitu.adapters.http.assets import (
    SCRIPT_FOLDER,
    Asset,
    Assets,
    package_folder,
    read_files,
    read_scripts,
)
from noitu.adapters.http.errors import ErrorBody
from noitu.adapters.http.pages import SLASH_REDIRECT, asset_route, slash_redirect
from noitu.adapters.http.paths import ARENA_ASSETS_PATH, ARENA_PATH, BOT_GUIDE_PATH
from noitu.application.arena.languages import LANGUAGE_BY_SUFFIX, LANGUAGES

GUIDE = "bot-guide.html"
GUIDE_STYLE = "guide.css"
SAMPLES = "bot-examples"
SAMPLE_SUFFIXES = (".py", ".cpp", ".java")
NOT_FOUND = {404: ResponseSpec(data_container=ErrorBody, description="not_found: no such file")}
#: The page "Vào trận": assets/arena/index.html, app.js and arena.css, and the ES
#: modules in assets/arena/js/ that app.js imports; the guide beside them.
PAGE_FOLDER = "arena"
PAGE = "index.html"
PAGE_SCRIPT = "app.js"
PAGE_STYLE = "arena.css"
SCRIPT_TYPE = "text/javascript"


COMMENT_MARKS = ("#!", '"""', "/**", "/*", "//", "#", "*")


def sample_summary(source: bytes) -> str:
    """A sample's first comment line ("Bot tối giản cho Búa Bao Kéo 9×9 (C++17, …)."):
    each sample opens by saying what it is, in Vietnamese."""
    for line in source.decode("utf-8", "replace").splitlines():
        text = line.strip()
        if text.startswith("#!"):
            continue
        for mark in COMMENT_MARKS:
            if text.startswith(mark):
                text = text[len(mark):].strip()
                break
        if text:
            return text
    return ""


def samples_page(samples: dict[str, bytes]) -> bytes:
    """The page at /assets/bot-examples/: each sample with its summary, a link to read it
    and one to download it. Links are absolute: the folder answers with or without
    its slash."""
    items = []
    for name in sorted(samples, key=str.lower):
        url = html.escape(f"{ARENA_ASSETS_PATH}/{SAMPLES}/{name}")
        language = LANGUAGES[LANGUAGE_BY_SUFFIX[PurePosixPath(name).suffix.lower()]].title
        items.append(
            f'    <li><a href="{url}"><code>{html.escape(name)}</code></a> ({language},'
            f' <a href="{url}" download>tải về</a>):'
            f" {html.escape(sample_summary(samples[name]))}</li>"
        )
    listing = "\n".join(items)
    page = f"""<!doctype html>
<html lang="vi">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<title>Bot mẫu · Đấu bot Búa Bao Kéo 9×9</title>
<link rel="stylesheet" href="{ARENA_ASSETS_PATH}/{PAGE_FOLDER}/{GUIDE_STYLE}">
</head>
<body>
<header class="top">
  <div class="top-inner">
    <p class="crumbs"><a href="{BOT_GUIDE_PATH}">← Hướng dẫn viết bot</a> · <a href="{ARENA_PATH}/">Vào trận</a></p>
    <h1>Bot mẫu</h1>
    <p class="lead">Chọn một bot để đọc mã, hoặc tải về rồi sửa thành bot của bạn.</p>
  </div>
</header>
<main>
  <ul data-testid="bot-examples">
{listing}
  </ul>
</main>
</body>
</html>
"""
    return page.encode()


def arena_assets() -> Assets:
    """The page's files (index.html, app.js, arena.css and its ES modules, "js/<file>"),
    the guide and its style sheet, each sample ("bot-examples/<file>", plain text naming
    its file) and the samples' listing ("bot-examples")."""
    arena = package_folder(PAGE_FOLDER)
    samples = {
        entry.name: entry.read_bytes()
        for entry in package_folder(SAMPLES).iterdir()
        if entry.is_file() and entry.name.endswith(SAMPLE_SUFFIXES)
    }
    return Assets({
        **read_files(arena, PAGE, PAGE_SCRIPT, PAGE_STYLE, GUIDE, GUIDE_STYLE),
        **read_scripts(arena),
        **{
            f"{SAMPLES}/{name}": Asset(  # litestar adds "; charset=utf-8" to a text/ type
                body, "text/plain", disposition=f'inline; filename="{name}"'
            )
            for name, body in samples.items()
        },
        SAMPLES: Asset(samples_page(samples), "text/html"),
    })


def arena_page_router(assets: Assets) -> Router:
    """`/arena/` and the files it loads by relative paths (so it needs the slash)."""

    @asset_route(
        "/",
        summary="The arena page, Vào trận",
        media_type="text/html",
        responses=SLASH_REDIRECT,
    )
    async def page(request: Request) -> Response[bytes] | Redirect:
        return slash_redirect(request, ARENA_PATH) or assets.answer(PAGE)

    @asset_route(f"/{PAGE_SCRIPT}", summary="The arena page's script", media_type=SCRIPT_TYPE)
    async def script() -> Response[bytes]:
        return assets.answer(PAGE_SCRIPT)

    @asset_route(f"/{PAGE_STYLE}", summary="The arena page's style sheet", media_type="text/css")
    async def style() -> Response[bytes]:
        return assets.answer(PAGE_STYLE)

    @asset_route(
        f"/{SCRIPT_FOLDER}/{{name:str}}",
        summary="One of the arena page's ES modules, imported by app.js",
        media_type=SCRIPT_TYPE,
        responses={
            404: ResponseSpec(data_container=ErrorBody, description="not_found: no such module")
        },
    )
    async def module(name: FromPath[str]) -> Response[bytes]:
        return assets.answer(f"{SCRIPT_FOLDER}/{name}")

    return Router(path=ARENA_PATH, route_handlers=[page, script, style, module], tags=["arena"])


def arena_page_routers(assets: Assets) -> list[object]:
    @asset_route(BOT_GUIDE_PATH, summary="The bot authors' guide (Vietnamese)", media_type="text/html",
         tags=["arena"])
    async def guide() -> Response[bytes]:
        return assets.answer(GUIDE)

    @asset_route(f"{ARENA_ASSETS_PATH}/{PAGE_FOLDER}/{GUIDE_STYLE}", summary="The guide's style sheet",
         media_type="text/css", tags=["arena"])
    async def guide_style() -> Response[bytes]:
        return assets.answer(GUIDE_STYLE)

    @asset_route(f"{ARENA_ASSETS_PATH}/{SAMPLES}/{{name:str}}", summary="A sample bot, as plain text",
         media_type="text/plain", responses=NOT_FOUND, tags=["arena"])
    async def sample(name: FromPath[str]) -> Response[bytes]:
        return assets.answer(f"{SAMPLES}/{name}")

    @asset_route(f"{ARENA_ASSETS_PATH}/{SAMPLES}", summary="The sample bots, listed",
                 media_type="text/html", tags=["arena"])
    async def samples() -> Response[bytes]:
        return assets.answer(SAMPLES)

    return [
        Router(path="/", route_handlers=[guide, guide_style, samples, sample]),
        arena_page_router(assets),
    ]
