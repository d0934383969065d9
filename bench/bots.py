"""`noitu bench bots`: the word bots' self-play tournament, under the real rules and
without the clock.

A game: the opening is drawn as the server draws it (`draw_opening`), then the two sides
alternate, the first mover answering the opening. A side that plays no word loses (it has
no legal unused word, or none its level knows: see `bots.vocabulary`); a chain of 300
words (`MAX_CHAIN_WORDS`, the opening included) is a draw. Every word a policy plays is
checked with the rules' `check_word`, as Game.play checks a player's. Games come in pairs
that share an opening, each policy moving first in one of the two, so that the openings'
luck cancels out. Everything is a function of the seed.

The tournament works on the domain directly (Lexicon, BotIndex, Chain, the policies of
`make_opponents`). With `--players`, models of a person play each level instead
(`noitu.bench.player_models`).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from tqdm import tqdm

from noitu.bench.machine import percentile
from noitu.domain.noitu.bots import BotIndex, HardOpponent, make_opponents
from noitu.domain.noitu.chain import Chain, Side
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.opponent import Difficulty, Opponent
from noitu.domain.noitu.rules import MAX_CHAIN_WORDS, check_word, draw_opening

POLICIES = tuple(d.value for d in Difficulty)
PROGRESS_FROM_GAMES = 50  # fewer games than this finish before a bar would help


def make_policy(name: str, index: BotIndex) -> Opponent:
    """The policy of one difficulty, as the server makes it (its own instance: the hard
    bot keeps the cost of its last search)."""
    try:
        return make_opponents(index)[Difficulty(name)]
    except ValueError:
        expected = ", ".join(POLICIES)
        raise ValueError(f"unknown policy {name!r}; expected one of {expected}") from None


@dataclass(slots=True)
class GameRecord:
    """One tournament game, seen from side A."""

    index: int
    a_first: bool
    opening: int
    opening_offers_win: bool  # the first mover had a word leaving no reply
    winner: str  # "a", "b" or "draw"
    length: int  # words in the final chain, the opening included
    words: tuple[int, ...] = ()  # the final chain, the opening first
    reply_ns: dict[str, list[int]] = field(default_factory=lambda: {"a": [], "b": []})
    positions: dict[str, list[int]] = field(default_factory=lambda: {"a": [], "b": []})


def opening_offers_win(chain: Chain) -> bool:
    """Whether the side to move has a word that leaves the other side no reply."""
    return any(chain.replies_after(w) == 0 for w in chain.legal_words())


def check_legal(chain: Chain, word: int) -> None:
    """A policy's word, checked by the rules as a typed word is (spec order)."""
    rejection, found = check_word(chain, chain.lexicon.words[word])
    if rejection is not None or found != word:
        reason = rejection.value if rejection is not None else f"resolves to {found}"
        raise AssertionError(
            f"illegal move {chain.lexicon.words[word]!r} after {chain.current_syllable!r}: {reason}"
        )


def play_game(
    lexicon: Lexicon,
    policy_a: Opponent,
    policy_b: Opponent,
    *,
    index: int,
    opening_seed: int,
    game_seed: int,
    a_first: bool,
    max_chain: int = MAX_CHAIN_WORDS,
    clock: Callable[[], int] = time.perf_counter_ns,
) -> GameRecord:
    """Play one game; the opening comes from `opening_seed`, the policies' randomness
    from `game_seed` (one random source per side)."""
    chain = Chain(lexicon)
    opening = draw_opening(lexicon, random.Random(opening_seed))
    chain.append(opening, Side.BOT, 0)
    offers_win = opening_offers_win(chain)
    sides = {
        "a": (policy_a, random.Random(f"{game_seed}/a")),
        "b": (policy_b, random.Random(f"{game_seed}/b")),
    }
    order = ("a", "b") if a_first else ("b", "a")
    record = GameRecord(index, a_first, opening, offers_win, "draw", 1)
    turn = 0
    while len(chain) < max_chain:
        side = order[turn % 2]
        policy, rng = sides[side]
        started = clock()
        word = policy.choose(chain, rng)
        record.reply_ns[side].append(clock() - started)
        if isinstance(policy, HardOpponent):
            record.positions[side].append(policy.last_search.positions)
        if word is None:
            record.winner = "b" if side == "a" else "a"
            break
        check_legal(chain, word)
        chain.append(word, Side.BOT if side == "a" else Side.PLAYER, 0)
        turn += 1
    record.length = len(chain)
    record.words = tuple(link.word.id for link in chain.links)
    return record


def run_tournament(
    lexicon: Lexicon,
    a: str,
    b: str,
    games: int,
    seed: int = 1,
    *,
    max_chain: int = MAX_CHAIN_WORDS,
    progress: bool = True,
    stream: TextIO | None = None,
) -> list[GameRecord]:
    """`games` games (rounded up to an even number): pairs sharing an opening, A moving
    first in the first game of each pair and B in the second. With `progress`, a tqdm
    bar on stderr (or `stream`) for runs of 50 games or more."""
    index = BotIndex(lexicon)
    policy_a = make_policy(a, index)
    policy_b = make_policy(b, index)
    pairs = (games + 1) // 2
    out = stream or sys.stderr
    tty = bool(getattr(out, "isatty", lambda: False)())
    bar = tqdm(
        total=2 * pairs, desc=f"bots {a} vs {b}", unit="game", file=out,
        disable=not progress or 2 * pairs < PROGRESS_FROM_GAMES,
        mininterval=0.1 if tty else 5.0,  # a log file gets a line now and then
    )
    records: list[GameRecord] = []
    with bar:
        for pair in range(pairs):
            for a_first in (True, False):
                number = len(records)
                records.append(
                    play_game(
                        lexicon, policy_a, policy_b,
                        index=number,
                        opening_seed=seed * 1_000_003 + pair,
                        game_seed=seed * 1_000_003 + number,
                        a_first=a_first,
                        max_chain=max_chain,
                    )
                )
                bar.update(1)
    return records


# --- statistics ----------------------------------------------------------------------


def wilson(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default)."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def outcome_split(records: Sequence[GameRecord]) -> dict:
    games = len(records)
    wins = sum(r.winner == "a" for r in records)
    losses = sum(r.winner == "b" for r in records)
    draws = games - wins - losses

    def share(count: int) -> dict:
        low, high = wilson(count, games)
        return {"count": count, "rate": count / games if games else 0.0, "ci95": [low, high]}

    return {"games": games, "a_wins": share(wins), "b_wins": share(losses), "draws": share(draws)}


def timing_summary(samples_ns: Sequence[int]) -> dict:
    values = sorted(samples_ns)
    if not values:
        return {"replies": 0}
    return {
        "replies": len(values),
        "p50_us": percentile(values, 0.50) / 1000,
        "p90_us": percentile(values, 0.90) / 1000,
        "p99_us": percentile(values, 0.99) / 1000,
        "max_us": values[-1] / 1000,
    }


def summarize(records: Sequence[GameRecord], a: str, b: str, seed: int) -> dict:
    lengths = [r.length for r in records]
    report = {
        "a": a,
        "b": b,
        "seed": seed,
        "overall": outcome_split(records),
        "a_moved_first": outcome_split([r for r in records if r.a_first]),
        "b_moved_first": outcome_split([r for r in records if not r.a_first]),
        "opening_offers_win": outcome_split([r for r in records if r.opening_offers_win]),
        "opening_offers_no_win": outcome_split([r for r in records if not r.opening_offers_win]),
        "length": {
            "mean": statistics.fmean(lengths) if lengths else 0.0,
            "median": statistics.median(lengths) if lengths else 0.0,
            "max": max(lengths, default=0),
        },
        "reply_time": {
            "a": timing_summary([t for r in records for t in r.reply_ns["a"]]),
            "b": timing_summary([t for r in records for t in r.reply_ns["b"]]),
        },
    }
    for side in ("a", "b"):
        positions = sorted(p for r in records for p in r.positions[side])
        if positions:
            report["reply_time"][side]["positions"] = {
                "mean": statistics.fmean(positions),
                "p99": percentile(positions, 0.99),
                "max": positions[-1],
            }
    return report


def format_report(report: dict) -> str:
    a, b = report["a"], report["b"]
    lines = [
        (f"bots: A = {a}, B = {b}, {report['overall']['games']} games, seed {report['seed']}"
         " (pairs of games share an opening; each side moves first in one of each pair)"),
        "",
        f"{'games':<34}{'n':>6}  {'A wins':>22}  {'B wins':>22}  {'draws':>22}",
    ]

    def cell(share: dict) -> str:
        low, high = share["ci95"]
        return f"{share['count']:>5} {100 * share['rate']:5.1f}% [{100 * low:4.1f}-{100 * high:5.1f}]"

    rows = [
        ("all", report["overall"]),
        (f"A ({a}) moved first", report["a_moved_first"]),
        (f"B ({b}) moved first", report["b_moved_first"]),
        ("opening offers an immediate win", report["opening_offers_win"]),
        ("opening offers no immediate win", report["opening_offers_no_win"]),
    ]
    for name, split in rows:
        lines.append(
            f"{name:<34}{split['games']:>6}  {cell(split['a_wins']):>22}  "
            f"{cell(split['b_wins']):>22}  {cell(split['draws']):>22}"
        )
    lines.append("(percentages with 95% Wilson intervals)")
    length = report["length"]
    lines += [
        "",
        (f"game length (words, opening included): mean {length['mean']:.1f}, "
         f"median {length['median']:g}, max {length['max']}"),
        "",
        f"{'reply time':<16}{'replies':>9}{'p50 µs':>10}{'p90 µs':>10}{'p99 µs':>10}{'max µs':>10}",
    ]
    for side, name in (("a", a), ("b", b)):
        t = report["reply_time"][side]
        if not t.get("replies"):
            continue
        lines.append(
            f"{side.upper() + ' (' + name + ')':<16}{t['replies']:>9}{t['p50_us']:>10.1f}"
            f"{t['p90_us']:>10.1f}{t['p99_us']:>10.1f}{t['max_us']:>10.1f}"
        )
        if "positions" in t:
            p = t["positions"]
            lines.append(
                f"{'':<16}positions searched: mean {p['mean']:.1f}, p99 {p['p99']}, max {p['max']}"
            )
    return "\n".join(lines)


# --- the command -------------------------------------------------------------------------


def run(args: argparse.Namespace) -> None:
    """`noitu bench bots` (its flags are in `noitu.bench.cli`)."""
    from noitu.adapters.noitu.dictionary_file import load_lexicon

    if args.games < 1:
        raise SystemExit("noitu bench bots: --games must be at least 1")
    if args.max_chain < 1:
        raise SystemExit("noitu bench bots: --max-chain must be at least 1")
    lexicon = load_lexicon(args.dictionary or None)
    if args.players:
        from noitu.bench.player_models import run_players_command

        run_players_command(lexicon, args)
        return
    records = run_tournament(
        lexicon, args.a, args.b, args.games, args.seed,
        max_chain=args.max_chain, progress=not args.quiet,
    )
    report = summarize(records, args.a, args.b, args.seed)
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        print(format_report(report))
