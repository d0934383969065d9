"""The match queue: the promise of 0.5 CPU per thinking bot, kept under load (spec B2).

A match has one side thinking at a time, and a thinking bot may use 0.5 CPU, so a match
needs about half a core. The queue lets at most `slots` matches play at once — by
default twice the cores, less one half-core pair for the server itself — and the others
wait, each able to read its place. A bot can then never lose on time because
the server ran more matches than the machine's cores can honour.

The waiting order is fair (spec B10), by the rule of `fair_order.py`: a match comes
with its tags (the owner keys and addresses of who seated its sides) and, when it
starts to wait, takes its rank among the matches playing or waiting then; one match
per owner and per address ahead of others', the second behind all of theirs. A
spectacle (two built-in bots) waits behind every other room's match: none starts while
a person's waits.

Ladder matches (spec B8 "Scheduling") fill idle capacity only: one waits behind every
room's match, spectacles included, so a room's place never counts it; and they hold at
most all but one of the slots (`ladder_slots`), so a room's match that comes while only
ladder matches play starts at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from itertools import count

from noitu.application.arena.fair_order import Waiting, in_fair_order, rank_among

CPU_PER_THINKING_BOT = 0.5


def default_slots(cores: int) -> int:
    """Matches at once on `cores` cores: each needs 0.5 CPU; one core's worth of
    matches less keeps room for the server (and for compiles), never below one."""
    return max(1, int(cores / CPU_PER_THINKING_BOT) - 2)


class MatchQueue:
    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError("a match queue needs at least one slot")
        self.slots = slots
        self._playing: dict[str, Waiting] = {}
        self._waiting: list[Waiting] = []  # in the order they came
        self._arrivals = count()
        self._changed = asyncio.Condition()

    def place(self, match_id: str) -> int | None:
        """The match's place in the queue from 1 while it waits; None while it plays
        (or is unknown)."""
        for place, waiting in enumerate(self._order(), start=1):
            if waiting.key == match_id:
                return place
        return None

    def _order(self) -> list[Waiting]:
        """The waiting matches in the order they will play (`in_fair_order`)."""
        return in_fair_order(self._waiting)

    def _may_start(self, entry: Waiting) -> bool:
        """`entry` is first in line, a slot is free, and a ladder match leaves one
        slot to the rooms."""
        if len(self._playing) >= self.slots or self._order()[0] is not entry:
            return False
        return not entry.ladder or self.ladder_playing < self.ladder_slots

    def _rank(self, tags: frozenset[str]) -> int:
        """The rank of a match of `tags` among those that play or wait now."""
        return rank_among(tags, (other.tags for other in (*self._playing.values(), *self._waiting)))

    @property
    def playing(self) -> int:
        return len(self._playing)

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    @property
    def ladder_slots(self) -> int:
        """The most ladder matches that may play at once: all slots but one (none on a
        one-slot server)."""
        return self.slots - 1

    @property
    def ladder_playing(self) -> int:
        return sum(1 for entry in self._playing.values() if entry.ladder)

    @asynccontextmanager
    async def slot(
        self,
        match_id: str,
        tags: frozenset[str] = frozenset(),
        spectacle: bool = False,
        ladder: bool = False,
        rank: int | None = None,
        arrival: int | None = None,
    ) -> AsyncIterator[None]:
        """Wait for a free slot in the fair order, hold it while the body plays the
        match. `tags` name who seated its sides (owner key hashes, client addresses);
        `spectacle`: two built-in bots; `ladder`: a ladder match; `rank` and `arrival`
        as its room's card keeps them (None: taken here, now). A match whose waiter is
        cancelled leaves the queue."""
        async with self._changed:
            entry = Waiting(
                match_id,
                tags,
                self._rank(tags) if rank is None else rank,
                next(self._arrivals) if arrival is None else arrival,
                spectacle,
                ladder,
            )
            self._waiting.append(entry)
            self._changed.notify_all()
            try:
                await self._changed.wait_for(lambda: self._may_start(entry))
            except BaseException:
                self._waiting.remove(entry)
                self._changed.notify_all()
                raise
            self._waiting.remove(entry)
            self._playing[match_id] = entry
            self._changed.notify_all()
        try:
            yield
        finally:
            async with self._changed:
                self._playing.pop(match_id, None)
                self._changed.notify_all()
