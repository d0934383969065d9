"""JSON request bodies that cannot be decoded are the client's fault, never a 500.

Litestar decodes a body into plain Python objects first and converts them to the
command afterwards. msgspec refuses a body nested past its recursion limit with a
`RecursionError`, which is no `msgspec.DecodeError`, so litestar lets it through as an
unexpected failure (a 500 and a long traceback). `GameRequest` turns every decoding
failure into litestar's `SerializationException`, which the route answers as a 400
(`bad_request` through `errors.http_error_handler`), and logs one short line.
"""

from __future__ import annotations

from typing import Any

import structlog
from litestar import Request
from litestar.exceptions import ClientException, SerializationException
from litestar.types import Empty

log = structlog.get_logger("noitu.http")

REASON_CHARACTERS = 120  # the decoder's message, cut short: the log is not for bodies


class GameRequest(Request[Any, Any, Any]):
    @property
    def content_length(self) -> int | None:
        """The Content-Length header read straight from the ASGI scope, as litestar's
        own property reads it (the first one; a malformed one is the client's error)
        but without parsing every header into a `Headers` first: that was 4% of a
        move's CPU under load (issue 13)."""
        cached = self._content_length
        if cached is not Empty:
            return cached  # type: ignore[return-value]
        length: int | None = None
        for name, value in self.scope["headers"]:
            if name == b"content-length":
                try:
                    length = int(value)
                except ValueError:
                    raise ClientException(f"Invalid content-length: {value!r}") from None
                break
        self._content_length = length
        return length

    async def json(self) -> Any:
        try:
            return await super().json()
        except RecursionError:
            reason = "nested too deeply"
        except SerializationException as error:
            reason = str(error.detail or error)[:REASON_CHARACTERS]
        log.info("undecodable_body", path=self.scope["path"], reason=reason)
        raise SerializationException(reason)
