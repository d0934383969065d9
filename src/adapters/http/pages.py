"""What both games' pages share over HTTP."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from litestar import HttpMethod, Request, route
from litestar.handlers import HTTPRouteHandler
from litestar.openapi.datastructures import ResponseSpec
from litestar.response import Redirect

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
