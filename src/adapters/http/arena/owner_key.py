"""The owner key of the arena's routes (spec B5): the `X-Owner-Key` header a page keeps,
and the OpenAPI document marking it required where a handler refuses a call without it."""

from __future__ import annotations

from typing import Annotated

from litestar.openapi.spec import OpenAPI
from litestar.params import HeaderParameter

OWNER_KEY_HEADER = "X-Owner-Key"
OWNER_KEY_PATTERN = r"^[0-9a-f]{32}$"

OwnerKey = Annotated[
    str | None,
    HeaderParameter(
        name=OWNER_KEY_HEADER,
        required=False,
        description="The owner key the page keeps (32 lower-case hex digits)",
    ),
]


def require_owner_key(schema: OpenAPI, prefix: str, keyed: set[tuple[str, str]], what: str) -> None:
    """Mark the owner key required on the routes of `keyed` ((method, path below
    `prefix`)): their handlers refuse a call without it. Raises when one is missing
    from the document, naming `what` routes they are."""
    marked = 0
    for path, item in (schema.paths or {}).items():
        for method in {method for method, _ in keyed}:
            operation = getattr(item, method)
            if operation is None or (method, path.removeprefix(prefix)) not in keyed:
                continue
            for parameter in operation.parameters or []:
                if getattr(parameter, "name", "") == OWNER_KEY_HEADER:
                    parameter.required = True
                    marked += 1
    if marked != len(keyed):
        raise RuntimeError(f"the OpenAPI document lacks the owner key of a {what} route")
