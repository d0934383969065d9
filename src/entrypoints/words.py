"""The live overlay's task (spec B11): every instance reads the additions store every
FOLLOW_EVERY_S and applies what it has not seen, so an added word plays everywhere
within a few seconds, with no restart (the choice is in docs/decisions.md)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import structlog
from litestar import Litestar

from noitu.application.errors import Busy
from noitu.entrypoints.container import Container

FOLLOW_EVERY_S = 1.0  # an addition reaches every instance within this plus one store read

log = structlog.get_logger("noitu.words")


async def follow_additions_forever(container: Container, every_s: float = FOLLOW_EVERY_S) -> None:
    follow = container.follow_additions()
    while True:
        await asyncio.sleep(every_s)
        try:
            read = await follow()
            if read:
                log.info("word_changes_applied", changes=read, version=follow.overlay.version)
        except Busy:  # Redis is unreachable; the link logs the outage once
            pass
        except Exception:  # keep following whatever one round hit
            log.exception("word_changes_failed")


def words_lifespan(
    container: Container,
) -> Callable[[Litestar], contextlib.AbstractAsyncContextManager[Any]]:
    @contextlib.asynccontextmanager
    async def lifespan(_: Litestar) -> AsyncIterator[None]:
        # The additions so far are in the game before the first request is served.
        try:
            await container.follow_additions()()
        except Busy:
            log.warning("word_changes_deferred")
        task = asyncio.get_running_loop().create_task(follow_additions_forever(container))
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    return lifespan
