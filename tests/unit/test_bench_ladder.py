"""The ladder benchmark's pure parts (`noitu bench ladder`): the handicapped tactical
program, Kendall's τ, and the checkpoints it reads off the table (no match is played)."""

from __future__ import annotations

import random

import pytest

from noitu.adapters.arena.builtin import BuiltinBots
from noitu.bench.arena_ladder import (
    MAIN_GUARD,
    Checkpoints,
    handicapped_source,
    kendall_tau,
    known_order,
    ranked_before,
    summary,
)

LEGAL = [{"move": [0, 1]}, {"move": [2, 3]}, {"move": [4, 5]}]


def loaded(p: float, seed: int) -> tuple[dict, list[str]]:
    """The handicapped program loaded as a module (its main not run), tactical's own
    choice replaced by one that notes each call."""
    namespace: dict = {"__name__": "handicapped"}
    program = handicapped_source(BuiltinBots.source("tactical").read_text(), p)
    exec(compile(program, "bot.py", "exec"), namespace)  # noqa: S102 - the bench's own program
    calls: list[str] = []

    def tactical_choice(request: dict, cpu: float, wall: float) -> dict:
        calls.append("tactical")
        return request["legalActions"][0]

    namespace["_TACTICAL_CHOOSE"] = tactical_choice
    namespace["_HANDICAP_RNG"] = random.Random(seed)
    return namespace, calls


def test_no_handicap_is_tactical_every_turn() -> None:
    bot, calls = loaded(0.0, 1)
    for _ in range(50):
        assert bot["choose"]({"legalActions": LEGAL}, 0.1, 0.2) == LEGAL[0]
    assert len(calls) == 50


def test_a_full_handicap_plays_uniformly_random_legal_actions() -> None:
    bot, calls = loaded(1.0, 2)
    chosen = [bot["choose"]({"legalActions": LEGAL}, 0.1, 0.2) for _ in range(300)]
    assert calls == []
    assert all(action in LEGAL for action in chosen)
    assert all(60 <= chosen.count(action) <= 140 for action in LEGAL)


def test_a_handicap_of_a_third_is_random_about_a_third_of_the_turns() -> None:
    bot, calls = loaded(1 / 3, 3)
    for _ in range(600):
        bot["choose"]({"legalActions": LEGAL}, 0.1, 0.2)
    assert 340 <= len(calls) <= 460


def test_the_program_keeps_tactical_and_still_ends_with_its_main() -> None:
    tactical = BuiltinBots.source("tactical").read_text()
    program = handicapped_source(tactical, 0.3)
    assert program.startswith(tactical[: -len(MAIN_GUARD)])
    assert program.endswith(MAIN_GUARD)
    assert "_HANDICAP = 0.3" in program


@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_a_handicap_is_a_probability(p: float) -> None:
    with pytest.raises(ValueError):
        handicapped_source(MAIN_GUARD, p)


def test_a_program_without_the_main_guard_is_refused() -> None:
    with pytest.raises(ValueError):
        handicapped_source("print('hi')\n", 0.2)


def test_the_known_order_runs_from_strong_to_random_by_handicap() -> None:
    assert known_order([0.5, 0.1, 0.25]) == ["strong", "tactical", "t0.1", "t0.25", "t0.5", "random"]


def test_kendall_tau() -> None:
    known = ["a", "b", "c", "d"]
    assert kendall_tau(known, known) == 1.0
    assert kendall_tau(list(reversed(known)), known) == -1.0
    assert kendall_tau(["b", "a", "c", "d"], known) == pytest.approx(4 / 6)  # one pair of six
    with pytest.raises(ValueError):
        kendall_tau(["a", "b", "c"], known)
    with pytest.raises(ValueError):
        kendall_tau(["a", "a", "c", "d"], known)


def test_ranked_before() -> None:
    order = ["strong", "t0.1", "tactical", "random"]
    assert ranked_before(order, "strong", "tactical", "random")
    assert not ranked_before(order, "tactical", "strong", "random")


def test_the_checkpoints_follow_the_table() -> None:
    checks = Checkpoints(pairings=3, trio_at=2, late="late", late_after=2, late_at=1)
    rows = [("strong", 4), ("random", 4), ("tactical", 2), ("x", 4)]
    checks.see(rows)
    assert checks.trio_order is None  # tactical has played one pairing
    assert not checks.late_due(rows)
    rows = [("strong", 4), ("tactical", 4), ("random", 5), ("x", 6)]
    checks.see(rows)
    assert checks.trio_order == ["strong", "tactical", "random", "x"]
    assert checks.late_due(rows)
    checks.late_joined = True
    assert not checks.late_due(rows)
    checks.see([("strong", 6), ("late", 2), ("tactical", 6), ("random", 8), ("x", 6)])
    assert checks.late_rank_early == 2
    assert not checks.done  # the late bot has played one pairing of three
    final = [("strong", 9), ("tactical", 8), ("x", 7), ("late", 6), ("random", 9)]
    checks.see(final)
    assert checks.done
    report = summary(checks, ["strong", "tactical", "late", "x", "random"])
    assert report["trio_ok"] is True
    assert report["late_rank_early"] == 2 and report["late_rank_final"] == 4
    assert report["kendall_tau"] == pytest.approx(8 / 10)
