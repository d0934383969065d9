"""B8 "Whole history", as the use cases apply it: the stored standings are the fold of
the stored results up to their `through` key, and a bot's points are where each of its
results left it. A new result is stored together with what it changes, in one write:

- after `through` (the usual case): the results stored meanwhile and not folded in yet,
  if any, and the new one, folded into the standings of the bots they name;
- before it (stored late: two matches ending together, recorded in the other order):
  the standings of the bots whose points come after the new result, taken back to their
  last point before it, and every result from there on folded again — a few results,
  not the whole history, so the live table always equals a rebuild at a small cost.

Every write is a compare-and-set on `through`: when another instance moved the
standings on first, the fold starts again from what it wrote. Nothing here reads more
than the results the fold needs; a read of the table or of a bot never folds.
"""

from __future__ import annotations

from noitu.application.arena.ladder.ports import LadderResults, LadderStandings, Written
from noitu.domain.arena.ladder.results import LadderResult
from noitu.domain.arena.ladder.standings import Folded, Standings, history_from

#: Compare-and-set attempts before giving up (each loses only to a newer write).
ATTEMPTS = 20


class StandingsContended(RuntimeError):
    """The standings kept moving under this writer; the next result catches up."""


async def fold_in(
    results: LadderResults, standings: LadderStandings, result: LadderResult
) -> Folded | None:
    """Store `result` with the standings and points it moves; None when its match was
    stored before (nothing changed)."""
    for _ in range(ATTEMPTS):
        if await results.rated([result.match_id]):
            return None
        through = (await standings.load(())).through
        late = through is not None and result.key <= through
        start = (await standings.load_before(result.key, ())).through if late else through
        stored = await results.after(start)
        if any(one.match_id == result.match_id for one in stored):
            return None  # stored meanwhile by another instance
        tail = sorted([*stored, result], key=lambda one: one.key)
        bots = {bot for one in tail for bot in (one.p1, one.p2)}
        if late:
            base = await standings.load_before(result.key, bots)
        else:
            base = await standings.load(bots)
        if base.through != start:
            continue  # moved between the reads
        folded = base.fold(tail)
        written = await standings.replace(folded, expected=through, adding=result)
        if written is Written.KNOWN:
            return None
        if written is Written.WRITTEN:
            return folded
    raise StandingsContended("the ladder's standings changed on every attempt")


async def rebuild(results: LadderResults, standings: LadderStandings) -> Standings:
    """Every rating and every point again from the whole history, written in one
    transaction."""
    for _ in range(ATTEMPTS):
        current = await standings.load(())
        folded = history_from(await results.after(None))
        if await standings.replace(folded, expected=current.through) is Written.WRITTEN:
            return folded.standings
    raise StandingsContended("the ladder's standings changed on every attempt")
