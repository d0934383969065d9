"""The arena API's GET routes take only the query parameters they declare, once each
(issue 30: `ladder/matches?bot=A&bot=B` silently used the last, `?opponent=` was
ignored): anything else is `bad_request` naming the parameter, and the OpenAPI document
says so on every such route."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from litestar.testing import AsyncTestClient

from noitu.adapters.http.strict_query import STRICT_NOTE
from noitu.entrypoints.app import create_app
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import load_settings
from support.arena_store import NoSandbox

API = "/arena/api"


@pytest.fixture
async def client(arena_data_dir: Path) -> AsyncIterator[AsyncTestClient]:
    container = Container()
    container.settings.override(load_settings({
        "NOITU_ACCESS_LOG": "0", "MODULES": "arena", "NOITU_DATA_DIR": str(arena_data_dir),
        "NOITU_ARENA_LADDER": "0",
    }))
    container.arena_probe.override(NoSandbox())
    async with AsyncTestClient(create_app(container)) as served:
        yield served


@pytest.mark.parametrize(
    ("path", "named"),
    [
        (f"{API}/ladder/matches?bot=strong&bot=random", "bot"),  # repeated
        (f"{API}/ladder/matches?opponent=strong", "opponent"),  # not taken
        (f"{API}/ladder/matches?bot=strong&before=1.0000000A&before=2.0000000B", "before"),
        (f"{API}/ladder?page=2", "page"),
        (f"{API}/ladder/bots/strong?since=5", "since"),
        (f"{API}/bots/strong/matches?opponent=random", "opponent"),
        (f"{API}/bots/strong/figures?x", "x"),
        (f"{API}/bots/public?limit=5&limit=6", "limit"),
        (f"{API}/rooms?mine=1", "mine"),
        (f"{API}/config?v=2", "v"),
    ],
)
async def test_an_unknown_or_repeated_query_parameter_is_refused(
    client: AsyncTestClient, path: str, named: str
) -> None:
    answer = await client.get(path)
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert body["error"] == "bad_request" and f"«{named}»" in body["message"]


@pytest.mark.parametrize(
    "path",
    [
        f"{API}/ladder/matches?bot=strong",
        f"{API}/ladder?after=0",
        f"{API}/ladder/bots/strong",
        f"{API}/bots/strong/matches",
        f"{API}/bots/public?limit=5",
        f"{API}/rooms",
        f"{API}/config",
    ],
)
async def test_the_declared_parameters_still_work(client: AsyncTestClient, path: str) -> None:
    answer = await client.get(path)
    assert answer.status_code == 200, answer.text


async def test_the_document_says_every_get_route_refuses_them(client: AsyncTestClient) -> None:
    document = (await client.get("/schema/openapi.json")).json()
    gets = {
        path: item["get"] for path, item in document["paths"].items()
        if path.startswith(API) and "get" in item
    }
    assert len(gets) >= 10
    for path, operation in gets.items():
        refused = operation["responses"].get("400")
        assert refused is not None and STRICT_NOTE in refused["description"], path
        examples = refused["content"]["application/json"]["examples"].values()
        assert any(example["value"]["error"] == "bad_request" for example in examples), path
