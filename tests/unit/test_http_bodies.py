"""`GameRequest.content_length`: read straight from the ASGI scope, with litestar's
meaning (the first header; none is None; a malformed one is the client's error)."""

from __future__ import annotations

import pytest
from litestar.exceptions import ClientException

from noitu.adapters.http.bodies import GameRequest


def request_with(*headers: tuple[bytes, bytes]) -> GameRequest:
    scope = {
        "type": "http", "method": "POST", "path": "/", "headers": list(headers),
        "query_string": b"", "state": {}, "app": None, "route_handler": None,
    }
    return GameRequest(scope)  # type: ignore[arg-type]


def test_the_first_content_length_header_counts() -> None:
    request = request_with((b"host", b"x"), (b"content-length", b"42"), (b"content-length", b"7"))
    assert request.content_length == 42
    assert request.content_length == 42  # cached


def test_no_content_length_is_none() -> None:
    assert request_with((b"content-type", b"application/json")).content_length is None


def test_a_malformed_content_length_is_the_clients_error() -> None:
    with pytest.raises(ClientException):
        _ = request_with((b"content-length", b"12x")).content_length
