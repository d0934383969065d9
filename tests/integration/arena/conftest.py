"""Fixtures of the arena's integration tests: the real sandbox of this machine, and the
databases of the SQL repository's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from noitu.adapters.arena.sandbox import Sandbox
from support.arena_bots import sandbox_fixture
from support.arena_databases import (  # noqa: F401 (fixtures of the SQL repository's tests)
    engines,
    new_url,
    postgres,
    sqlite_template,
)


@pytest.fixture(scope="session")
def arena_sandbox() -> Iterator[Sandbox]:
    yield from sandbox_fixture()
