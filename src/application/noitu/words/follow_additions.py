"""Keep this instance's live overlay up to date with the additions store (spec B11)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from noitu.application.noitu.words.ports import AdditionsStore
from noitu.domain.noitu.additions import Overlay, WordChange
from noitu.domain.noitu.bots.index import BotIndex
from noitu.domain.noitu.lexicon import Lexicon

BATCH = 1_000  # changes read per store call


class FollowAdditions:
    """Read the changes this instance has not applied yet and bring the Lexicon and the
    bots' index up to them together. Run every second or so (FOLLOW_EVERY_S); calls at
    once (the poll and an operator's button) take turns, so each change is applied once.
    Answers how many changes it read.

    When the playable words change, the next bots' index (a fifth of a second and more
    on the shipped dictionary) is built in a worker thread on a copy of the Lexicon with
    the changes (`Overlay.preview`), while the event loop goes on serving moves on the
    words as they are; then, in one synchronous step, the changes are applied to the
    Lexicon (microseconds each) and the bots' index takes the new one, so no move sees a
    word the bots' index lacks, or the other way round. A failure leaves both as they
    were: the caller gets it (the poll logs it) and the next call tries again."""

    def __init__(
        self,
        store: AdditionsStore,
        overlay: Overlay,
        bot_index: BotIndex,
        build_index: Callable[[Lexicon], BotIndex] = BotIndex,
    ) -> None:
        self._store = store
        self._overlay = overlay
        self._bot_index = bot_index
        self._build_index = build_index
        self._turn = asyncio.Lock()

    @property
    def overlay(self) -> Overlay:
        return self._overlay

    async def __call__(self) -> int:
        async with self._turn:
            return await self._follow()

    async def _follow(self) -> int:
        overlay = self._overlay
        changes: list[WordChange] = []
        while True:
            batch = await self._store.changes_since(overlay.version + len(changes), BATCH)
            changes += batch
            if len(batch) < BATCH:
                break
        if not changes:
            return 0
        # While this call holds the turn nothing changes the overlay: the worker thread
        # copies it while the loop only reads it.
        built = await asyncio.to_thread(self._next_index, changes)
        for change in changes:
            overlay.apply(change)
        if built is not None:
            self._bot_index.adopt(built)
        return len(changes)

    def _next_index(self, changes: list[WordChange]) -> BotIndex | None:
        ahead = self._overlay.preview(changes)
        return None if ahead is None else self._build_index(ahead)
