"""The live overlay's start (spec B11): the changes to the words made so far are in the
game before the first request is served. From then on every instance reads the
additions store every `FOLLOW_EVERY_S` and applies what it has not seen (the periodic
task `word_additions`, `entrypoints/periodic_tasks.py`), so an added word plays
everywhere within a few seconds, with no restart (the choice is in docs/decisions.md)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import structlog
from litestar import Litestar

from noitu.application.errors import Busy
from noitu.entrypoints.container import Container

log = structlog.get_logger("noitu.words")


def words_lifespan(
    container: Container,
) -> Callable[[Litestar], contextlib.AbstractAsyncContextManager[Any]]:
    @contextlib.asynccontextmanager
    async def lifespan(_: Litestar) -> AsyncIterator[None]:
        try:
            await container.follow_additions()()
        except Busy:
            log.warning("word_changes_deferred")
        yield

    return lifespan
