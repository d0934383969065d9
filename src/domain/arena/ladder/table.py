"""B8 "Rating", the table: ranked bots (built-ins included, suspended ones too, marked)
ordered by μ − 3σ; ties: more games, then the older bot. Each row shows μ, σ, μ − 3σ,
games, wins/draws/losses and the last game's time.

(ours) The built-ins are all as old as the server and start equal, so on an empty
ladder the rule above left them in their listed order — `random` at #1. They are listed
weakest first (the order a newcomer's placement meets them), so an exact tie among
built-ins goes to the one listed later: strong > tactical > random until games tell
them apart.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from noitu.domain.arena.ladder.members import Member
from noitu.domain.arena.ladder.standings import Standing, Standings


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


def table_row(rank: int, member: Member, standing: Standing) -> LadderRow:
    """`member`'s row at `rank`, from its standing."""
    rating = standing.rating
    return LadderRow(
        rank=rank, bot=member.bot, builtin=member.builtin, mu=rating.mu,
        sigma=rating.sigma, ordinal=rating.ordinal, games=standing.games,
        wins=standing.wins, draws=standing.draws, losses=standing.losses,
        last_game_ms=standing.last_game_ms, suspended=member.suspended,
    )


def ladder_table(members: Iterable[Member], standings: Standings) -> tuple[LadderRow, ...]:
    """The table of `members`, listed in a fixed order that settles exact ties: the
    built-ins weakest first (a stronger one ranks first), uploaded bots in any order
    (the first listed ranks first). In order: μ − 3σ, higher first; more games; the
    older bot (smaller `created_ms`); the stronger built-in; the first listed. (A store
    that pages the table orders its rows the same way: a contract test compares.)"""
    listed = list(members)
    strength = {member.bot: n for n, member in enumerate(m for m in listed if m.builtin)}

    def key(member: Member) -> tuple[float, int, int, int]:
        standing = standings.of(member.bot)
        return (
            -standing.rating.ordinal, -standing.games, member.created_ms,
            -strength.get(member.bot, 0),
        )

    return tuple(
        table_row(rank, member, standings.of(member.bot))
        for rank, member in enumerate(sorted(listed, key=key), start=1)
    )
