"""Plots for docs/performance.md, from the JSON of `noitu bench engine --json` and
`noitu bench bots --json` (matplotlib: the project's `bench` extra).

    .venv/bin/noitu bench engine --json > engine.json
    .venv/bin/noitu bench bots --a hard --b medium --games 1000 --json > hard-medium.json
    .venv/bin/noitu bench bots --a medium --b easy --games 1000 --json > medium-easy.json
    .venv/bin/python bench/plot.py --engine engine.json \\
        --bots hard-medium.json medium-easy.json --out docs

writes docs/reply-times.png and, for the word bots' tournament, docs/arena.png (the
name docs/performance.md shows it by).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

BUDGET_P99_US = {"easy": 50, "medium": 400, "hard": 10_000}
COLOURS = {"easy": "tab:green", "medium": "tab:blue", "hard": "tab:red"}


def plot_reply_times(engine: dict, path: Path) -> None:
    replies = engine["replies"]
    figure, axis = plt.subplots(figsize=(7.5, 4.2))
    for name in ("easy", "medium", "hard"):
        values = replies[name]["distribution_us"]
        fractions = [i / (len(values) - 1) for i in range(len(values))]
        axis.plot(values, fractions, label=f"{name} (p99 {replies[name]['p99_us']:.0f} µs)",
                  color=COLOURS[name])
        axis.axvline(BUDGET_P99_US[name], linestyle=":", linewidth=1, color=COLOURS[name])
    axis.axhline(0.99, linestyle="--", linewidth=0.6, color="grey")
    axis.set_xscale("log")
    axis.set_xlabel("reply time, µs (log scale); dotted lines: the p99 budgets")
    axis.set_ylabel("fraction of positions answered")
    positions = replies["positions"]
    cores = engine["machine"]["cores"]
    axis.set_title(
        f"Bot reply time from {positions['total']} positions "
        f"(opening/mid/deep {positions['opening']}/{positions['midgame']}/{positions['deep']}), "
        f"{cores} cores",
        fontsize=9,
    )
    axis.grid(True, which="both", linewidth=0.3)
    axis.legend(loc="lower right", fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


ROWS = (
    ("overall", "all games"),
    ("a_moved_first", "A moved first"),
    ("b_moved_first", "B moved first"),
    ("opening_offers_win", "opening offers an\nimmediate win"),
    ("opening_offers_no_win", "opening offers no\nimmediate win"),
)


# The budget of docs/performance.md: A's share of wins, drawn as a red mark.
BOTS_BUDGETS = {
    ("hard", "medium"): {"overall": 60, "opening_offers_no_win": 90},
    ("medium", "easy"): {"overall": 90},
}


def plot_bots(reports: list[dict], path: Path) -> None:
    figure, axes = plt.subplots(1, len(reports), figsize=(5.2 * len(reports), 3.8), squeeze=False)
    for axis, report in zip(axes[0], reports):
        labels, rates, lows, highs, counts = [], [], [], [], []
        rows = [(key, label) for key, label in ROWS if report[key]["games"]]  # none: no bar
        for key, label in rows:
            split = report[key]
            share = split["a_wins"]
            labels.append(label)
            rates.append(100 * share["rate"])
            lows.append(100 * (share["rate"] - share["ci95"][0]))
            highs.append(100 * (share["ci95"][1] - share["rate"]))
            counts.append(split["games"])
        positions = list(range(len(labels)))[::-1]
        axis.barh(positions, rates, xerr=[lows, highs], color="tab:blue", alpha=0.8, capsize=3)
        for y, rate, count in zip(positions, rates, counts):
            axis.text(2, y, f"{rate:.1f}% of {count}", va="center", fontsize=8, color="white",
                      fontweight="bold")
        budgets = BOTS_BUDGETS.get((report["a"], report["b"]), {})
        for y, (key, _) in zip(positions, rows):
            if key in budgets:
                axis.plot([budgets[key]] * 2, [y - 0.4, y + 0.4], color="tab:red", linewidth=2)
        axis.set_yticks(positions)
        axis.set_yticklabels(labels, fontsize=8)
        axis.set_xlim(0, 100)
        axis.axvline(50, linestyle=":", color="grey", linewidth=0.8)
        axis.set_xlabel(
            f"games won by A ({report['a']}), with 95% Wilson intervals; red: the budget",
            fontsize=8,
        )
        axis.set_title(
            f"{report['a']} (A) vs {report['b']} (B), {report['overall']['games']} games",
            fontsize=9,
        )
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", type=Path, help="JSON of `noitu bench engine --json`")
    parser.add_argument("--bots", type=Path, nargs="*", default=[],
                        help="JSON of `noitu bench bots --json`")
    parser.add_argument("--out", type=Path, default=Path("docs"), help="folder for the PNGs")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.engine:
        plot_reply_times(json.loads(args.engine.read_text()), args.out / "reply-times.png")
    if args.bots:
        plot_bots([json.loads(p.read_text()) for p in args.bots], args.out / "arena.png")


if __name__ == "__main__":
    main()
