"""Background work on the event loop, drained with a time bound at shutdown."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import structlog

log = structlog.get_logger("noitu.background")


class AsyncioBackground:
    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background_failed", exc_info=task.exception())

    @property
    def pending(self) -> int:
        return len(self._tasks)

    async def drain(self, timeout_s: float) -> None:
        """Wait for running work, at most timeout_s; cancel what is left."""
        if not self._tasks:
            return
        _, late = await asyncio.wait(set(self._tasks), timeout=timeout_s)
        for task in late:
            task.cancel()
        if late:
            log.warning("background_cancelled", count=len(late))
