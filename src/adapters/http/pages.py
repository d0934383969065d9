"""What both games' pages share over HTTP: the trailing-slash redirect, GET-and-HEAD
routes, and the kernel's route (`KERNEL_PATH`: the style sheet and ES modules both
pages load), mounted whenever either page is."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from litestar import HttpMethod, Request, Response, Router, route
from litestar.handlers import HTTPRouteHandler
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath
from litestar.response import Redirect

from noitu.adapters.http.assets import (
    SCRIPT_FOLDER,
    Assets,
    package_folder,
    read_files,
    read_scripts,
)
from noitu.adapters.http.errors import ErrorBody
from noitu.adapters.http.paths import KERNEL_PATH

#: The kernel: assets/kernel/kernel.css (the design tokens and base rules both style
#: sheets build on) and the ES modules in assets/kernel/js/ both pages import.
KERNEL_FOLDER = "kernel"
KERNEL_STYLE = "kernel.css"

#: The OpenAPI answer of a page route that adds its trailing slash.
SLASH_REDIRECT = {308: ResponseSpec(data_container=None, description="Adds the trailing slash")}


def slash_redirect(request: Request, page_path: str) -> Redirect | None:
    """A page loads its script, style and API by relative paths, so it needs its
    trailing slash: the redirect that adds it (keeping the query), or None when the
    request has it."""
    raw_path = request.scope.get("raw_path") or request.scope["path"].encode()
    if raw_path.split(b"?")[0].endswith(b"/"):
        return None
    query = request.scope.get("query_string", b"").decode("latin-1")
    return Redirect(f"{page_path}/" + (f"?{query}" if query else ""), status_code=308)


def asset_route(path: str, **options: Any) -> Callable[[Callable[..., Any]], HTTPRouteHandler]:
    """A page or file route that answers GET and HEAD alike: HEAD gets the GET's status
    and headers, and the `before_send` hook (middleware.py) drops the body."""
    return route(path, http_method=[HttpMethod.GET, HttpMethod.HEAD], **options)


def kernel_assets() -> Assets:
    folder = package_folder(KERNEL_FOLDER)
    return Assets({**read_files(folder, KERNEL_STYLE), **read_scripts(folder)})


def kernel_router(assets: Assets) -> Router:
    """`KERNEL_PATH`: kernel.css and the modules of js/, cached as the pages' files."""

    @asset_route(f"/{KERNEL_STYLE}", summary="The style sheet both pages build on", media_type="text/css")
    async def style() -> Response[bytes]:
        return assets.answer(KERNEL_STYLE)

    @asset_route(
        f"/{SCRIPT_FOLDER}/{{name:str}}",
        summary="One of the ES modules both pages import",
        media_type="text/javascript",
        responses={404: ResponseSpec(data_container=ErrorBody, description="not_found: no such module")},
    )
    async def module(name: FromPath[str]) -> Response[bytes]:
        return assets.answer(f"{SCRIPT_FOLDER}/{name}")

    return Router(path=KERNEL_PATH, route_handlers=[style, module], tags=["page"])
