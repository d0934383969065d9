"""The headers of B9 and the access log, on every response litestar sends.

A `before_send` hook sees every response, including 404s, 405s and errors raised
before a handler runs (route middleware would miss those), and the accept of every
WebSocket. The access log records the
path only: game links carry their token in the query string. The answer to a HEAD
request (the pages and files, see `pages.asset_route`) is the GET's without its body:
the hook empties the body here, for every route alike.
"""

from __future__ import annotations

from collections.abc import Callable

import structlog
from litestar.types import Message, Scope

from noitu.adapters.http.paths import (
    ARENA_ASSETS_PATH,
    ARENA_PATH,
    BOT_GUIDE_PATH,
    NOITU_API_PATH,
    NOITU_PATH,
    SCHEMA_PATH,
)

# The OpenAPI document is served on the game's domain too: it gets the page's headers.
PAGE_PREFIXES = (NOITU_PATH, SCHEMA_PATH, ARENA_PATH, BOT_GUIDE_PATH, ARENA_ASSETS_PATH)
API_PREFIXES = (f"{NOITU_API_PATH}/",)

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self' https://telegram.org; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'"
)

COMMON_HEADERS = [(b"referrer-policy", b"no-referrer"), (b"x-content-type-options", b"nosniff")]
PAGE_HEADERS = [*COMMON_HEADERS, (b"content-security-policy", CONTENT_SECURITY_POLICY.encode())]
API_HEADERS = [*PAGE_HEADERS, (b"cache-control", b"no-store")]
SOCKET_HEADERS = [*COMMON_HEADERS, (b"cache-control", b"no-store")]

log = structlog.get_logger("noitu.access")


def response_headers(access_log: bool) -> Callable[[Message, Scope], object]:
    async def before_send(message: Message, scope: Scope) -> None:
        if message["type"] != "http.response.start":
            if message["type"] == "http.response.body":
                if scope.get("method") == "HEAD":
                    message["body"] = b""  # the headers still say the GET's length
            elif message["type"] == "websocket.accept":
                # The handshake's answer: the headers that apply to it (no document, no
                # cache); the access log has no status for it.
                message.setdefault("headers", []).extend(SOCKET_HEADERS)  # type: ignore[union-attr]
            return
        path: str = scope["path"]
        # Appended as raw pairs: no handler sets these, and a lookup per header costs
        # more than the rest of this hook (it runs on every response).
        headers = message.setdefault("headers", [])
        if path.startswith(API_PREFIXES):
            headers.extend(API_HEADERS)
        elif path.startswith(PAGE_PREFIXES):
            headers.extend(PAGE_HEADERS)
        else:
            headers.extend(COMMON_HEADERS)
        if access_log:
            log.info("request", method=scope.get("method"), path=path, status=message["status"])

    return before_send
