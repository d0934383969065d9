"""The `noitu` command: `serve` and `token` (nối từ), `words` (the words players
report), `arena` (the bot arena: a match,
a bot's self-check), `bench` (the benchmarks, from noitu.bench)."""

from __future__ import annotations

import argparse

from noitu.entrypoints.cli import arena, noitu, words


def build_parser() -> argparse.ArgumentParser:
    """The `noitu` command's parser, every sub-command on it (tests read it too)."""
    parser = argparse.ArgumentParser(
        prog="noitu", description="Nối từ against a bot, for Telegram; and the bot arena."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    noitu.add_arguments(commands)
    words.add_arguments(commands)
    arena.add_arguments(commands)
    # The benchmarks live in bench/ (installed as noitu.bench); each imports its heavy
    # parts only when it runs.
    from noitu.bench.cli import add_arguments as add_bench_arguments

    add_bench_arguments(
        commands.add_parser("bench", help="measure the performance budget; the bots' tournament")
    )
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    args.run(args)
