"""The arena API's GET routes take the query parameters they declare, each at most once
(issue 30): `ladder/matches?bot=A&bot=B` used to keep the last `bot` silently, and
`?opponent=` was ignored, so a client's typo or wrong guess looked like an answer.
Anything else is a `bad_request` (400) that names the parameter.

What a route declares is what the OpenAPI document says of it (its `query` parameters,
written by litestar from the handler's signature): one home, and the document is the
contract. `declare_strict_query` says it there, on every GET route under the prefix.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from litestar import Request
from litestar.openapi.spec import (
    Example,
    OpenAPI,
    OpenAPIMediaType,
    OpenAPIResponse,
    Parameter,
    Reference,
)

from noitu.adapters.http.errors import ErrorBody
from noitu.application.errors import BadRequest

#: A parameter's name is quoted back up to this many characters.
NAME_SHOWN = 40
#: What the document adds to a route's 400.
STRICT_NOTE = "an unknown or repeated query parameter"


def _shown(name: str) -> str:
    return name if len(name) <= NAME_SHOWN else name[:NAME_SHOWN] + "…"


def declared_query(schema: OpenAPI, path: str) -> frozenset[str]:
    """The query parameters the document declares for GET `path` (none for a path it
    does not have)."""
    item = (schema.paths or {}).get(path)
    operation = item.get if item is not None else None
    if operation is None:
        return frozenset()
    return frozenset(
        parameter.name
        for parameter in operation.parameters or ()
        if isinstance(parameter, Parameter) and parameter.param_in == "query"
    )


def strict_query(prefix: str) -> Callable[[Request], Awaitable[None]]:
    """A `before_request` hook: a GET under `prefix` whose query holds a parameter its
    route does not declare, or one twice, is refused before its handler runs."""
    known: dict[str, frozenset[str]] = {}

    async def refuse_stray_parameters(request: Request) -> None:
        if request.method not in ("GET", "HEAD"):
            return
        path = request.scope.get("path_template", "")
        if not path.startswith(prefix):
            return
        if path not in known:
            known[path] = declared_query(request.app.openapi_schema, path)
        allowed = known[path]
        seen: set[str] = set()
        for name, _ in request.query_params.multi_items():
            if name not in allowed:
                raise BadRequest(f"Tham số «{_shown(name)}» không dùng được ở đây.")
            if name in seen:
                raise BadRequest(f"Tham số «{_shown(name)}» chỉ được gửi một lần.")
            seen.add(name)

    return refuse_stray_parameters


def declare_strict_query(prefix: str) -> Callable[[OpenAPI], None]:
    """The document's part: every GET under `prefix` may answer `bad_request` for a
    query parameter it does not take, or one sent twice (a route that declared no 400
    gets one, shaped as every other error answer)."""

    def declare(schema: OpenAPI) -> None:
        for path, item in (schema.paths or {}).items():
            operation = item.get
            if not path.startswith(prefix) or operation is None:
                continue
            responses = operation.responses = dict(operation.responses or {})
            answer = responses.get("400")
            if isinstance(answer, OpenAPIResponse):
                if STRICT_NOTE not in answer.description:
                    answer.description = f"{answer.description} (also: {STRICT_NOTE})"
                continue
            example = {"error": BadRequest.code, "message": BadRequest.default_message}
            responses["400"] = OpenAPIResponse(
                description=f"{BadRequest.code}: {STRICT_NOTE}",
                content={
                    "application/json": OpenAPIMediaType(
                        schema=Reference(ref=f"#/components/schemas/{ErrorBody.__name__}"),
                        examples={"bad-request": Example(value=example)},
                    )
                },
            )

    return declare
