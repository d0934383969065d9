"""B8 "Whole history", as the use cases apply it: the stored standings are the fold of
the stored results up to their `through` key. A new result after that key is folded in;
one before it (stored late, e.g. after an outage) refolds the whole history, so
the live table always equals a rebuild. Every write is a compare-and-set on `through`:
when another instance moved the standings on first, the fold starts again from what it
wrote.
"""

from __future__ import annotations

from noitu.application.arena.ladder.ports import LadderResults, LadderStandings
from noitu.domain.arena.ladder.results import ResultKey
from noitu.domain.arena.ladder.standings import Standings, standings_from

#: Compare-and-set attempts before giving up (each loses only to a newer write).
ATTEMPTS = 20


class StandingsContended(RuntimeError):
    """The standings kept moving under this writer; the next result catches up."""


async def catch_up(
    results: LadderResults, standings: LadderStandings, stored: ResultKey | None = None
) -> Standings:
    """The standings with every stored result folded in; `stored` is the key of a
    result just stored (a rebuild when it sorts before the standings' last key)."""
    for _ in range(ATTEMPTS):
        current = await standings.load()
        late = stored is not None and current.through is not None and stored < current.through
        if late:
            updated = standings_from(await results.after(None))
        else:
            tail = await results.after(current.through)
            if not tail:
                return current  # another writer folded it in already
            updated = current.after_all(tail)
        if await standings.replace(updated, expected=current.through):
            return updated
    raise StandingsContended("the ladder's standings changed on every attempt")


async def rebuild(results: LadderResults, standings: LadderStandings) -> Standings:
    """Every rating again from the whole history, written in one transaction."""
    for _ in range(ATTEMPTS):
        current = await standings.load()
        updated = standings_from(await results.after(None))
        if await standings.replace(updated, expected=current.through):
            return updated
    raise StandingsContended("the ladder's standings changed on every attempt")
