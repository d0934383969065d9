"""The one OpenAPI hook: litestar writes the document from the handlers' types, and
`complete_openapi` adds, once, what the types cannot say.

Each mounted part of the API contributes its own `SchemaPart` from its own module
(nối từ's routes and group rooms, the arena's bots and rooms: no unknown fields in a
body, a word's limits, a header's form, the owner key a route requires); the app
passes those of the parts it mounted. What holds for every route (each 429 carries
`Retry-After`) comes last, here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from litestar.openapi.spec import OpenAPI

from noitu.adapters.http.errors import declare_retry_after

#: A mounted part's additions to the generated document (it edits it in place).
SchemaPart = Callable[[OpenAPI], None]


def complete_openapi(schema: OpenAPI, parts: Iterable[SchemaPart]) -> None:
    """Apply each part's additions, in the order the parts were mounted, then what
    every route shares."""
    for part in parts:
        part(schema)
    declare_retry_after(schema)
