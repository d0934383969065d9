"""How fast the arena's engine and protocol are: medians, in µs, over every position of
a number of seeded random games (bot against bot, 200 turns unless a base falls).

    .venv/bin/python bench/arena_engine.py [--games 40] [--seed 1]

Timed, each call on its own (time.perf_counter_ns around it, so every figure includes
the timer's own cost, printed first):

- legal actions of a position (rules.legal_actions, not the match's cached copy);
- applying an action (Match.apply: checks it, plays it, settles the endings);
- building the YOUR_TURN line (protocol.your_turn, right after the opponent's action,
  so it includes generating the legal actions);
- judging a reply: an accepted MOVE, and a rejected one (a PASS while moves exist).

The engine's shared tables fill as positions are first seen; the games are played once
untimed first, so the figures are those of a warm, long-running server.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time

import msgspec

from noitu.application.arena.judge import judge
from noitu.application.arena.protocol import action_line, your_turn
from noitu.domain.arena.match import Match, Phase
from noitu.domain.arena.rules import legal_actions


def play(games: int, seed: int, times: dict[str, list[int]] | None) -> int:
    clock = time.perf_counter_ns
    rng = random.Random(seed)
    positions = 0
    for number in range(games):
        match = Match.between_bots(f"B{number}", rng.randrange(2**32))
        while match.phase is Phase.PLAYING:
            side = match.current_player
            t0 = clock()
            request = your_turn(match)
            t1 = clock()
            legal_actions(match.board, side)  # type: ignore[arg-type]
            t2 = clock()
            action = rng.choice(request.legal_actions)
            good = action_line(request.sequence, action).encode()
            bad = b'{"type":"ACTION","sequence":%d,"action":{"type":"PASS"}}' % request.sequence
            t3 = clock()
            judge(good, request)
            t4 = clock()
            judge(bad, request)
            t5 = clock()
            match.apply(action)
            t6 = clock()
            positions += 1
            if times is not None:
                times["your_turn"].append(t1 - t0)
                times["legal"].append(t2 - t1)
                times["judge_ok"].append(t4 - t3)
                times["judge_bad"].append(t5 - t4)
                times["apply"].append(t6 - t5)
                times["moves"].append(len(request.legal_actions))
                times["line"].append(len(request.data))
    return positions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    play(args.games, args.seed, None)  # warm the shared tables
    names = ("your_turn", "legal", "judge_ok", "judge_bad", "apply", "moves", "line")
    times: dict[str, list[int]] = {name: [] for name in names}
    positions = play(args.games, args.seed, times)

    clock = time.perf_counter_ns
    overhead = statistics.median(-(clock() - clock()) for _ in range(10001))

    def us(name: str) -> str:
        values = sorted(times[name])
        p90 = values[len(values) * 9 // 10]
        return f"{statistics.median(values) / 1000:8.2f} µs   (p90 {p90 / 1000:.2f})"

    moves = statistics.median(times["moves"])
    line = statistics.median(times["line"])
    print(f"os.cpu_count(): {os.cpu_count()}")
    print(f"python {platform.python_version()} ({sys.implementation.name}), "
          f"msgspec {msgspec.__version__}")
    print(f"{args.games} games, {positions} positions; median legal actions per position "
          f"{moves:.0f}, median line {line:.0f} bytes")
    print(f"timer overhead per call (included below): {overhead / 1000:.2f} µs")
    print("medians per call:")
    print(f"  legal actions of a position        {us('legal')}")
    print(f"  applying an action                 {us('apply')}")
    print(f"  building the YOUR_TURN line        {us('your_turn')}")
    print(f"  judging a reply (accepted MOVE)    {us('judge_ok')}")
    print(f"  judging a reply (rejected PASS)    {us('judge_bad')}")


if __name__ == "__main__":
    main()
