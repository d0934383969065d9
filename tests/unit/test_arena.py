"""A quick smoke run of the bot arena on small dictionaries (no timing asserted)."""

from __future__ import annotations

import argparse
import io
import json
import math
import random
from contextlib import redirect_stdout

from noitu.domain.noitu.lexicon import Lexicon
from noitu.entrypoints import arena
from support.dictionaries import chain_dictionary

SYLLABLES = [c + v for c in "bcdghklmnprstv" for v in "aeu"]


def small_lexicon(seed: int = 3, syllables: int = 14, words: int = 70) -> Lexicon:
    rng = random.Random(seed)
    chosen = rng.sample(SYLLABLES, syllables)
    found: set[str] = set()
    while len(found) < words:
        found.add(f"{rng.choice(chosen)} {rng.choice(chosen)}")
    return Lexicon.from_lines(sorted(found), "small")


def test_a_handful_of_games() -> None:
    lexicon = small_lexicon()
    records = arena.run_arena(lexicon, "hard", "medium", 8, seed=4, progress=False)
    assert len(records) == 8
    assert [r.a_first for r in records] == [True, False] * 4
    # The two games of a pair share their opening.
    assert all(records[i].opening == records[i + 1].opening for i in range(0, 8, 2))
    for record in records:
        assert record.winner in ("a", "b", "draw")
        assert 1 <= record.length <= arena.MAX_CHAIN
        assert record.reply_ns["a"] and record.positions["a"]  # hard is side A
        assert not record.positions["b"]
    report = arena.summarize(records, "hard", "medium", 4)
    overall = report["overall"]
    assert overall["games"] == 8
    assert sum(overall[k]["count"] for k in ("a_wins", "b_wins", "draws")) == 8
    assert report["a_moved_first"]["games"] == report["b_moved_first"]["games"] == 4
    split = report["opening_offers_win"]["games"] + report["opening_offers_no_win"]["games"]
    assert split == 8
    assert "hard" in arena.format_report(report)


def test_the_same_seed_plays_the_same_games() -> None:
    lexicon = small_lexicon(5)
    first = arena.run_arena(lexicon, "medium", "easy", 6, seed=2, progress=False)
    again = arena.run_arena(lexicon, "medium", "easy", 6, seed=2, progress=False)
    assert [(r.winner, r.length, r.opening) for r in first] == [
        (r.winner, r.length, r.opening) for r in again
    ]


def test_a_long_enough_chain_is_a_draw() -> None:
    line = Lexicon.from_lines(chain_dictionary(40).splitlines(), "line")
    records = arena.run_arena(line, "easy", "easy", 2, seed=1, max_chain=10, progress=False)
    assert [r.winner for r in records] == ["draw", "draw"]
    assert [r.length for r in records] == [10, 10]


def test_a_side_with_no_word_loses() -> None:
    # "ca da" opens (the best connected); "da xo" then leaves the other side stuck.
    lexicon = Lexicon.from_lines(["ca da", "da xo"], "tiny")
    records = arena.run_arena(lexicon, "medium", "easy", 2, seed=1, progress=False)
    assert [r.winner for r in records] == ["a", "b"]  # the first mover wins at once
    assert all(r.opening_offers_win and r.length == 2 for r in records)


def test_wilson_interval() -> None:
    low, high = arena.wilson(5, 10)
    assert math.isclose(low, 0.2366, abs_tol=1e-3) and math.isclose(high, 0.7634, abs_tol=1e-3)
    assert arena.wilson(0, 10)[0] == 0.0 and math.isclose(arena.wilson(10, 10)[1], 1.0)


def test_the_command_prints_json(tmp_path) -> None:
    path = tmp_path / "dictionary.txt"
    path.write_text("\n".join(small_lexicon(7).words) + "\n", encoding="utf-8")
    parser = argparse.ArgumentParser()
    arena.add_arguments(parser)
    args = parser.parse_args(
        ["--a", "hard", "--b", "easy", "--games", "4", "--dictionary", str(path), "--json", "--quiet"]
    )
    out = io.StringIO()
    with redirect_stdout(out):
        arena.main(args)
    report = json.loads(out.getvalue())
    assert report["overall"]["games"] == 4 and report["a"] == "hard"
