"""`noitu bench engine`: the dictionary's load, move validation and the bots' replies.

Everything timed is the code the server runs: `load_lexicon` and `bot_index_of` as a
server start calls them (from the built-Lexicon cache, or built from text), the move checks of PlayMove and Game.play (`typed_word_too_long`,
`normalize`, `check_word`), and the bots as `make_opponents` makes them.
"""

from __future__ import annotations

import gc
import json
import random
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from noitu.bench.machine import (
    BUDGET,
    DIFFICULTIES,
    distribution_us,
    format_machine,
    load_average,
    machine,
    median,
    median_dict,
    percentile,
    probe,
    quantiles_us,
    row,
    rss_mb,
    verdict,
)
from noitu.bench.positions import Position, chain_of, make_positions
from noitu.domain.noitu.bots import (
    HARD_NODE_LIMIT,
    BotIndex,
    HardOpponent,
    make_opponents,
)
from noitu.domain.noitu.chain import Chain
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.rules import check_word, typed_word_too_long
from noitu.domain.noitu.spelling import normalize, word_variants

# --- the dictionary's load -------------------------------------------------------------------


def load_probe(trace: bool, cache_dir: str | None = None) -> None:
    """Run in a fresh interpreter: load the shipped dictionary once and build the bots'
    indexes, as a server start does; print JSON.

    With `cache_dir`, the built-Lexicon cache there is used (and filled on a miss);
    without, the Lexicon is built from the text (a first start).
    """
    from noitu.adapters.noitu.dictionary_file import bot_index_of, load_lexicon

    gc.collect()
    before = rss_mb()
    if trace:
        import tracemalloc

        tracemalloc.start()
    started = time.perf_counter()
    lexicon = load_lexicon(None, cache_dir=Path(cache_dir) if cache_dir else None)
    elapsed = time.perf_counter() - started
    peak = 0.0
    if trace:
        import tracemalloc

        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    after = rss_mb()
    started = time.perf_counter()
    index = bot_index_of(lexicon)
    indexes = time.perf_counter() - started
    print(json.dumps({
        "load_ms": elapsed * 1000,
        "bot_indexes_ms": indexes * 1000,
        "startup_ms": (elapsed + indexes) * 1000,
        "rss_delta_mb": after - before,
        "rss_after_mb": after,
        "rss_with_indexes_mb": rss_mb(),
        "tracemalloc_peak_mb": peak,
        "words": len(lexicon),
        "syllables": len(lexicon.syllable_names),
        "edges": len(index.edge_last),
    }))


def bench_load(runs: int) -> dict:
    """Warm: a start with the built-Lexicon cache filled (every start after the first
    one of a dictionary and a code version). Cold: building from the text."""
    with tempfile.TemporaryDirectory() as cache:
        probe("engine", "load_probe", False, cache)  # fills the cache
        warm = [probe("engine", "load_probe", False, cache) for _ in range(runs)]
    cold = [probe("engine", "load_probe", False) for _ in range(runs)]
    traced = probe("engine", "load_probe", True)
    result = median_dict(warm)
    result["cold_load_ms"] = median_dict(cold)["load_ms"]
    result["cold_startup_ms"] = median_dict(cold)["startup_ms"]
    result["tracemalloc_peak_mb"] = traced["tracemalloc_peak_mb"]
    result["runs"] = runs
    return result


# --- move validation ---------------------------------------------------------------------------


def typed_words(lexicon: Lexicon, count: int = 2000, seed: int = 11) -> dict[str, list[str]]:
    """What players type: dictionary words, other spellings of them (hoà/hòa, lí/lý),
    the same words in capitals with extra spaces, and words not in the dictionary."""
    rng = random.Random(seed)
    words = lexicon.words
    exact = [words[i] for i in rng.sample(range(len(words)), min(count, len(words)))]
    variants: list[str] = []
    for i in rng.sample(range(len(words)), len(words)):
        for variant in word_variants(words[i]):
            if variant not in lexicon.word_ids and lexicon.resolve(variant) == i:
                variants.append(variant)
                break
        if len(variants) >= count:
            break
    messy = ["  " + w.upper().replace(" ", "   ") + " " for w in exact]
    names = lexicon.syllable_names
    missing: list[str] = []
    while len(missing) < count:
        typed = f"{names[rng.randrange(len(names))]} {names[rng.randrange(len(names))]}"
        if lexicon.resolve(typed) is None:
            missing.append(typed)
    return {"exact": exact, "variant": variants, "messy": messy, "not_in_dictionary": missing}


def validate(raw: str, chain: Chain) -> str:
    """What api/move does with a typed word before the bot answers, with the server's
    own functions in PlayMove's order: the length limits, normalization, then
    `check_word` (the checks Game.play runs). Answers the rejection or "accepted"."""
    if typed_word_too_long(raw):
        return "bad_request"
    rejection, _ = check_word(chain, normalize(raw))
    return "accepted" if rejection is None else rejection.value


def bench_validation(lexicon: Lexicon, runs: int) -> dict:
    typed = typed_words(lexicon)
    chain = chain_of(lexicon, [lexicon.word_ids[w] for w in typed["exact"][:1]])
    per_kind: dict[str, list[float]] = {kind: [] for kind in typed}
    answers = {kind: Counter(validate(raw, chain) for raw in words) for kind, words in typed.items()}
    # Lexicon.resolve alone, on normalized words: dictionary words and other spellings.
    resolve_only = {"exact": typed["exact"], "variant": typed["variant"]}
    per_resolve: dict[str, list[float]] = {kind: [] for kind in resolve_only}
    for _ in range(runs):
        for kind, batch in typed.items():
            started = time.perf_counter_ns()
            for raw in batch:
                validate(raw, chain)
            per_kind[kind].append((time.perf_counter_ns() - started) / len(batch) / 1000)
        for kind, batch in resolve_only.items():
            started = time.perf_counter_ns()
            for word in batch:
                lexicon.resolve(word)
            per_resolve[kind].append((time.perf_counter_ns() - started) / len(batch) / 1000)
    result: dict[str, Any] = {
        kind: {"us_per_word": median(v), "words": len(typed[kind]), "answers": dict(answers[kind])}
        for kind, v in per_kind.items()
    }
    result["worst_us_per_word"] = max(r["us_per_word"] for r in result.values())
    result["resolve_us"] = {kind: median(v) for kind, v in per_resolve.items()}
    result["runs"] = runs
    return result


# --- the bots' replies ---------------------------------------------------------------------


def bench_replies(
    lexicon: Lexicon, index: BotIndex, positions: Sequence[Position], runs: int
) -> dict:
    """Reply time of each difficulty from every position, `runs` times; the figures are
    the medians of the runs' percentiles."""
    chains = [chain_of(lexicon, p.words) for p in positions]
    kinds = [p.kind for p in positions]
    policies = {d.value: policy for d, policy in make_opponents(index).items()}
    per_run: dict[str, list[dict]] = {name: [] for name in policies}
    samples_of_median_run: dict[str, list[int]] = {}
    # The fastest of the runs for each position: what a reply costs when nothing else
    # (another process, a garbage collection) interrupts it.
    best_of_runs: dict[str, list[int]] = {name: [] for name in policies}
    positions_searched: list[int] = []
    clock = time.perf_counter_ns
    for run in range(runs):
        for name, policy in policies.items():
            gc.collect()
            samples: list[int] = []
            for i, chain in enumerate(chains):
                rng = random.Random(run * 1_000_003 + i)
                started = clock()
                policy.choose(chain, rng)
                samples.append(clock() - started)
                if run == 0 and isinstance(policy, HardOpponent):
                    positions_searched.append(policy.last_search.positions)
            figures: dict[str, Any] = quantiles_us(samples)
            for kind in ("opening", "midgame", "deep"):
                figures[kind] = quantiles_us([s for s, k in zip(samples, kinds) if k == kind])
            per_run[name].append(figures)
            if run == runs // 2:
                samples_of_median_run[name] = samples
            best = best_of_runs[name]
            best_of_runs[name] = [min(a, b) for a, b in zip(best, samples)] if best else samples
    result: dict[str, Any] = {name: median_dict(figures) for name, figures in per_run.items()}
    for name in policies:
        result[name]["distribution_us"] = distribution_us(samples_of_median_run[name])
        result[name]["best_of_runs"] = quantiles_us(best_of_runs[name])
    positions_searched.sort()
    result["hard"]["positions"] = {
        "mean": statistics.fmean(positions_searched) if positions_searched else 0.0,
        "p99": percentile(positions_searched, 0.99),
        "max": positions_searched[-1] if positions_searched else 0,
    }
    result["positions"] = dict(Counter(kinds))
    result["positions"]["total"] = len(positions)
    result["positions"]["mean_words_used"] = (
        statistics.fmean(len(p.words) for p in positions) if positions else 0.0
    )
    result["runs"] = runs
    return result


def bench_engine(runs: int, quick: bool = False) -> dict:
    from noitu.adapters.noitu.dictionary_file import load_lexicon

    report: dict[str, Any] = {"machine": machine()}
    report["load"] = bench_load(runs)
    lexicon = load_lexicon(None)
    index = BotIndex(lexicon)
    report["validation"] = bench_validation(lexicon, runs)
    positions = make_positions(
        lexicon, index, per_kind=300 if quick else 1000, midgame_games=60 if quick else 250,
        deep_games=15 if quick else 60,
    )
    report["replies"] = bench_replies(lexicon, index, positions, runs)
    report["quick"] = quick
    report["machine"]["load_average_after"] = load_average()
    return report


# --- output ------------------------------------------------------------------------------------


def format_engine(report: dict) -> str:
    load, validation, replies = report["load"], report["validation"], report["replies"]
    lines = [
        format_machine(report["machine"]),
        f"medians of {load['runs']} runs (dictionary load: each run in a fresh interpreter)",
        "",
        row("figure", "value", "budget"),
        row(
            f"dictionary + bot index ({load['words']:,} words)",
            f"{load['startup_ms']:.0f} ms", "≤ 200 ms",
            verdict(load["startup_ms"] <= BUDGET["load_ms"]),
        ),
        row("  the dictionary (built-Lexicon cache)", f"{load['load_ms']:.0f} ms"),
        row("  the bots' indexes (BotIndex)", f"{load['bot_indexes_ms']:.1f} ms"),
        row("  first start (no cache: built from text)", f"{load['cold_startup_ms']:.0f} ms"),
        row("  memory: RSS growth (dictionary)", f"{load['rss_delta_mb']:.1f} MB"),
        row("  memory: tracemalloc peak (1 run)", f"{load['tracemalloc_peak_mb']:.1f} MB"),
    ]
    for kind in ("exact", "variant", "messy", "not_in_dictionary"):
        figure = validation[kind]
        lines.append(
            row(
                f"move validation, {kind} ({figure['words']} words)",
                f"{figure['us_per_word']:.2f} µs/word", "≤ 10 µs",
                verdict(figure["us_per_word"] <= BUDGET["validation_us"]),
            )
        )
    for kind, micros in validation.get("resolve_us", {}).items():
        lines.append(
            row(f"  of which Lexicon.resolve, {kind}", f"{micros:.2f} µs/word", "≤ 5 µs",
                verdict(micros <= BUDGET["resolve_us"]))
        )
    positions = replies["positions"]
    lines.append(
        row(
            f"bot replies from {positions['total']} positions",
            f"{positions.get('opening', 0)}/{positions.get('midgame', 0)}/{positions.get('deep', 0)}",
            "opening/mid/deep",
        )
    )
    for name in DIFFICULTIES:
        r = replies[name]
        budget = BUDGET[f"{name}_p99_us"]
        lines.append(
            row(
                f"{name} reply p50 / p90 / p99 / max",
                f"{r['p50_us']:.0f} / {r['p90_us']:.0f} / {r['p99_us']:.0f} / {r['max_us']:.0f} µs",
                f"p99 ≤ {budget:,.0f} µs",
                verdict(r["p99_us"] <= budget),
            )
        )
        for kind in ("opening", "midgame", "deep"):
            k = r[kind]
            lines.append(row(f"  {kind} p50 / p99", f"{k['p50_us']:.0f} / {k['p99_us']:.0f} µs"))
        b = r["best_of_runs"]
        lines.append(
            row(
                "  best of the runs per position: p50/p99/max",
                f"{b['p50_us']:.0f} / {b['p99_us']:.0f} / {b['max_us']:.0f} µs",
            )
        )
    searched = replies["hard"]["positions"]
    lines.append(
        row(
            "hard positions searched mean / p99 / max",
            f"{searched['mean']:.0f} / {searched['p99']} / {searched['max']}",
            f"≤ {HARD_NODE_LIMIT:,}",
            verdict(searched["max"] <= BUDGET["hard_positions_max"]),
        )
    )
    return "\n".join(lines)


def plot_replies(report: dict, path: str) -> None:
    """The reply-time distribution per difficulty (needs matplotlib, the `bench` extra)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(7, 4))
    for name in DIFFICULTIES:
        values = report["replies"][name]["distribution_us"]
        fractions = [i / (len(values) - 1) for i in range(len(values))]
        axis.plot(values, fractions, label=name)
        budget = BUDGET[f"{name}_p99_us"]
        axis.axvline(budget, linestyle=":", linewidth=0.8, color=axis.lines[-1].get_color())
    axis.set_xscale("log")
    axis.set_xlabel("reply time (µs, log scale); dotted: the p99 budget")
    axis.set_ylabel("fraction of positions")
    total = report["replies"]["positions"]["total"]
    axis.set_title(f"Bot reply time from {total} positions (one run)")
    axis.grid(True, which="both", linewidth=0.3)
    axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
