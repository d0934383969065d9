"""What the ladder keeps, split by capability (spec B8). Every store hands out values;
a change that depends on what is stored (`update`, `replace`, `close`) is atomic in the
store, so two instances recording the two matches of a pairing never lose a count.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from noitu.application.arena.jobs import MatchOutcome
from noitu.application.arena.ports import Language
from noitu.application.arena.records import BotRecord
from noitu.domain.arena.ladder.members import Member
from noitu.domain.arena.ladder.pairing import Pairing
from noitu.domain.arena.ladder.results import LadderResult, ResultKey
from noitu.domain.arena.ladder.standings import Folded, Standing, StandingPoint, Standings
from noitu.domain.arena.room import Room


class LadderResults(Protocol):
    """The rated ladder matches, the whole history the ratings are a function of. A
    result is stored by `LadderStandings.replace`, with the ratings it moves."""

    async def after(self, key: ResultKey | None) -> list[LadderResult]:
        """The results after `key` (all of them for None), in their order: end time,
        then match id."""
        ...

    async def rated(self, match_ids: Collection[str]) -> set[str]:
        """Which of `match_ids` are stored (were rated)."""
        ...


class Written(Enum):
    """What `LadderStandings.replace` did."""

    WRITTEN = "written"
    #: Nothing written: the stored standings are no longer through `expected`.
    MOVED = "moved"
    #: Nothing written: the result to add is stored already.
    KNOWN = "known"


class LadderStandings(Protocol):
    """The ratings as of a point of the history (what the table shows), and each
    bot's standing after each of its results (its points, B13: kept as computed)."""

    async def load(self, bots: Collection[str] | None = None) -> Standings:
        """The standings of every bot (None) or of `bots` only, and the key they are
        folded through, in one read."""
        ...

    async def load_before(self, key: ResultKey, bots: Collection[str]) -> Standings:
        """The standings of `bots` as they were before the result of `key` was folded
        in (each one's last point before it), through the last result before it."""
        ...

    async def replace(
        self, folded: Folded, *, expected: ResultKey | None, adding: LadderResult | None = None
    ) -> Written:
        """In one transaction, only if the stored standings are still through
        `expected`: store `adding` (a new result, KNOWN if its match is stored), drop
        every point after `folded.since` (every point and standing for None), keep
        `folded.points` and write the standing of each bot they name."""
        ...


class LadderHistory(Protocol):
    """Each bot's rating over time, as the ladder kept it."""

    async def points(
        self, bot: str, before: ResultKey | None, limit: int
    ) -> list[StandingPoint]:
        """`bot`'s points before `before` (from its newest for None), newest first, at
        most `limit`."""
        ...


@dataclass(frozen=True, slots=True)
class TableEntry:
    """A row of the table as stored: its rank, the member (a built-in's founding
    member), its standing, and an uploaded bot's name and language (None for a
    built-in: the roster names it)."""

    rank: int
    member: Member
    standing: Standing
    name: str | None = None
    language: Language | None = None


class LadderListing(Protocol):
    """The table as its pages read it: the built-ins (`builtins`, in their listed
    order) and the ranked uploaded bots that still exist, in the domain's order
    (`ladder_table`), each read one statement whatever the number of rows."""

    async def page(self, builtins: Sequence[str], after: int, limit: int) -> list[TableEntry]:
        """The rows ranked after `after` (0: from the top), at most `limit`."""
        ...

    async def place(self, bot: str, builtins: Sequence[str]) -> TableEntry | None:
        """`bot`'s row, None when it is not on the table."""
        ...

    async def existing(self, bots: Collection[str]) -> set[str]:
        """Which of `bots` (uploaded bots' ids) are still stored."""
        ...


class LadderMembers(Protocol):
    """The ranked uploaded bots (the built-ins are members without being stored)."""

    async def members(self) -> list[Member]:
        """Every ranked bot, in the order they were ranked."""
        ...

    async def get(self, bot: str) -> Member | None: ...

    async def rank(self, member: Member, *, max_per_owner: int) -> bool:
        """Add `member`, unless its owner has `max_per_owner` ranked bots already
        (False). Ranking a ranked bot changes nothing and answers True."""
        ...

    async def unrank(self, bot: str) -> bool:
        """False when the bot was not ranked."""
        ...

    async def update(self, bot: str, change: Callable[[Member], Member]) -> Member | None:
        """Apply `change` to the stored member atomically; None when it is not ranked."""
        ...


class LadderPairings(Protocol):
    """Pairings being played, and each bot's previous one."""

    async def live(self) -> list[Pairing]: ...

    async def open(self, pairing: Pairing) -> bool:
        """Start `pairing`; False (nothing stored) when one of its bots is in a live
        pairing already: a bot is in at most one pairing at a time."""
        ...

    async def update(self, pairing_id: str, change: Callable[[Pairing], Pairing]) -> Pairing | None:
        """Apply `change` to a live pairing atomically; None when none has that id."""
        ...

    async def close(self, pairing_id: str, replay: Pairing | None = None) -> None:
        """End a live pairing; in the same write start `replay`, the same two bots'
        pairing played again, so no other pairing can take them in between."""
        ...

    async def previous_opponents(self) -> Mapping[str, str]:
        """Each bot's opponent in the last pairing it finished."""
        ...

    async def end_live(self, instance: str | None) -> int:
        """Drop every live pairing `instance` plays (every live pairing for None): no
        replay, each bot's previous opponent left as it was, its bots free at once; how
        many."""
        ...


class LadderLease(Protocol):
    """B8: exactly one scheduler at a time, across instances and workers (a database
    row lease or a Redis lock). A holder that dies loses it after `ttl_ms`."""

    async def acquire(self, holder: str, now_ms: int, ttl_ms: int) -> bool: ...

    async def release(self, holder: str) -> None: ...


class LadderBots(Protocol):
    """The uploaded bots as the ladder needs them (the arena's bot catalogue has these
    two methods with these signatures)."""

    async def get_bot(self, bot_id: str) -> BotRecord | None: ...

    async def set_public(self, bot_id: str, owner: str, public: bool) -> bool: ...


class BuiltinRoster(Protocol):
    """The built-in bots' names, in their listed order, and each one's language (the
    arena's built-in bots)."""

    def names(self) -> tuple[str, ...]: ...

    def language(self, name: str) -> Language: ...


class WaitingLadderMatches(Protocol):
    async def cancel_waiting(self, bot: str) -> int:
        """End every ladder match of `bot` submitted and not started (waiting for a
        slot or for a worker): it ends unplayed, and is not rated; how many."""
        ...


class LadderSlots(WaitingLadderMatches, Protocol):
    """The match slots the ladder fills when nobody else wants them (B8 "Scheduling"):
    this process's match queue, or the workers' slots (B9)."""

    async def idle_slot(self, in_flight: int) -> bool:
        """Whether a ladder match may be submitted now, `in_flight` of them submitted
        and not archived yet: rooms always go first."""
        ...

    def on_change(self, wake: Callable[[], None]) -> None:
        """Call `wake` when a slot may have become idle (or never: the driver's tick)."""
        ...

    def off_change(self, wake: Callable[[], None]) -> None: ...


class LadderMatchJobs(Protocol):
    """Where the ladder hands its matches (issue 31): `PlayMatch` itself on one
    machine, the workers' queue on several (B9)."""

    async def __call__(self, spec: Room) -> MatchOutcome:
        """Play the match and answer how it went; `Busy` when its room code is taken
        (nothing left behind); what the stores raise when it could not be recorded."""
        ...
