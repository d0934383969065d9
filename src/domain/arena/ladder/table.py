"""B8 "Rating", the table: ranked bots (built-ins included, suspended ones too, marked)
ordered by μ − 3σ; ties: more games, then the older bot. Each row shows μ, σ, μ − 3σ,
games, wins/draws/losses and the last game's time.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from noitu.domain.arena.ladder.members import Member
from noitu.domain.arena.ladder.standings import Standings


@dataclass(frozen=True, slots=True)
class LadderRow:
    rank: int  # from 1
    bot: str
    builtin: bool
    mu: float
    sigma: float
    ordinal: float
    games: int
    wins: int
    draws: int
    losses: int
    last_game_ms: int | None
    suspended: bool


def ladder_table(members: Iterable[Member], standings: Standings) -> tuple[LadderRow, ...]:
    """The table of `members` (listed in a fixed order: it settles exact ties)."""

    def key(member: Member) -> tuple[float, int, int]:
        standing = standings.of(member.bot)
        return (-standing.rating.ordinal, -standing.games, member.created_ms)

    rows = []
    for rank, member in enumerate(sorted(members, key=key), start=1):
        standing = standings.of(member.bot)
        rating = standing.rating
        rows.append(
            LadderRow(
                rank=rank, bot=member.bot, builtin=member.builtin, mu=rating.mu,
                sigma=rating.sigma, ordinal=rating.ordinal, games=standing.games,
                wins=standing.wins, draws=standing.draws, losses=standing.losses,
                last_game_ms=standing.last_game_ms, suspended=member.suspended,
            )
        )
    return tuple(rows)
