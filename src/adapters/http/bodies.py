"""JSON request bodies are decoded strictly, and those that cannot be are the client's
fault, never a 500.

Litestar decodes a body into plain Python objects first and converts them to the
handler's `data` type afterwards, in msgspec's lax mode (it converts path and query
strings in the same step): `"5"` became the integer 5, `"true"` and `1` the boolean
true, `"null"` a missing seat. `GameRequest.json` decodes the body straight into the
route's `data` type with msgspec in strict mode instead, so a wrong JSON type is
refused before any use case runs; litestar's later conversion passes the decoded
struct through unchanged. Every route of both games with a JSON body goes through here.

msgspec refuses a body nested past its recursion limit with a `RecursionError`, which
is no `msgspec.DecodeError`, so litestar would let it through as an unexpected failure
(a 500 and a long traceback). Every decoding failure becomes litestar's
`SerializationException`, which the route answers as a 400 (`bad_request` through
`errors.http_error_handler`), and logs one short line.

The request reads Content-Length straight from the scope, and keeps the decoded body in
litestar's own cache: both lean on litestar's private attributes, fenced in
`fast_paths.py`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import msgspec
import structlog
from litestar.exceptions import SerializationException
from litestar.types import Empty

from noitu.adapters.http.fast_paths import ScopeHeaderRequest, cached_json, remember_json

log = structlog.get_logger("noitu.http")

REASON_CHARACTERS = 120  # the decoder's message, cut short: the log is not for bodies


class GameRequest(ScopeHeaderRequest):
    async def json(self) -> Any:
        if (decoded := cached_json(self)) is not Empty:
            return decoded
        body = await self.body()
        try:
            value = _decoder_for(self.route_handler).decode(body or b"null")
        except RecursionError:
            reason = "nested too deeply"
        except msgspec.MsgspecError as error:
            reason = str(error)[:REASON_CHARACTERS]
        else:
            remember_json(self, value)
            return value
        log.info("undecodable_body", path=self.scope["path"], reason=reason)
        raise SerializationException(reason)


def _decoder_for(handler: Any) -> msgspec.json.Decoder[Any]:
    """The strict decoder of the route's `data` type; plain JSON for a route without
    one, or with a type msgspec cannot decode JSON into (litestar checks it later)."""
    data = handler.parsed_fn_signature.parameters.get("data")
    if data is not None:
        try:
            return _decoder(data.annotation)
        except TypeError:  # not a type msgspec decodes, or not hashable
            pass
    return _decoder(Any)


@lru_cache(maxsize=128)
def _decoder(body_type: Any) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(body_type, strict=True)
