"""Spec B11's version check: the Wilson interval of a score rate (draws as ½) and the
rule that stops the check."""

from __future__ import annotations

import pytest

from noitu.domain.arena.ladder.version_check import (
    MAX_MATCHES,
    MIN_MATCHES,
    Score,
    VersionVerdict,
    decided,
    judged,
    score_line,
)


def test_the_specs_example_line() -> None:
    assert score_line(Score(14, 2, 6)) == "14 thắng, 2 hoà, 6 thua — 68% (47–84%)"


def test_the_wilson_interval_by_hand() -> None:
    # p = 15/22, z = 1.96: centre (p + z²/2n) / (1 + z²/n), half-width
    # z·sqrt(p(1 - p)/n + z²/4n²) / (1 + z²/n), worked out on paper.
    low, high = Score(14, 2, 6).interval()
    assert low == pytest.approx(0.4732, abs=5e-4)
    assert high == pytest.approx(0.8364, abs=5e-4)
    # Ten wins out of ten: the interval's well-known lower end, 0.7225, and 1.
    low, high = Score(10, 0, 0).interval()
    assert low == pytest.approx(0.7225, abs=5e-4)
    assert high == pytest.approx(1.0)


def test_a_draw_counts_a_half() -> None:
    assert Score(0, 20, 0).rate == 0.5
    assert Score(5, 10, 5).rate == Score(10, 0, 10).rate == 0.5
    assert Score(3, 2, 0).rate == pytest.approx(0.8)
    # Draws narrow nothing towards a side: all draws never decide, and stop at the cap.
    low, high = Score(0, 20, 0).interval()
    assert low == pytest.approx(1 - high)
    assert decided(Score(0, MAX_MATCHES - 1, 0)) is None
    assert decided(Score(0, MAX_MATCHES, 0)) is VersionVerdict.UNCLEAR


def test_the_check_stops_at_the_first_decisive_interval_from_ten_matches() -> None:
    score = Score()
    for played in range(1, MIN_MATCHES):
        score = score.added("win")
        assert decided(score) is None, played  # never before ten matches
    assert decided(score.added("win")) is VersionVerdict.BETTER
    assert decided(Score(0, 0, MIN_MATCHES)) is VersionVerdict.WORSE
    # 6 to 4 is not enough; 13 to 1 with a draw is.
    assert decided(Score(6, 0, 4)) is None
    assert decided(Score(13, 1, 1)) is VersionVerdict.BETTER


def test_an_even_duel_runs_to_the_cap_and_stays_unclear() -> None:
    score = Score()
    verdicts = []
    for played in range(MAX_MATCHES):
        score = score.added("win" if played % 2 else "loss")
        verdicts.append(decided(score))
    assert verdicts[:-1] == [None] * (MAX_MATCHES - 1)
    assert verdicts[-1] is VersionVerdict.UNCLEAR


def test_a_fixed_series_is_judged_by_the_same_interval() -> None:
    assert judged(Score(9, 0, 0)) is VersionVerdict.UNCLEAR  # fewer than ten games
    assert judged(Score(12, 0, 0)) is VersionVerdict.BETTER
    assert judged(Score(1, 2, 17)) is VersionVerdict.WORSE
    assert judged(Score(30, 0, 30)) is VersionVerdict.UNCLEAR  # past the cap, undecided


def test_bad_scores_are_refused() -> None:
    with pytest.raises(ValueError):
        Score(-1, 0, 0)
    with pytest.raises(ValueError):
        Score().added("tie")
