"""Keep this instance's live overlay up to date with the additions store (spec B11)."""

from __future__ import annotations

import asyncio

from noitu.application.noitu.words.ports import AdditionsStore
from noitu.domain.noitu.additions import Overlay
from noitu.domain.noitu.bots.index import BotIndex

BATCH = 1_000  # changes read per store call


class FollowAdditions:
    """Read the changes this instance has not applied yet, apply them over the Lexicon
    and, when the playable words changed, rebuild the bots' index once. Run every
    second or so (FOLLOW_EVERY_S); calls at once (the poll and an operator's button)
    take turns, so each change is applied once. Answers how many changes it read."""

    def __init__(self, store: AdditionsStore, overlay: Overlay, bot_index: BotIndex) -> None:
        self._store = store
        self._overlay = overlay
        self._bot_index = bot_index
        self._turn = asyncio.Lock()

    @property
    def overlay(self) -> Overlay:
        return self._overlay

    async def __call__(self) -> int:
        async with self._turn:
            return await self._follow()

    async def _follow(self) -> int:
        overlay = self._overlay
        read = 0
        changed = False
        while True:
            changes = await self._store.changes_since(overlay.version, BATCH)
            for change in changes:
                changed = overlay.apply(change) or changed
            read += len(changes)
            if len(changes) < BATCH:
                break
        if changed:
            self._bot_index.refresh()
        return read
