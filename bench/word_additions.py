"""The words the players bring (spec B11): what an addition costs, whether a move costs
more with 10,000 added words, and how soon another instance accepts an added word.

A script (run it with the venv's python): `python bench/word_additions.py`. It loads the
shipped dictionary, times the live overlay's two steps (the Lexicon's own change and the
bots' index rebuilt in place), plays the same games (same seeds, medium bot, the player
answering as the medium bot would) on a Lexicon with 0 and with 10,000 added words, and
times an addition made through one instance's store until a second instance, polling
every FOLLOW_EVERY_S, accepts it (SQLite file; Redis too when redis-server is installed),
and measures how long the instance's event loop stalls while it follows one addition.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import platform
import random
import tempfile
import time
from pathlib import Path

from noitu.adapters.noitu.dictionary_file import load_lexicon
from noitu.adapters.noitu.words.memory import InMemoryAdditions
from noitu.adapters.noitu.words.sqlite import SqliteAdditions
from noitu.application.noitu.words.follow_additions import FollowAdditions
from noitu.application.noitu.words.ports import AdditionsStore
from noitu.bench.machine import median, quantiles_us
from noitu.domain.noitu.additions import ADDED_TIER, Action, Overlay, WordChange, unfit
from noitu.domain.noitu.bots import BotIndex, MediumOpponent
from noitu.domain.noitu.game import Game
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.opponent import Difficulty
from noitu.domain.noitu.rules import TurnClock
from noitu.entrypoints.cli.noitu import YOUNG_GC_THRESHOLD
from noitu.entrypoints.periodic_tasks import FOLLOW_EVERY_S

T0 = 1_000_000


def new_words(lexicon: Lexicon, count: int, seed: int) -> list[str]:
    """Fit two-syllable words the dictionary does not have, from its own syllables."""
    rng = random.Random(seed)
    names = lexicon.syllable_names
    found: dict[str, None] = {}
    while len(found) < count:
        word = f"{rng.choice(names)} {rng.choice(names)}"
        if word not in found and unfit(word) is None and lexicon.resolve(word) is None:
            found[word] = None
    return list(found)


def loaded() -> tuple[Lexicon, BotIndex]:
    lexicon = load_lexicon()
    return lexicon, BotIndex(lexicon)


def time_additions(count: int, refreshes: int) -> dict[str, float]:
    lexicon, index = loaded()
    overlay = Overlay(lexicon)
    words = new_words(lexicon, count, seed=1)
    applied = []
    for word in words:
        start = time.perf_counter_ns()
        overlay.apply(WordChange(word, Action.ADD, ADDED_TIER, T0))
        applied.append(time.perf_counter_ns() - start)
    rebuilt = []
    for _ in range(refreshes):
        start = time.perf_counter_ns()
        index.refresh()
        rebuilt.append(time.perf_counter_ns() - start)
    removed = []
    for word in words[: count // 10]:
        start = time.perf_counter_ns()
        overlay.apply(WordChange(word, Action.REMOVE, ADDED_TIER, T0))
        removed.append(time.perf_counter_ns() - start)
    return {
        "apply_add_p50_us": quantiles_us(applied)["p50_us"],
        "apply_add_p99_us": quantiles_us(applied)["p99_us"],
        "apply_remove_p50_us": quantiles_us(removed)["p50_us"],
        "index_refresh_ms": median(rebuilt) / 1e6,
    }


def time_moves(additions: int, games: int, moves: int) -> dict[str, float]:
    lexicon, index = loaded()
    if additions:
        overlay = Overlay(lexicon)
        for word in new_words(lexicon, additions, seed=2):
            overlay.apply(WordChange(word, Action.ADD, ADDED_TIER, T0))
        index.refresh()
    bot = MediumOpponent(index)
    samples = []
    for seed in range(games):
        rng = random.Random(seed)
        game = Game.start(lexicon, TurnClock(), Difficulty.MEDIUM, rng, T0)
        for turn in range(moves):
            word = bot.choose(game.chain, rng)
            if word is None or game.is_over:
                break
            typed = lexicon.words[word]
            now = T0 + (turn + 1) * 1_000
            game.deadline_ms = now + 20_000  # no clock trouble: only the work is timed
            start = time.perf_counter_ns()
            game.play(typed, now, bot, rng)
            samples.append(time.perf_counter_ns() - start)
            if game.is_over:
                break
    figures = quantiles_us(samples)
    return {"moves": len(samples), "p50_us": figures["p50_us"], "p99_us": figures["p99_us"]}


async def time_reach(make_store, trials: int) -> dict[str, float]:
    """From an addition kept in the store (what `noitu words add` or the admin chat's
    button writes) to another instance, polling every FOLLOW_EVERY_S, accepting it."""
    lexicon, index = loaded()
    follow = FollowAdditions(make_store(), Overlay(lexicon), index)
    writer = make_store()

    async def poll_forever() -> None:
        while True:
            await asyncio.sleep(FOLLOW_EVERY_S)
            await follow()

    poller = asyncio.get_running_loop().create_task(poll_forever())
    rng = random.Random(3)
    reach = []
    try:
        for word in new_words(lexicon, trials, seed=3):
            await asyncio.sleep(rng.uniform(0, FOLLOW_EVERY_S))
            await writer.append(WordChange(word, Action.ADD, ADDED_TIER, T0))
            start = time.perf_counter()
            while lexicon.resolve(word) is None:
                await asyncio.sleep(0.002)
            reach.append(time.perf_counter() - start)
    finally:
        poller.cancel()
    reach.sort()
    return {"median_s": median(reach), "max_s": reach[-1]}


TICK_S = 0.001


async def longest_gap(stop: asyncio.Event) -> float:
    """Ask the loop every TICK_S, as moves arriving would, until `stop`: the longest gap
    between two ticks is the longest such a move waits before its handler runs."""
    longest = 0.0
    last = time.perf_counter()
    while not stop.is_set():
        await asyncio.sleep(TICK_S)
        now = time.perf_counter()
        longest = max(longest, now - last)
        last = now
    return longest


async def time_stalls(trials: int) -> dict[str, float]:
    """The event loop's longest stall while this instance follows one addition (read,
    apply, the bots' index rebuilt), with the garbage collector set as `noitu serve`
    sets it once the dictionary is loaded."""
    lexicon, index = loaded()
    store = InMemoryAdditions()
    follow = FollowAdditions(store, Overlay(lexicon), index)
    thresholds = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_GC_THRESHOLD, *thresholds[1:])
    try:
        return await stalls_of(lexicon, store, follow, trials)
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


async def stalls_of(
    lexicon: Lexicon, store: InMemoryAdditions, follow: FollowAdditions, trials: int
) -> dict[str, float]:
    stalls = []
    took = []
    for word in new_words(lexicon, trials, seed=4):
        await store.append(WordChange(word, Action.ADD, ADDED_TIER, T0))
        stop = asyncio.Event()
        ticker = asyncio.get_running_loop().create_task(longest_gap(stop))
        await asyncio.sleep(5 * TICK_S)  # the ticker is under way
        start = time.perf_counter()
        await follow()
        took.append(time.perf_counter() - start)
        stop.set()
        stalls.append(await ticker)
        assert lexicon.resolve(word) is not None
    return {
        "stall_ms": median(stalls) * 1e3,
        "stall_max_ms": max(stalls) * 1e3,
        "follow_ms": median(took) * 1e3,
    }


def sqlite_stores(directory: Path):
    def make() -> AdditionsStore:
        return SqliteAdditions.in_data_dir(directory)

    return make


async def reach_figures(trials: int) -> dict[str, dict[str, float]]:
    figures = {}
    with tempfile.TemporaryDirectory() as directory:
        figures["sqlite"] = await time_reach(sqlite_stores(Path(directory)), trials)
    from noitu.adapters.noitu.words.redis import RedisAdditions
    from noitu.adapters.redis.client import RedisLink
    from noitu.bench.redis_server import REDIS_SERVER, RedisServer

    if REDIS_SERVER is not None:
        with tempfile.TemporaryDirectory() as directory, RedisServer(Path(directory)) as server:
            links: list[RedisLink] = []

            def make() -> AdditionsStore:
                links.append(RedisLink.from_url(server.url))
                return RedisAdditions(links[-1])

            figures["redis"] = await time_reach(make, trials)
            for link in links:
                await link.aclose()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--additions", type=int, default=10_000)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--moves", type=int, default=20, help="player moves per game at most")
    parser.add_argument("--trials", type=int, default=20, help="additions timed across instances")
    parser.add_argument("--stalls", type=int, default=20, help="additions followed under a ticker")
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}; python {platform.python_version()}")
    cost = time_additions(args.additions, refreshes=10)
    print(
        f"an addition: the Lexicon's change p50 {cost['apply_add_p50_us']:.1f} µs,"
        f" p99 {cost['apply_add_p99_us']:.1f} µs; a removal p50 {cost['apply_remove_p50_us']:.1f} µs;"
        f" the bots' index rebuilt in place {cost['index_refresh_ms']:.1f} ms (median)"
    )
    stalls = asyncio.run(time_stalls(args.stalls))
    print(
        f"the event loop while an addition is followed: the longest gap between"
        f" {TICK_S * 1e3:g} ms ticks median {stalls['stall_ms']:.1f} ms,"
        f" max {stalls['stall_max_ms']:.1f} ms ({args.stalls} additions;"
        f" the follow itself median {stalls['follow_ms']:.0f} ms)"
    )
    for additions in (0, args.additions):
        moves = time_moves(additions, args.games, args.moves)
        print(
            f"move (medium bot) with {additions:>6,} added words: {moves['moves']:,} moves,"
            f" p50 {moves['p50_us']:.1f} µs, p99 {moves['p99_us']:.1f} µs"
        )
    for store, reach in asyncio.run(reach_figures(args.trials)).items():
        print(
            f"addition → accepted on another instance ({store}, poll every {FOLLOW_EVERY_S:g} s):"
            f" median {reach['median_s']:.2f} s, max {reach['max_s']:.2f} s"
        )


if __name__ == "__main__":
    main()
