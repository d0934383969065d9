"""Version check (spec B11): is a bot's new version better than its previous one?

The new version plays the previous one; its score rate counts a win 1, a draw ½ and a
loss 0. The check stops as soon as `MIN_MATCHES` or more were played and the 95%
Wilson score interval of that rate lies wholly above ½ (better) or wholly below
(worse); after `MAX_MATCHES` it stops undecided. `noitu arena match new old --games N`
judges its N games by the same interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

MIN_MATCHES = 10
MAX_MATCHES = 40
#: The two-sided 95% quantile of the standard normal distribution.
Z_95 = 1.959963984540054


class VersionVerdict(StrEnum):
    BETTER = "better"
    WORSE = "worse"
    UNCLEAR = "unclear"  # the cap was reached, or too few matches to say


#: What the author reads (spec B11's words).
VERDICT_WORDS = {VersionVerdict.BETTER: "tốt hơn", VersionVerdict.WORSE: "kém hơn", VersionVerdict.UNCLEAR: "chưa rõ"}


@dataclass(frozen=True, slots=True)
class Score:
    """One side's results against the other."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    def __post_init__(self) -> None:
        if min(self.wins, self.draws, self.losses) < 0:
            raise ValueError("a score counts matches: none is negative")

    @property
    def matches(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def rate(self) -> float:
        """Wins plus half the draws, over the matches (½ before any match)."""
        if not self.matches:
            return 0.5
        return (self.wins + self.draws / 2) / self.matches

    def interval(self, z: float = Z_95) -> tuple[float, float]:
        """The Wilson score interval of `rate` ((0, 1) before any match)."""
        n = self.matches
        if not n:
            return 0.0, 1.0
        p = self.rate
        spread = z * z / n
        centre = (p + spread / 2) / (1 + spread)
        half = z * math.sqrt(p * (1 - p) / n + spread / (4 * n)) / (1 + spread)
        return max(centre - half, 0.0), min(centre + half, 1.0)

    def added(self, outcome: str) -> Score:
        """This score and one more match: "win", "draw" or "loss"."""
        if outcome == "win":
            return Score(self.wins + 1, self.draws, self.losses)
        if outcome == "draw":
            return Score(self.wins, self.draws + 1, self.losses)
        if outcome == "loss":
            return Score(self.wins, self.draws, self.losses + 1)
        raise ValueError(f"not an outcome: {outcome!r}")


def decided(score: Score) -> VersionVerdict | None:
    """The check's verdict once it stops; None while it goes on."""
    if score.matches >= MIN_MATCHES:
        low, high = score.interval()
        if low > 0.5:
            return VersionVerdict.BETTER
        if high < 0.5:
            return VersionVerdict.WORSE
    return VersionVerdict.UNCLEAR if score.matches >= MAX_MATCHES else None


def judged(score: Score) -> VersionVerdict:
    """The verdict on a fixed number of matches (a local series): better or worse when
    at least `MIN_MATCHES` were played and the interval is wholly on one side of ½."""
    return decided(score) or VersionVerdict.UNCLEAR


def score_line(score: Score) -> str:
    """"14 thắng, 2 hoà, 6 thua — 68% (47–84%)" (spec B11)."""
    low, high = score.interval()
    return (
        f"{score.wins} thắng, {score.draws} hoà, {score.losses} thua — "
        f"{_percent(score.rate)}% ({_percent(low)}–{_percent(high)}%)"
    )


def _percent(fraction: float) -> int:
    return math.floor(fraction * 100 + 0.5)
