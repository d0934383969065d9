"""The ladder's routes through the real app on a real data directory (spec B8 "Entry",
"Pages and routes"): ranking is the owner's and makes the bot public, at most three per
owner, a ranked bot stays public, unranking and deleting take it off the table, a
suspended bot is resumed by its owner; the table names every bot."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from dependency_injector import providers
from litestar.testing import AsyncTestClient

from noitu.adapters.arena.builtin import BuiltinBots
from noitu.application.arena.admission import AddressLimits
from noitu.application.arena.limits import UPLOAD_WINDOW_MS
from noitu.domain.arena.ladder.members import MAX_RANKED_PER_OWNER
from noitu.entrypoints.app import create_app
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import load_settings
from support.arena_bots import BOTS
from support.arena_store import NoSandbox, ScriptedBuilder
from support.fakes import FakeClock

BOTS_API = "/arena/api/bots"
LADDER = "/arena/api/ladder"
KEY_A = "a" * 32
KEY_B = "b" * 32
GOOD_PY = (BOTS / "a5_minimal.py").read_bytes()


@dataclasses.dataclass
class Arena:
    client: AsyncTestClient
    container: Container
    builder: ScriptedBuilder
    clock: FakeClock

    async def upload(self, name: str = "bot.py", key: str = KEY_A) -> str:
        self.clock.advance(UPLOAD_WINDOW_MS)  # never the upload limits' concern here
        files = {"file": (name, GOOD_PY, "application/octet-stream")}
        answer = await self.client.post(
            f"{BOTS_API}/", files=files, data={"name": name}, headers={"X-Owner-Key": key}
        )
        assert answer.status_code == 201, answer.text
        return answer.json()["bot"]["id"]

    async def call(self, method: str, path: str, key: str | None = KEY_A, **kw: Any) -> Any:
        headers = {"X-Owner-Key": key} if key is not None else {}
        return await self.client.request(method, path, headers=headers, **kw)

    async def table(self) -> list[dict[str, Any]]:
        answer = await self.client.get(f"{LADDER}/")
        assert answer.status_code == 200, answer.text
        return answer.json()["rows"]


@pytest.fixture
async def arena(arena_data_dir: Path) -> AsyncIterator[Arena]:
    container = Container()
    # The routes alone: no driver playing the ranked bots' matches in the background.
    container.settings.override(load_settings({
        "NOITU_ACCESS_LOG": "0", "MODULES": "arena", "NOITU_DATA_DIR": str(arena_data_dir),
        "NOITU_ARENA_LADDER": "0",
    }))
    clock = FakeClock()
    builder = ScriptedBuilder()
    container.clock.override(clock)
    container.id_source.override(random.Random(3))
    container.arena_probe.override(NoSandbox())
    container.upload_builder.override(providers.Object(builder))
    async with AsyncTestClient(create_app(container)) as client:
        yield Arena(client, container, builder, clock)


def error(answer: Any) -> tuple[int, str]:
    return answer.status_code, answer.json()["error"]


async def test_the_table_starts_with_the_builtins_at_the_first_rating(arena: Arena):
    rows = await arena.table()
    assert [row["botId"] for row in rows] == list(reversed(BuiltinBots.names()))  # strongest first
    assert [row["rank"] for row in rows] == [1, 2, 3]
    assert {row["botId"]: row["language"] for row in rows} == {
        "random": "python", "tactical": "python", "strong": "cpp",
    }
    first = rows[0]
    assert set(first) == {
        "rank", "botId", "name", "language", "builtin", "mu", "sigma", "ordinal", "games",
        "wins", "draws", "losses", "lastGameMs", "suspended",
    }
    assert first["builtin"] and first["name"] == "strong" and first["mu"] == pytest.approx(25)
    assert (first["games"], first["lastGameMs"], first["suspended"]) == (0, None, False)


async def test_ranking_is_the_owners_and_makes_the_bot_public(arena: Arena):
    bot = await arena.upload("an.py")
    for key, expected in ((None, (404, "bot_not_found")), (KEY_B, (404, "bot_not_found")),
                          ("XYZ", (400, "bad_owner_key"))):
        assert error(await arena.call("PUT", f"{LADDER}/bots/{bot}", key)) == expected
    ranked = await arena.call("PUT", f"{LADDER}/bots/{bot}")
    assert ranked.status_code == 200, ranked.text
    assert ranked.json() == {
        "botId": bot, "suspended": False, "failuresInRow": 0, "inPlacement": True,
    }
    assert (await arena.call("GET", f"{BOTS_API}/{bot}", KEY_B)).json()["public"]
    # Now public: another owner sees it, and is told it is not theirs.
    assert error(await arena.call("PUT", f"{LADDER}/bots/{bot}", KEY_B)) == (403, "not_owner")
    again = await arena.call("PUT", f"{LADDER}/bots/{bot}")
    assert again.status_code == 200  # ranking a ranked bot changes nothing
    (row,) = [row for row in await arena.table() if row["botId"] == bot]
    assert (row["name"], row["language"], row["builtin"], row["rank"]) == ("an.py", "python", False, 4)


async def test_a_ranked_bot_cannot_be_made_private_and_unranking_leaves_it_public(arena: Arena):
    bot = await arena.upload()
    await arena.call("PUT", f"{LADDER}/bots/{bot}")
    private = await arena.call("PATCH", f"{BOTS_API}/{bot}", json={"public": False})
    assert error(private) == (409, "bot_ranked")
    assert (await arena.call("GET", f"{BOTS_API}/{bot}")).json()["public"]
    unranked = await arena.call("DELETE", f"{LADDER}/bots/{bot}")
    assert (unranked.status_code, unranked.json()) == (200, {"botId": bot, "wasRanked": True})
    assert bot not in [row["botId"] for row in await arena.table()]
    assert (await arena.call("GET", f"{BOTS_API}/{bot}")).json()["public"]
    assert (await arena.call("DELETE", f"{LADDER}/bots/{bot}")).json()["wasRanked"] is False
    private = await arena.call("PATCH", f"{BOTS_API}/{bot}", json={"public": False})
    assert private.status_code == 200 and not private.json()["public"]


async def test_at_most_three_ranked_bots_per_owner(arena: Arena):
    bots = [await arena.upload(f"b{n}.py") for n in range(MAX_RANKED_PER_OWNER + 1)]
    for bot in bots[:MAX_RANKED_PER_OWNER]:
        assert (await arena.call("PUT", f"{LADDER}/bots/{bot}")).status_code == 200
    assert error(await arena.call("PUT", f"{LADDER}/bots/{bots[-1]}")) == (409, "too_many_ranked")
    # Refused: the fourth stays private and off the table.
    assert not (await arena.call("GET", f"{BOTS_API}/{bots[-1]}")).json()["public"]
    other = await arena.upload(key=KEY_B)
    assert (await arena.call("PUT", f"{LADDER}/bots/{other}", KEY_B)).status_code == 200
    await arena.call("DELETE", f"{LADDER}/bots/{bots[0]}")
    assert (await arena.call("PUT", f"{LADDER}/bots/{bots[-1]}")).status_code == 200


async def test_ranking_counts_toward_the_addresss_uploads_whatever_the_keys(arena: Arena):
    # Issue 30: 5,000 sybil bots ranked from one address, a fresh owner key each (the
    # cap per owner held; nothing per address did). Ranking counts like an upload (B10).
    limit = AddressLimits().uploads
    keys = [f"{n + 1:032x}" for n in range(limit + 1)]
    bots = [await arena.upload(f"s{n}.py", key) for n, key in enumerate(keys)]
    # every upload in a minute of its own (the fixture's clock); the rankings in one
    arena.clock.advance(UPLOAD_WINDOW_MS)
    for bot, key in zip(bots[:limit], keys, strict=False):
        assert (await arena.call("PUT", f"{LADDER}/bots/{bot}", key)).status_code == 200
    refused = await arena.call("PUT", f"{LADDER}/bots/{bots[-1]}", keys[-1])
    assert error(refused) == (429, "address_too_many_uploads")
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert "xếp hạng" in refused.json()["message"]
    assert bots[-1] not in [row["botId"] for row in await arena.table()]
    # a bot ranked already changes nothing and counts nothing
    assert (await arena.call("PUT", f"{LADDER}/bots/{bots[0]}", keys[0])).status_code == 200
    arena.clock.advance(UPLOAD_WINDOW_MS)
    assert (await arena.call("PUT", f"{LADDER}/bots/{bots[-1]}", keys[-1])).status_code == 200


async def test_a_bot_whose_build_failed_is_not_ranked(arena: Arena):
    arena.builder.ok = False
    broken = await arena.upload("broken.py")
    assert error(await arena.call("PUT", f"{LADDER}/bots/{broken}")) == (409, "bot_not_built")


async def test_a_deleted_bot_leaves_the_table(arena: Arena):
    bot = await arena.upload()
    await arena.call("PUT", f"{LADDER}/bots/{bot}")
    assert (await arena.call("DELETE", f"{BOTS_API}/{bot}")).status_code == 204
    assert bot not in [row["botId"] for row in await arena.table()]
    assert await arena.container.ladder_members().get(bot) is None


async def test_the_owner_resumes_a_suspended_bot(arena: Arena):
    bot = await arena.upload()
    assert error(await arena.call("POST", f"{LADDER}/bots/{bot}/resume")) == (409, "not_ranked")
    await arena.call("PUT", f"{LADDER}/bots/{bot}")
    await arena.container.ladder_members().update(
        bot, lambda m: dataclasses.replace(m, failures_in_row=3, suspended=True)
    )
    (row,) = [row for row in await arena.table() if row["botId"] == bot]
    assert row["suspended"]
    assert error(await arena.call("POST", f"{LADDER}/bots/{bot}/resume", KEY_B)) == (403, "not_owner")
    resumed = await arena.call("POST", f"{LADDER}/bots/{bot}/resume")
    assert resumed.status_code == 200, resumed.text
    assert (resumed.json()["suspended"], resumed.json()["failuresInRow"]) == (False, 0)
    (row,) = [row for row in await arena.table() if row["botId"] == bot]
    assert not row["suspended"]


async def test_the_document_says_the_owners_routes_need_the_key(arena: Arena):
    paths = (await arena.client.get("/schema/openapi.json")).json()["paths"]
    for method, path in (("put", "/bots/{bot_id}"), ("delete", "/bots/{bot_id}"),
                         ("post", "/bots/{bot_id}/resume")):
        (key,) = [p for p in paths[LADDER + path][method]["parameters"] if p["name"] == "X-Owner-Key"]
        assert key["required"] is True
    table = paths[LADDER]["get"]
    assert "X-Owner-Key" not in [p["name"] for p in table.get("parameters", [])]
