"""B8 "Whole history": each bot's standing is a pure function of the stored ladder
results in their order (end time, then match id). The live ladder folds each new result
into the stored standings; a rebuild folds every result from the start. Both go through
`Standings.fold`, so they agree.

A fold also says where each result left its two bots (a `StandingPoint` each): B13's
"rating history kept as it is computed", so a bot's chart is read, never recomputed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from noitu.domain.arena.board import Side
from noitu.domain.arena.ladder.rating import FIRST_RATING, Rating, rate_match
from noitu.domain.arena.ladder.results import LadderResult, ResultKey


class OutOfOrder(ValueError):
    """A result that sorts before one already folded in: refold the whole history."""


@dataclass(frozen=True, slots=True)
class Standing:
    """One bot's rating and record on the ladder."""

    rating: Rating = FIRST_RATING
    wins: int = 0
    draws: int = 0
    losses: int = 0
    last_game_ms: int | None = None

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def after(self, rating: Rating, my_side: Side, winner: Side | None, at_ms: int) -> Standing:
        return replace(
            self,
            rating=rating,
            wins=self.wins + (winner is my_side),
            draws=self.draws + (winner is None),
            losses=self.losses + (winner is not None and winner is not my_side),
            last_game_ms=at_ms,
        )


NEW_STANDING = Standing()


@dataclass(frozen=True, slots=True)
class StandingPoint:
    """`bot`'s standing right after the result of `key` (one of its rated matches)."""

    bot: str
    key: ResultKey
    standing: Standing


@dataclass(frozen=True, slots=True)
class Folded:
    """Standings after results were folded in, the two points each result left, in
    the results' order, and the key the fold started after (`since`; None: the whole
    history from nothing)."""

    standings: Standings
    points: tuple[StandingPoint, ...]
    since: ResultKey | None


@dataclass(frozen=True, slots=True)
class Standings:
    """Every rated bot's standing, and the key of the last result folded in."""

    by_bot: Mapping[str, Standing] = field(default_factory=lambda: MappingProxyType({}))
    through: ResultKey | None = None

    def of(self, bot: str) -> Standing:
        return self.by_bot.get(bot, NEW_STANDING)

    def after(self, result: LadderResult) -> Standings:
        return self.after_all((result,))

    def after_all(self, results: Iterable[LadderResult]) -> Standings:
        """These standings with `results` (in their order) rated one at a time.
        Raises `OutOfOrder` for a result not after the last one folded in."""
        return self.fold(results).standings

    def fold(self, results: Iterable[LadderResult]) -> Folded:
        """`after_all`, with the point each result left for each of its bots. Raises
        `OutOfOrder` for a result not after the last one folded in."""
        by_bot = dict(self.by_bot)
        through = self.through
        points: list[StandingPoint] = []
        for result in results:
            if through is not None and result.key <= through:
                raise OutOfOrder(f"{result.key} is not after {through}")
            key = result.key
            first = by_bot.get(result.p1, NEW_STANDING)
            second = by_bot.get(result.p2, NEW_STANDING)
            rated_p1, rated_p2 = rate_match(first.rating, second.rating, result.winner)
            first = first.after(rated_p1, Side.P1, result.winner, result.ended_ms)
            second = second.after(rated_p2, Side.P2, result.winner, result.ended_ms)
            by_bot[result.p1], by_bot[result.p2] = first, second
            points += (StandingPoint(result.p1, key, first), StandingPoint(result.p2, key, second))
            through = key
        return Folded(Standings(MappingProxyType(by_bot), through), tuple(points), self.through)


def standings_from(results: Iterable[LadderResult]) -> Standings:
    """The whole history rated from nothing, in the results' order (end time, then
    match id) whatever order they come in."""
    return history_from(results).standings


def history_from(results: Iterable[LadderResult]) -> Folded:
    """`standings_from`, with every point of the history."""
    return Standings().fold(sorted(results, key=lambda result: result.key))
