"""`GET /arena/api/config`: the facts the page "Vào trận" shows but does not own, read
from their one home in the server so the page never keeps a copy: the built-in bots'
names (`adapters/arena/builtin.py`).

The answer is the same for everyone and changes only with a new release, so it may be
cached for a few minutes.
"""

from __future__ import annotations

import msgspec
from litestar import Response, Router, get

from noitu.adapters.arena.builtin import BUILTIN_SOURCES
from noitu.adapters.http.paths import ARENA_API_PATH

CACHE = "public, max-age=300"


class ArenaConfig(msgspec.Struct, frozen=True, rename="camel"):
    #: The names a seat `{"kind": "builtin", "ref": name}` accepts, in the menu's order.
    builtins: tuple[str, ...]


def arena_config() -> ArenaConfig:
    return ArenaConfig(builtins=tuple(BUILTIN_SOURCES))


def config_router() -> Router:
    answer = arena_config()

    @get("/config", summary="What the page shows but the server owns: the built-in bots")
    async def config() -> Response[ArenaConfig]:
        return Response(answer, headers={"Cache-Control": CACHE})

    return Router(path=ARENA_API_PATH, route_handlers=[config], tags=["arena"])
