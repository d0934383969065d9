"""Issue 30's attack on the ladder's reads, bounded (spec B8 "Pages and routes", B13):
one anonymous `GET /arena/api/ladder/bots/{id}` folded the whole stored history on the
event loop (0.43 s at 5,000 results, 4.8 s at 50,000, `/healthz` waiting), and the table
asked the database once per row (6.6 s with 5,000 sybil bots).

Through the real app on a real SQLite database, seeded directly: each read route asks
the database the same number of statements on a small ladder and on a big one, the
bot's page and the table never read the results (the fold's input), and the event loop
the bots' clocks run on is never held for long while four clients read bots' pages at
once (`/healthz` answering meanwhile).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
from litestar.testing import AsyncTestClient
from sqlalchemy import event

from noitu.adapters.arena.sql import migrations
from noitu.adapters.arena.sql.engine import create_engine, default_url
from noitu.application.arena.ladder.ladder_bot import RATINGS_PAGE_SIZE
from noitu.application.arena.ladder.list_ladder import TABLE_PAGE_SIZE
from noitu.bench.arena_ladder_reads import Seeded, seed_ladder
from noitu.entrypoints.app import create_app
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import load_settings
from support.arena_store import NoSandbox
from support.process import ServerProcess

LADDER = "/arena/api/ladder"
DOC = Path(__file__).resolve().parents[3] / "docs" / "arena-api.md"
#: The longest `/healthz` may wait while bots' pages are read: the event loop it runs on
#: keeps the bots' clocks (a turn is 2 s), and the fold this replaced held it for
#: seconds (1 to 2 s a read here, before).
MOST_WAITED_S = 1.0


@contextlib.asynccontextmanager
async def served(
    data_dir: Path, results: int, ranked: int, *, fold: bool = False
) -> AsyncIterator[tuple[AsyncTestClient, Container, Seeded]]:
    container = Container()
    container.settings.override(load_settings({
        "NOITU_ACCESS_LOG": "0", "MODULES": "arena", "NOITU_DATA_DIR": str(data_dir),
        "NOITU_ARENA_LADDER": "0",
    }))
    container.arena_probe.override(NoSandbox())
    async with AsyncTestClient(create_app(container)) as client:
        seeded = await seed_ladder(
            container.arena_engine(), results=results, ranked=ranked, players=8, fold=fold
        )
        yield client, container, seeded


@contextlib.contextmanager
def statements(container: Container) -> Any:
    """The SQL statements the app sends while the block runs."""
    sent: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        sent.append(statement)

    engine = container.arena_engine().sync_engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        yield sent
    finally:
        event.remove(engine, "before_cursor_execute", record)


def routes(seeded: Seeded) -> dict[str, str]:
    player = seeded.players[0]
    return {
        "table": f"{LADDER}",
        "ranked bot": f"{LADDER}/bots/{player}",
        "built-in bot": f"{LADDER}/bots/strong",
        "matches": f"{LADDER}/matches",
        "one bot's matches": f"{LADDER}/matches?bot={player}",
    }


async def sent_by_route(
    client: AsyncTestClient, container: Container, seeded: Seeded
) -> dict[str, list[str]]:
    sent = {}
    for name, path in routes(seeded).items():
        await client.get(path)  # warm: nothing cached changes the count after this
        with statements(container) as seen:
            answer = await client.get(path)
        assert answer.status_code == 200, answer.text
        sent[name] = list(seen)
    return sent


async def test_the_read_routes_ask_as_much_of_a_big_ladder_as_of_a_small_one(tmp_path: Path):
    async with served(tmp_path / "small", results=40, ranked=5) as (client, container, seeded):
        small = await sent_by_route(client, container, seeded)
    async with served(tmp_path / "big", results=2_000, ranked=400) as (client, container, seeded):
        big = await sent_by_route(client, container, seeded)
        page = (await client.get(LADDER)).json()
        assert len(page["rows"]) == TABLE_PAGE_SIZE and page["next"] == TABLE_PAGE_SIZE
        ratings = (await client.get(f"{LADDER}/bots/{seeded.players[0]}")).json()
        assert len(ratings["ratings"]) == RATINGS_PAGE_SIZE and ratings["next"]
    assert {name: len(sent) for name, sent in big.items()} == {
        name: len(sent) for name, sent in small.items()
    }
    for name in ("table", "ranked bot", "built-in bot"):
        # never the fold: the rated results are not read at all
        assert not any("arena_ladder_results" in sql for sql in big[name]), name
    selects = {name: [sql for sql in sent if sql.startswith("SELECT")] for name, sent in big.items()}
    assert len(selects["table"]) == 2  # the built-ins' rows, then the page's ranked bots
    assert len(selects["ranked bot"]) <= 5


async def test_healthz_answers_while_bots_pages_are_read(tmp_path: Path):
    """A real `noitu serve`: four clients read bots' pages at once, on a ladder whose
    history took seconds to fold, while a fifth asks `/healthz`."""
    data_dir = tmp_path / "data"
    engine = create_engine(default_url(data_dir))
    try:
        await migrations.upgrade(engine)
        seeded = await seed_ladder(engine, results=8_000, ranked=20, players=8, fold=False)
    finally:
        await engine.dispose()
    env = {
        "MODULES": "arena", "NOITU_ACCESS_LOG": "0", "NOITU_DATA_DIR": str(data_dir),
        "NOITU_ARENA_LADDER": "0",
    }
    server = ServerProcess(env, tmp_path / "serve.log").start(timeout_s=60)
    pages = [f"{LADDER}/bots/{bot}" for bot in seeded.players[:4]]
    try:
        async with httpx.AsyncClient(base_url=server.base, timeout=60) as client:
            for path in pages:  # warm: the first reads of a process make its statements
                assert (await client.get(path)).status_code == 200
            done = asyncio.Event()

            async def read(path: str) -> None:
                for _ in range(5):
                    answer = await client.get(path)
                    assert answer.status_code == 200, answer.text

            async def health() -> list[float]:
                waits = []
                while not done.is_set():
                    began = time.perf_counter()
                    assert (await client.get("/healthz")).status_code == 200
                    waits.append(time.perf_counter() - began)
                    await asyncio.sleep(0.02)
                return waits

            checking = asyncio.create_task(health())
            await asyncio.gather(*(read(path) for path in pages))
            done.set()
            waits = await checking
    finally:
        server.stop()
    assert waits and max(waits) < MOST_WAITED_S, f"/healthz waited {max(waits):.2f} s"


def test_the_api_document_says_the_page_sizes() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert f"the newest {RATINGS_PAGE_SIZE}" in text
    assert f"{TABLE_PAGE_SIZE} rows a page" in text
