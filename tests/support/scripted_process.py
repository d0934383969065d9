"""A hand-written `BotProcess` for the runner's and the checks' unit tests: it never
fails on its own (a failure it has to show comes from its `ask`), writes no stderr and
closes at once. A test gives it the `ask` it needs."""

from __future__ import annotations

import asyncio

from noitu.application.arena.ports import ProcessFailure


class QuietProcess:
    closed = False

    async def failure(self) -> ProcessFailure:
        await asyncio.Event().wait()  # never: this bot does not fail on its own
        raise AssertionError("unreachable")

    def pending_failure(self) -> ProcessFailure | None:
        return None

    def stderr_tail(self) -> bytes:
        return b""

    def on_stderr(self, listener) -> None:
        return None

    async def close(self) -> None:
        self.closed = True
