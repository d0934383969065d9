"""What the ladder keeps, split by capability (spec B8). Every store hands out values;
a change that depends on what is stored (`update`, `replace`, `close`) is atomic in the
store, so two instances recording the two matches of a pairing never lose a count.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Protocol

from noitu.application.arena.ports import Language
from noitu.application.arena.records import BotRecord
from noitu.domain.arena.ladder.members import Member
from noitu.domain.arena.ladder.pairing import Pairing
from noitu.domain.arena.ladder.results import LadderResult, ResultKey
from noitu.domain.arena.ladder.standings import Standings


class LadderResults(Protocol):
    """The rated ladder matches, the whole history the ratings are a function of."""

    async def append(self, result: LadderResult) -> bool:
        """Store one rated match; False (and nothing changed) when its match is stored."""
        ...

    async def after(self, key: ResultKey | None) -> list[LadderResult]:
        """The results after `key` (all of them for None), in their order: end time,
        then match id."""
        ...

    async def rated(self, match_ids: Collection[str]) -> set[str]:
        """Which of `match_ids` are stored (were rated)."""
        ...


class LadderStandings(Protocol):
    """The ratings as of a point of the history (what the table shows)."""

    async def load(self) -> Standings: ...

    async def replace(self, standings: Standings, *, expected: ResultKey | None) -> bool:
        """Write every bot's standing in one transaction, only if the stored standings
        are still through `expected`; False (nothing written) otherwise."""
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
