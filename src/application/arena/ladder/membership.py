"""Who is on the ladder (B8 "Entry"): the built-ins from the start, then the ranked
uploaded bots. What the ladder use cases share about members."""

from __future__ import annotations

from noitu.application.arena.ladder.ports import BuiltinRoster, LadderMembers
from noitu.domain.arena.ladder.members import Member, founding_members


async def every_member(roster: BuiltinRoster, members: LadderMembers) -> list[Member]:
    """The built-ins in their listed order, then the ranked bots in ranking order."""
    return [*founding_members(roster.names()), *await members.members()]
