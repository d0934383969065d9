"""PlaySeries (`noitu arena match A B --games N`): which seed and side each game gets,
and what the games add up to for each bot."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from noitu.application.arena.play_series import PlaySeries, SeriesBot, SeriesCommand, percentile
from noitu.application.arena.ports import Artefact, Language
from noitu.application.arena.replay import SeatKind, received_event
from noitu.application.arena.run_match import MatchOutcome
from noitu.domain.arena.board import Side
from noitu.domain.arena.failure import FailureCode
from noitu.domain.arena.match import EndReason, Failure, Result
from noitu.entrypoints.cli.arena_view import comparison_line

A = SeriesBot("a.py", SeatKind.UPLOAD, Artefact(Language.PYTHON, Path("/a")))
B = SeriesBot("random", SeatKind.BUILTIN, Artefact(Language.PYTHON, Path("/b")))


class Matches:
    """A match runner where P1 wins by base capture, except on seed 11, where the bot
    `a.py` fails on turn 3; `a.py` replies in 10 ms, the other bot in 1 ms. It records
    the games it played and how many ran at once."""

    def __init__(self) -> None:
        self.played: list[tuple[int, str, str]] = []
        self.running = 0
        self.most = 0

    async def __call__(self, command, events, stderr=None) -> MatchOutcome:
        p1, p2 = (seat.player for seat in command.seats)
        self.played.append((command.seed, p1.name, p2.name))
        self.running += 1
        self.most = max(self.most, self.running)
        await asyncio.sleep(0)
        for player in (p1, p2):
            events.record(received_event(player.side, b"{}", 10 if player.name == "a.py" else 1))
        self.running -= 1
        if command.seed == 11:
            a_side = p1.side if p1.name == "a.py" else p2.side
            failure = Failure(a_side, FailureCode.TIMEOUT, "Bot không trả lời trong 2 giây.")
            return MatchOutcome(Result(a_side.other, EndReason.BOT_FAILED, 3, failure), (b"", b""))
        return MatchOutcome(Result(Side.P1, EndReason.BASE_CAPTURED, 40), (b"", b""))


async def test_swapped_games_play_each_seed_from_both_sides_and_count_per_bot_and_side():
    matches = Matches()
    finished = []
    command = SeriesCommand((A, B), games=5, seed=10, swap_sides=True, jobs=2)
    series = await PlaySeries(matches)(command, on_game=finished.append)
    assert sorted(matches.played) == [
        (10, "a.py", "random"), (10, "random", "a.py"),
        (11, "a.py", "random"), (11, "random", "a.py"),
        (12, "a.py", "random"),
    ]
    assert matches.most == 2 and len(finished) == 5
    assert [g.game.number for g in series.games] == [1, 2, 3, 4, 5]
    summary = series.to_json()
    assert (summary["games"], summary["seed"], summary["swapSides"]) == (5, 10, True)
    a, b = summary["bots"]
    # a.py: wins seeds 10 and 12 as P1, loses seed 10 as P2, fails both games of seed 11.
    assert (a["name"], a["games"], a["wins"], a["draws"], a["losses"]) == ("a.py", 5, 2, 0, 3)
    assert a["asP1"] == {"games": 3, "wins": 2, "draws": 0, "losses": 1}
    assert a["asP2"] == {"games": 2, "wins": 0, "draws": 0, "losses": 2}
    assert a["reasons"]["loss"] == {"BASE_CAPTURED": 1, "BOT_FAILED": 2}
    assert a["replyMs"] == {"count": 5, "p50": 10, "p99": 10, "max": 10}
    assert [(f["game"], f["seed"], f["side"], f["code"]) for f in a["failures"]] == [
        (3, 11, "P1", "TIMEOUT"), (4, 11, "P2", "TIMEOUT"),
    ]
    assert (b["wins"], b["losses"], b["failures"]) == (3, 2, [])
    assert b["asP1"] == {"games": 2, "wins": 2, "draws": 0, "losses": 0}
    # A against B, judged as spec B11's version check: 2 of 5 says nothing yet.
    assert summary["comparison"]["rate"] == 0.4
    assert summary["comparison"]["verdict"] == "unclear"
    line = comparison_line(series, ("a.py", "random"))
    assert line.startswith("a.py so với random: 2 thắng, 0 hoà, 3 thua — 40% (")
    assert line.endswith(": chưa rõ (cần từ 10 ván)")


async def test_a_series_says_whether_a_is_better_than_b_by_the_version_checks_interval():
    """P1 wins every game but seed 11's: without swapping sides a.py is always P1."""
    series = await PlaySeries(Matches())(SeriesCommand((A, B), games=12, seed=20))
    assert series.to_json()["comparison"]["verdict"] == "better"
    assert comparison_line(series, ("new.py", "old.py")) == (
        "new.py so với old.py: 12 thắng, 0 hoà, 0 thua — 100% (76–100%): tốt hơn"
    )
    # Sides swapped, P1's win is each bot's half: even after 12 games.
    swapped = await PlaySeries(Matches())(SeriesCommand((A, B), 12, seed=20, swap_sides=True))
    assert comparison_line(swapped, ("new.py", "old.py")) == (
        "new.py so với old.py: 6 thắng, 0 hoà, 6 thua — 50% (25–75%): chưa rõ"
    )


async def test_without_swapping_a_plays_p1_on_consecutive_seeds_one_at_a_time():
    matches = Matches()
    await PlaySeries(matches)(SeriesCommand((A, B), games=3, seed=0))
    assert matches.played == [(0, "a.py", "random"), (1, "a.py", "random"), (2, "a.py", "random")]
    assert matches.most == 1


def test_percentiles_are_nearest_rank():
    values = list(range(1, 101))
    assert (percentile(values, 0.5), percentile(values, 0.99), percentile([7], 0.99)) == (50, 99, 7)
    assert percentile([], 0.5) is None


def test_a_series_needs_a_game():
    with pytest.raises(ValueError):
        asyncio.run(PlaySeries(Matches())(SeriesCommand((A, B), games=0, seed=0)))
