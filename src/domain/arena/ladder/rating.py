"""B8 "Rating": openskill's Plackett–Luce model with the package's own defaults
(μ₀ = 25, σ₀ = 25/3, β = 25/6, τ = 25/300), two teams of one, a draw as a tie, each
finished match rated on its own. A bot's place on the table is its ordinal, μ − 3σ.
"""

from __future__ import annotations

from dataclasses import dataclass

from openskill.models import PlackettLuce

from noitu.domain.arena.board import Side

#: The model every ladder match is rated with. Its defaults are B8's figures; a unit
#: test reads them back from this object, so an openskill release that changed them
#: fails there rather than silently re-rating the ladder.
MODEL = PlackettLuce()
#: σ's multiple taken off μ for the table's order (B8: μ − 3σ).
ORDINAL_SIGMAS = 3.0


@dataclass(frozen=True, slots=True)
class Rating:
    """A bot's skill as the model believes it: mean μ and uncertainty σ."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """μ − 3σ: what the table orders by (a careful lower bound of the skill)."""
        return self.mu - ORDINAL_SIGMAS * self.sigma


#: Where every bot starts, built-ins included.
FIRST_RATING = Rating(MODEL.mu, MODEL.sigma)


def rate_match(p1: Rating, p2: Rating, winner: Side | None) -> tuple[Rating, Rating]:
    """The two ratings after one match between P1 and P2; `winner` None is a draw."""
    ranks = [0, 0] if winner is None else ([0, 1] if winner is Side.P1 else [1, 0])
    first, second = MODEL.rate(
        [[MODEL.rating(p1.mu, p1.sigma)], [MODEL.rating(p2.mu, p2.sigma)]], ranks=ranks
    )
    return Rating(first[0].mu, first[0].sigma), Rating(second[0].mu, second[0].sigma)
