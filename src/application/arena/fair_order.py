"""The fair order of spec B10: one rule for every line that waits for the machines.

Owner keys are free and client addresses cheap, so whoever waits comes with its tags
(the owner keys and addresses it counts for, `who`) and, when it starts to wait, takes
a rank: how many others sharing one of its tags are running or waiting then (the most
over its tags). The line is ordered by rank, then by arrival: one per owner and per
address ahead of others', the second behind all of theirs, and so on — a client who
queues many at once, under many keys from one address, has its second wait behind a
person who came later. A spectacle (two built-in bots) waits behind everything else but
the ladder's matches, which only fill what is idle (B8): none of them starts while a
person's waits.

The lines that follow it: one machine's match queue (`match_queue.py`) and build queue
(`build_queue.py`); on several machines (B9) the rooms waiting for a worker
(`rooms/board_rooms.py`: their order and `queuePlace`) and the SAQ queues the workers take
matches and builds from (`adapters/arena/fair_redis_queue.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

from noitu.domain.arena.room import who

__all__ = ["Waiting", "in_fair_order", "rank_among", "who"]


def rank_among(tags: frozenset[str], others: Iterable[frozenset[str]]) -> int:
    """The rank of something of `tags` that starts to wait while `others` (the tags of
    each one running or waiting) are there: how many of them share one of its tags, the
    most over its tags."""
    if not tags:
        return 0
    counts = dict.fromkeys(tags, 0)
    for other in others:
        for tag in tags & other:
            counts[tag] += 1
    return max(counts.values())


@dataclass(frozen=True, slots=True)
class Waiting:
    """One in a line: its `key` (a match's id, a room's code, a job's key), its tags,
    its rank and arrival (any increasing number: a counter, a time in ms)."""

    key: str
    tags: frozenset[str]
    rank: int
    arrival: int
    spectacle: bool = False
    ladder: bool = False

    @property
    def order(self) -> tuple[bool, bool, int, int, str]:
        """What the line is sorted by: ladder matches last, then spectacles, then by
        rank, then by arrival (then by key, so that two lines agree on a tie)."""
        return (self.ladder, self.spectacle, self.rank, self.arrival, self.key)


W = TypeVar("W", bound=Waiting)


def in_fair_order(line: Iterable[W]) -> list[W]:
    """The line in the order it goes: first the next to start."""
    return sorted(line, key=lambda waiting: waiting.order)
