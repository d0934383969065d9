"""Who is on the ladder (B8 "Entry", "Failures").

Entry: an owner ranks a built bot; at most `MAX_RANKED_PER_OWNER` per owner, suspended
ones included. The built-in bots are members from the start, with no owner, rated like
any bot; the server's own bots are never suspended (nobody could resume them), though a
failure still loses them the match.

Failures: `FAILURES_TO_SUSPEND` failed ladder matches in a row suspend a bot. It stays on
the table with its rating, plays no ladder match, still counts toward its owner's
ranked bots; resuming resets the count. A match the bot did not fail resets it too; a
match that is not rated (the server's fault) changes nothing.

Fair play (B13): two bots of one owner key, or ranked from one client address, are
`related` and never meet on the ladder, so one cannot throw matches to the other.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, replace

MAX_RANKED_PER_OWNER = 3
FAILURES_TO_SUSPEND = 3


@dataclass(frozen=True, slots=True)
class Member:
    """A ranked bot. `bot` is an uploaded bot's id or a built-in's name; `created_ms`
    is when the bot was made (the older bot wins a tie on the table; built-ins are 0,
    from the start); `placement_step` is the index of its next placement opponent, None
    once placement is over (B8 "Scheduling")."""

    bot: str
    owner: str | None  # None for a built-in bot
    created_ms: int
    failures_in_row: int = 0
    suspended: bool = False
    placement_step: int | None = None
    #: Who ranked it, as a digest of the client's address (`address_digest`); None for
    #: a built-in, or a bot ranked before the ladder kept it.
    ranked_from: str | None = None

    @property
    def builtin(self) -> bool:
        return self.owner is None

    def after_match(self, failed: bool) -> Member:
        """The member after a rated ladder match it failed or not: three failures in a
        row suspend an uploaded bot."""
        failures = self.failures_in_row + 1 if failed else 0
        suspend = self.suspended or (not self.builtin and failures >= FAILURES_TO_SUSPEND)
        return replace(self, failures_in_row=failures, suspended=suspend)

    @property
    def just_suspended(self) -> bool:
        """Suspended by the failure `after_match` just counted (the third in a row)."""
        return self.suspended and self.failures_in_row == FAILURES_TO_SUSPEND

    def resumed(self) -> Member:
        """B8: the owner resumes a suspended bot, which resets the count."""
        return replace(self, failures_in_row=0, suspended=False)


def related(one: Member, other: Member) -> bool:
    """Fair play (B13): one owner, or ranked from one client address."""
    return (one.owner is not None and one.owner == other.owner) or (
        one.ranked_from is not None and one.ranked_from == other.ranked_from
    )


def address_digest(address: str) -> str | None:
    """What a member keeps of the address that ranked it: enough to tell two equal, not
    the address itself (a digest; not anonymous: IPv4's few billion addresses can all
    be tried). None for no address (not a network client)."""
    if not address:
        return None
    return hashlib.sha256(b"noitu ladder address\0" + address.encode()).hexdigest()[:32]


def founding_members(builtin_names: Iterable[str]) -> tuple[Member, ...]:
    """The built-in bots, members from the start (in the order they are listed)."""
    return tuple(Member(bot=name, owner=None, created_ms=0) for name in builtin_names)
