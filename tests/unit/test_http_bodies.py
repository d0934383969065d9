"""`GameRequest`: `content_length` read straight from the ASGI scope, with litestar's
meaning (the first header; none is None; a malformed one is the client's error), and
JSON bodies decoded strictly into the route's type."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
import pytest
from litestar import Litestar, MediaType, post
from litestar.exceptions import ClientException, HTTPException
from litestar.params import Body
from litestar.testing import TestClient

from noitu.adapters.http.bodies import GameRequest
from noitu.adapters.http.errors import http_error_handler


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


class Point(msgspec.Struct, forbid_unknown_fields=True):
    row: int
    shown: bool = False


@post("/point", status_code=200)
async def point(data: Annotated[Point, Body(media_type=MediaType.JSON)]) -> dict[str, Any]:
    return {"row": data.row, "shown": data.shown, "type": type(data.row).__name__}


@post("/anything", status_code=200)
async def anything(data: Annotated[dict[str, Any], Body(media_type=MediaType.JSON)]) -> dict[str, Any]:
    return data


def strict_app() -> Litestar:
    return Litestar(
        [point, anything], request_class=GameRequest,
        exception_handlers={HTTPException: http_error_handler}, logging_config=None,
    )


@pytest.mark.parametrize(
    "body",
    [{"row": "5"}, {"row": 5.0}, {"row": 4e1}, {"row": True}, {"row": 5, "shown": 1},
     {"row": 5, "shown": "true"}, {"row": None}, {"row": 5, "other": 1}],
)
def test_a_wrong_json_type_is_refused_before_the_handler(body: dict[str, Any]) -> None:
    with TestClient(strict_app()) as client:
        answer = client.post("/point", json=body)
    assert (answer.status_code, answer.json()["error"]) == (400, "bad_request"), body


def test_right_types_reach_the_handler_as_they_were_sent() -> None:
    with TestClient(strict_app()) as client:
        assert client.post("/point", json={"row": 5, "shown": True}).json() == {
            "row": 5, "shown": True, "type": "int"
        }
        assert client.post("/anything", json={"a": [1, "2"]}).json() == {"a": [1, "2"]}
