"""Fixtures of the arena runner's integration tests: the real sandbox of this machine."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from noitu.adapters.arena.bubblewrap import Sandbox
from support.arena_bots import sandbox_fixture


@pytest.fixture(scope="session")
def arena_sandbox() -> Iterator[Sandbox]:
    yield from sandbox_fixture()
