from __future__ import annotations

import os
import random
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from noitu.adapters.noitu.dictionary_file import lexicon_from_lines
from noitu.application.noitu.session import GameMessage, Ticket
from noitu.domain.noitu.lexicon import Lexicon
from noitu.entrypoints.app import create_app
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import load_settings
from support.arena_store import ProbedOnce, fresh_data_dir, migrated_template
from support.dictionaries import LITTLE
from support.fakes import CollectingBackground, FakeClock, RecordingScoreReporter

SECRET = "s" * 32
API = "/games/noitu/api"


@dataclass
class Harness:
    client: AsyncTestClient
    container: Container
    clock: FakeClock
    reporter: RecordingScoreReporter
    background: CollectingBackground
    lexicon: Lexicon
    tokens_issued: list[str] = field(default_factory=list)

    def token(
        self,
        user: int = 1,
        chat: int | None = 10,
        message: int | None = 1,
        inline: str | None = None,
        ttl_s: int = 3600,
        name: str = "An",
    ) -> str:
        if inline is not None:
            chat = message = None
        ticket = Ticket(
            user_id=user,
            first_name=name,
            message=GameMessage(chat_id=chat, message_id=message, inline_message_id=inline),
            expires_at=self.clock.now // 1000 + ttl_s,
        )
        return self.container.token_signer().issue(ticket)

    async def post(self, route: str, body: Any) -> Any:
        return await self.client.post(f"{API}/{route}", json=body)

    async def start(self, difficulty: str | None = "medium", **token_args: Any) -> Any:
        body: dict[str, Any] = {"token": self.token(**token_args)}
        if difficulty is not None:
            body["difficulty"] = difficulty
        return await self.post("start", body)

    async def started(self, **kwargs: Any) -> dict[str, Any]:
        response = await self.start(**kwargs)
        assert response.status_code == 200, response.text
        return response.json()

    async def move(self, session: str, word: str, wait_ms: int = 300) -> Any:
        self.clock.advance(wait_ms)
        return await self.post("move", {"session": session, "word": word})


@pytest.fixture(scope="session")
def arena_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory with the arena's database migrated, copied for each test."""
    return migrated_template(tmp_path_factory.mktemp("arena-template"))


@pytest.fixture(scope="session")
def arena_probe() -> Iterator[ProbedOnce]:
    """The sandbox of this machine, probed once for the whole run."""
    probed = ProbedOnce.now()
    yield probed
    probed.close()


@pytest.fixture(autouse=True)
def arena_data_dir(
    arena_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Every test's own data directory: apps built here and `noitu serve` processes
    started by a test (they inherit the environment) never write to the real home."""
    directory = fresh_data_dir(arena_template, tmp_path / "arena-data")
    monkeypatch.setenv("NOITU_DATA_DIR", str(directory))
    return directory


def build_container(lexicon: Lexicon, env: dict[str, str] | None = None) -> Container:
    container = Container()
    base = {"NOITU_GAME_SECRET": SECRET, "NOITU_ACCESS_LOG": "0", "NOITU_DATA_DIR": os.environ["NOITU_DATA_DIR"]}
    container.settings.override(load_settings({**base, **(env or {})}))
    container.lexicon.override(lexicon)
    container.rng.override(random.Random(7))
    return container


@pytest.fixture
async def make_harness(clock: FakeClock, arena_probe: ProbedOnce) -> AsyncIterator[Any]:
    clients: list[AsyncTestClient] = []

    async def make(lexicon: Lexicon | None = None, env: dict[str, str] | None = None) -> Harness:
        lexicon = lexicon or lexicon_from_lines(LITTLE.splitlines(), "little")
        container = build_container(lexicon, env)
        reporter = RecordingScoreReporter()
        background = CollectingBackground()
        container.clock.override(clock)
        container.score_reporter.override(reporter)
        container.background.override(background)
        container.arena_probe.override(arena_probe)
        client = AsyncTestClient(create_app(container))
        await client.__aenter__()
        clients.append(client)
        return Harness(client, container, clock, reporter, background, lexicon)

    yield make
    for client in clients:
        await client.__aexit__(None, None, None)


@pytest.fixture
async def harness(make_harness: Any) -> Harness:
    return await make_harness()
