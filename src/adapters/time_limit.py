"""The TimeLimit port on asyncio: the work is cancelled once its time is up."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


class AsyncioTimeLimit:
    async def within(self, seconds: float, work: Awaitable[T]) -> T:
        return await asyncio.wait_for(work, seconds)
