"""The word bots' self-play tournament (`noitu bench bots`) and the player models against
the levels (`--players`) on small dictionaries: the games follow the rules, pairs share
their opening, the statistics add up (no timing asserted)."""

from __future__ import annotations

import io
import json
import math
import random
from contextlib import redirect_stderr, redirect_stdout

import pytest

from noitu.adapters.noitu.dictionary_file import lexicon_from_lines
from noitu.bench import bots, player_models
from noitu.domain.noitu.bots import BotIndex, make_opponents
from noitu.domain.noitu.chain import Chain, Side
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.opponent import Difficulty
from noitu.domain.noitu.rules import MAX_CHAIN_WORDS, check_word, draw_opening
from noitu.entrypoints import cli
from support.dictionaries import chain_dictionary, random_words


def small_lexicon(seed: int = 3) -> Lexicon:
    return lexicon_from_lines(random_words(seed), "small")


def dense_lexicon() -> Lexicon:
    """Syllables that start 20 words or more: openings are drawn, games run long."""
    return lexicon_from_lines(random_words(1, syllables=24, words=520), "dense")


def replay(lexicon: Lexicon, record: bots.GameRecord) -> Chain:
    """The record's chain played again word by word, each word checked by the rules."""
    chain = Chain(lexicon)
    chain.append(record.words[0], Side.BOT, 0)
    for word in record.words[1:]:
        assert check_word(chain, lexicon.words[word]) == (None, word)
        chain.append(word, Side.PLAYER, 0)
    return chain


@pytest.mark.parametrize("make_lexicon", [small_lexicon, dense_lexicon])
def test_a_handful_of_games_follow_the_rules(make_lexicon) -> None:
    lexicon = make_lexicon()
    records = bots.run_tournament(lexicon, "hard", "medium", 8, seed=4, progress=False)
    assert len(records) == 8
    assert [r.a_first for r in records] == [True, False] * 4
    if lexicon.opening_candidates:
        assert len({r.opening for r in records}) > 1  # each pair draws its own
    # The two games of a pair share their opening, drawn as the server draws it.
    for pair in range(4):
        first, second = records[2 * pair], records[2 * pair + 1]
        assert first.opening == second.opening
        assert first.opening == draw_opening(lexicon, random.Random(4 * 1_000_003 + pair))
    for record in records:
        assert record.words[0] == record.opening
        assert record.length == len(record.words)
        assert 1 <= record.length <= MAX_CHAIN_WORDS
        chain = replay(lexicon, record)
        if record.winner == "draw":
            assert record.length == MAX_CHAIN_WORDS
        else:
            # The side to move had no legal word left, and lost. The opening is word 0;
            # the first mover plays the odd-numbered words.
            assert not chain.has_legal_word()
            first, other = ("a", "b") if record.a_first else ("b", "a")
            to_move = first if record.length % 2 == 1 else other
            assert record.winner != to_move
        # Hard (side A) reports its searches; medium (side B) has none.
        assert len(record.reply_ns["a"]) == len(record.positions["a"]) > 0
        assert all(p >= 1 for p in record.positions["a"])
        assert not record.positions["b"]
    report = bots.summarize(records, "hard", "medium", 4)
    overall = report["overall"]
    assert overall["games"] == 8
    assert sum(overall[k]["count"] for k in ("a_wins", "b_wins", "draws")) == 8
    assert overall["a_wins"]["count"] == sum(r.winner == "a" for r in records)
    assert report["a_moved_first"]["games"] == report["b_moved_first"]["games"] == 4
    split = report["opening_offers_win"]["games"] + report["opening_offers_no_win"]["games"]
    assert split == 8
    assert report["length"]["max"] == max(r.length for r in records)
    assert report["reply_time"]["a"]["replies"] == sum(len(r.reply_ns["a"]) for r in records)
    assert "positions" in report["reply_time"]["a"] and "positions" not in report["reply_time"]["b"]
    text = bots.format_report(report)
    assert "A = hard, B = medium, 8 games" in text


def test_the_same_seed_plays_the_same_games() -> None:
    lexicon = small_lexicon(5)
    first = bots.run_tournament(lexicon, "medium", "easy", 6, seed=2, progress=False)
    again = bots.run_tournament(lexicon, "medium", "easy", 6, seed=2, progress=False)
    other = bots.run_tournament(lexicon, "medium", "easy", 6, seed=3, progress=False)
    assert [(r.winner, r.words) for r in first] == [(r.winner, r.words) for r in again]
    assert [r.words for r in first] != [r.words for r in other]


def test_an_odd_number_of_games_is_made_even() -> None:
    records = bots.run_tournament(small_lexicon(), "easy", "easy", 3, seed=1, progress=False)
    assert len(records) == 4


def test_a_long_enough_chain_is_a_draw() -> None:
    line = lexicon_from_lines(chain_dictionary(40).splitlines(), "line")
    records = bots.run_tournament(line, "easy", "easy", 2, seed=1, max_chain=10, progress=False)
    assert [r.winner for r in records] == ["draw", "draw"]
    assert [r.length for r in records] == [10, 10]


def test_the_default_cap_is_the_rules_chain_cap() -> None:
    line = lexicon_from_lines(chain_dictionary(MAX_CHAIN_WORDS + 20).splitlines(), "line")
    records = bots.run_tournament(line, "easy", "medium", 2, seed=1, progress=False)
    assert [r.winner for r in records] == ["draw", "draw"]
    assert [r.length for r in records] == [MAX_CHAIN_WORDS] * 2


def test_a_side_with_no_word_loses() -> None:
    # "ca da" opens (the best connected); "da xo" then leaves the other side stuck.
    lexicon = lexicon_from_lines(["ca da", "da xo"], "tiny")
    records = bots.run_tournament(lexicon, "medium", "easy", 2, seed=1, progress=False)
    assert [r.winner for r in records] == ["a", "b"]  # the first mover wins at once
    assert all(r.opening_offers_win and r.length == 2 for r in records)


def test_an_illegal_word_is_caught() -> None:
    lexicon = lexicon_from_lines(["ca da", "da xo", "xo ca"], "tiny")

    class Cheater:
        def choose(self, chain: Chain, rng: random.Random) -> int | None:
            return chain.last_word  # the word just played: used, and no link

    with pytest.raises(AssertionError, match="illegal move"):
        bots.play_game(lexicon, Cheater(), Cheater(), index=0, opening_seed=1, game_seed=1,
                       a_first=True)


def test_an_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown policy"):
        bots.run_tournament(small_lexicon(), "brilliant", "easy", 2, progress=False)


def test_wilson_interval() -> None:
    low, high = bots.wilson(5, 10)
    assert math.isclose(low, 0.2366, abs_tol=1e-3) and math.isclose(high, 0.7634, abs_tol=1e-3)
    assert bots.wilson(0, 10)[0] == 0.0 and math.isclose(bots.wilson(10, 10)[1], 1.0)
    assert bots.wilson(0, 0) == (0.0, 1.0)


def test_the_progress_bar_goes_to_its_stream() -> None:
    stream = io.StringIO()
    bots.run_tournament(small_lexicon(), "easy", "easy", 50, seed=1, stream=stream)
    assert "50/50" in stream.getvalue()
    quiet = io.StringIO()
    bots.run_tournament(small_lexicon(), "easy", "easy", 50, seed=1, progress=False, stream=quiet)
    assert quiet.getvalue() == ""


def test_noitu_bench_bots_prints_json(tmp_path) -> None:
    path = tmp_path / "dictionary.txt"
    path.write_text("\n".join(small_lexicon(7).words) + "\n", encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        cli.main([
            "bench", "bots", "--a", "hard", "--b", "easy", "--games", "4", "--seed", "3",
            "--max-chain", "50", "--dictionary", str(path), "--json", "--quiet",
        ])
    report = json.loads(out.getvalue())
    assert report["overall"]["games"] == 4 and (report["a"], report["b"]) == ("hard", "easy")
    assert report["seed"] == 3 and report["length"]["max"] <= 50
    assert err.getvalue() == ""


def test_noitu_bench_bots_refuses_no_games() -> None:
    with pytest.raises(SystemExit, match="--games must be at least 1"):
        cli.main(["bench", "bots", "--games", "0", "--quiet"])


# --- player models against the levels (`--players`) -------------------------------------------


def tiered_lexicon(seed: int = 1) -> Lexicon:
    """The dense dictionary with tiers drawn from a seed: both kinds of word everywhere."""
    rng = random.Random(seed)
    words = random_words(1, syllables=24, words=520)
    lines = [f"{w}\t{rng.choice((1, 1, 2, 3, 4))}" for w in words]
    return lexicon_from_lines(lines, "tiered")


def test_casual_plays_a_random_common_word_and_knows_no_other() -> None:
    lexicon = lexicon_from_lines(["ca da\t1", "da ba\t1", "da me\t2", "da xo\t3"], "tiny")
    casual = player_models.CasualPlayer(BotIndex(lexicon))
    chain = Chain(lexicon)
    chain.append(lexicon.word_ids["ca da"], Side.BOT, 0)
    chosen = {casual.choose(chain, random.Random(seed)) for seed in range(40)}
    assert chosen == {lexicon.word_ids["da ba"], lexicon.word_ids["da me"]}
    chain.append(lexicon.word_ids["da ba"], Side.PLAYER, 0)
    chain.append(lexicon.word_ids["da me"], Side.PLAYER, 0)
    chain.append(lexicon.word_ids["ca da"], Side.BOT, 0)  # "da" to answer again
    assert chain.has_legal_word()  # "da xo", a rare word
    assert casual.choose(chain, random.Random(1)) is None


def test_careful_plays_the_common_word_leaving_the_bot_fewest_replies() -> None:
    lexicon = lexicon_from_lines(
        ["ca da\t1", "da ba\t1", "da me\t2", "da xo\t3", "ba ca\t1", "ba da\t1", "me ca\t1"], "tiny"
    )
    careful = player_models.CarefulPlayer(BotIndex(lexicon))
    chain = Chain(lexicon)
    chain.append(lexicon.word_ids["ca da"], Side.BOT, 0)
    # "da xo" would leave no reply, but it is rare; "da me" leaves one, "da ba" two.
    chosen = {careful.choose(chain, random.Random(s)) for s in range(20)}
    assert chosen == {lexicon.word_ids["da me"]}


def test_player_games_are_played_by_the_server_rules() -> None:
    lexicon = tiered_lexicon()
    found = player_models.run_players(
        lexicon, ["casual", "careful"], ["easy", "medium", "hard"], 8, seed=2, progress=False
    )
    levels = ("easy", "medium", "hard")
    assert list(found) == [(p, lv) for p in ("casual", "careful") for lv in levels]
    opponents = make_opponents(BotIndex(lexicon))
    endings = set()
    for (player, level), records in found.items():
        assert [r.index for r in records] == list(range(8))
        for record in records:
            # The level opened as api/start opens, then the player and the bot alternated.
            seed = 2 * 1_000_003 + record.index
            opening = draw_opening(lexicon, random.Random(f"{seed}/opening"))
            assert record.words[0] == opening
            assert record.by_bot == tuple(i % 2 == 0 for i in range(record.length))
            chain = replay(lexicon, record)
            player_words = [w for w, by_bot in zip(record.words, record.by_bot) if not by_bot]
            assert all(lexicon.tiers[w] <= 2 for w in player_words)
            if record.player_won:
                assert record.end_reason in ("bot_stuck", "max_moves")
                if record.end_reason == "bot_stuck":
                    bot = opponents[Difficulty(level)]
                    assert bot.choose(chain, random.Random(1)) is None
            else:
                # The player knew no common word here.
                assert record.end_reason == "player_stuck" and record.length % 2 == 1
                assert not any(lexicon.tiers[w] <= 2 for w in chain.legal_words())
            endings.add(record.end_reason)
    assert {"bot_stuck", "player_stuck"} <= endings


def test_the_player_table_adds_up() -> None:
    lexicon = tiered_lexicon()
    found = player_models.run_players(
        lexicon, ["casual"], ["easy", "medium"], 20, seed=3, progress=False
    )
    report = player_models.summarize_players(lexicon, found, 3, show=2)
    assert report["games"] == 20 and [c["level"] for c in report["cells"]] == ["easy", "medium"]
    for cell, records in zip(report["cells"], found.values()):
        wins = sum(r.player_won for r in records)
        assert cell["player_wins"]["count"] == wins
        assert cell["player_wins"]["ci95"] == list(bots.wilson(wins, 20))
        lengths = sorted(r.length for r in records)
        assert cell["length"]["median"] == (lengths[9] + lengths[10]) / 2
        assert cell["length"]["p90"] == lengths[17]  # nearest rank: the 18th of 20
        replies = [w for r in records for w, b in zip(r.words[1:], r.by_bot[1:]) if b]
        assert cell["bot_words"] == len(replies)
        assert math.isclose(sum(cell["bot_tiers"].values()), 1.0)
        common = sum(lexicon.tiers[w] <= 2 for w in replies) / len(replies)
        assert math.isclose(cell["bot_common"], common)
        assert sum(cell["end_reasons"].values()) == 20
        assert [s["game"] for s in cell["samples"]] == [0, 1]
        assert [link["word"] for link in cell["samples"][0]["chain"]] == [
            lexicon.words[w] for w in records[0].words
        ]
    text = player_models.format_players(report)
    assert "casual   easy" in text and "casual   medium" in text
    assert "casual vs medium, game 1:" in text


def test_noitu_bench_bots_players_prints_json(tmp_path) -> None:
    path = tmp_path / "dictionary.txt"
    lexicon = tiered_lexicon(4)
    lines = [f"{w}\t{t}" for w, t in zip(lexicon.words, lexicon.tiers)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        cli.main([
            "bench", "bots", "--players", "casual,careful", "--levels", "easy,hard",
            "--games", "4", "--dictionary", str(path), "--json", "--quiet", "--show", "1",
        ])
    report = json.loads(out.getvalue())
    assert report["mode"] == "players" and report["games"] == 4
    cells = [(c["player"], c["level"], c["games"], len(c["samples"])) for c in report["cells"]]
    assert cells == [("casual", "easy", 4, 1), ("casual", "hard", 4, 1),
                     ("careful", "easy", 4, 1), ("careful", "hard", 4, 1)]
    assert err.getvalue() == ""


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--players", "lucky"], "unknown player model 'lucky'"),
        (["--players", "casual", "--levels", "medium,brutal"], "unknown level 'brutal'"),
        (["--players", "casual", "--show", "-1"], "--show must be 0 or more"),
    ],
)
def test_noitu_bench_bots_players_refuses_bad_flags(flags, message) -> None:
    with pytest.raises(SystemExit, match=message):
        cli.main(["bench", "bots", "--games", "2", "--quiet", *flags])
