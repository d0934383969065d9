"""`noitu bench`: the performance budget, measured (see docs/performance.md).

    noitu bench engine   dictionary load, move validation, bot replies per difficulty
    noitu bench memory   RSS with 2,000 live sessions of 100 words each
    noitu bench http     a load generator against a real `noitu serve` on loopback

Every figure is the median over `--runs` repeated runs. Each prints a table, or with
`--json` one JSON object. Heavy imports happen inside the commands, so that `noitu serve`
does not pay for them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import io
import json
import os
import platform
import random
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from noitu.domain.noitu.chain import Chain, Side
from noitu.domain.noitu.game import typed_word_too_long
from noitu.domain.noitu.lexicon import MIN_SYLLABLES, Lexicon
from noitu.domain.noitu.bots.opponents import (
    HARD_NODE_LIMIT,
    EasyOpponent,
    HardOpponent,
    MediumOpponent,
    Opponent,
    draw_opening,
)
from noitu.domain.noitu.spelling import normalize, syllables
from noitu.entrypoints.arena import percentile

# --- the budget (docs/performance.md) -------------------------------------------------

BUDGET = {
    "load_ms": 200.0,
    "validation_us": 10.0,
    "easy_p99_us": 50.0,
    "medium_p99_us": 400.0,
    "hard_p99_us": 10_000.0,
    "hard_positions_max": HARD_NODE_LIMIT,
    "http_moves_per_s": 1_500.0,
    "http_move_p99_ms": 100.0,
    "memory_rss_mb": 300.0,
}
DIFFICULTIES = ("easy", "medium", "hard")


# --- the machine ------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    model = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count() or 0
    return {
        "cores": os.cpu_count() or 0,
        "usable_cores": usable,
        "cpu": model or platform.processor() or "unknown",
        "python": platform.python_version(),
        "load_average": load_average(),
    }


def load_average() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def rss_mb(pid: int | str = "self") -> float:
    """Resident set size of a process, from /proc."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid: int | str = "self") -> float:
    """User + system CPU time of a process, from /proc/<pid>/stat."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else 0.0


def median_dict(runs: Sequence[dict]) -> dict:
    """The per-key median of runs of the same shape (nested dicts of numbers); a key
    missing from some runs gets the median of the runs that have it."""
    merged: dict = {}
    keys = list(dict.fromkeys(key for run in runs for key in run))
    for key in keys:
        present = [run[key] for run in runs if key in run]
        value = present[0]
        if isinstance(value, dict):
            merged[key] = median_dict(present)
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            merged[key] = value
        else:
            merged[key] = median(present)
    return merged


def quantiles_us(samples_ns: Sequence[int]) -> dict[str, float]:
    values = sorted(samples_ns)
    return {
        "p50_us": percentile(values, 0.50) / 1000,
        "p90_us": percentile(values, 0.90) / 1000,
        "p99_us": percentile(values, 0.99) / 1000,
        "max_us": (values[-1] / 1000) if values else 0.0,
        "mean_us": (statistics.fmean(values) / 1000) if values else 0.0,
    }


def distribution_us(samples_ns: Sequence[int], points: int = 201) -> list[float]:
    """Evenly spaced quantiles (0 to 100%) in microseconds, for the plot."""
    values = sorted(samples_ns)
    if not values:
        return []
    last = len(values) - 1
    return [values[round(last * i / (points - 1))] / 1000 for i in range(points)]


# --- a policy that makes long games ------------------------------------------------------


class SurvivorPolicy:
    """Plays to make the game last, not to win. It ranks the legal moves by the
    Lexicon's outcome of their last syllable: first a syllable from which neither side
    can force the end, leaving at least two replies and no word that wins at once
    (a random one of those); then such a syllable with one reply; then one where the
    other side loses, as late as possible; then one where it wins, as late as possible;
    a word that ends the game last. Used to make deep positions and long benchmark
    games; not one of the game's difficulties."""

    def choose(self, chain: Chain, rng: random.Random) -> int | None:
        lexicon = chain.lexicon
        syllable = chain.current
        used_edges = chain.used_edges
        used_from = chain.used_from
        edge_size = lexicon.edge_size
        edge_last = lexicon.edge_last
        outcome = lexicon.outcome
        out_degree = lexicon.out_degree
        lasting: list[int] = []
        best_rank, best = (9, 0), -1
        for edge in lexicon.edges_from[syllable]:
            if edge_size[edge] <= used_edges.get(edge, 0):
                continue
            last = edge_last[edge]
            replies = out_degree[last] - used_from.get(last, 0) - (last == syllable)
            value = outcome[last]
            if replies <= 0 or value == -1:
                rank = (4, 0)
            elif value == 0:
                if replies > 1 and not _wins_at_once(chain, syllable, last):
                    lasting.append(edge)
                    continue
                rank = (1, -replies)
            elif value < 0:
                rank = (2, value)
            else:
                rank = (3, -value)
            if rank < best_rank:
                best_rank, best = rank, edge
        if lasting:
            edge = lasting[rng.randrange(len(lasting))]
        elif best >= 0:
            edge = best
        else:
            return None
        edge_of = lexicon.edge_of
        used = chain.used
        words = [
            w for w in lexicon.starting_with[syllable] if edge_of[w] == edge and w not in used
        ]
        return words[rng.randrange(len(words))]


def _wins_at_once(chain: Chain, syllable: int, target: int) -> bool:
    """Whether, after a move from `syllable` to `target` (other than its static dead
    ends), the side then to move at `target` has a word leaving no reply because some
    syllable ran out of words."""
    lexicon = chain.lexicon
    edge_size = lexicon.edge_size
    used_edges = chain.used_edges
    for edge in chain.edges_to_exhausted.get(target, ()):
        if edge_size[edge] > used_edges.get(edge, 0):
            return True
    # The move may use the last word of `syllable`: then any word back into it wins.
    if chain.unused_replies(syllable) == 1:
        edge_last = lexicon.edge_last
        for edge in lexicon.edges_from[target]:
            if edge_last[edge] == syllable and edge_size[edge] > used_edges.get(edge, 0):
                return True
    return False


# --- positions from real games ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Position:
    kind: str  # opening, midgame, deep
    words: tuple[int, ...]  # the chain, bot to move


def _chain_of(lexicon: Lexicon, words: Sequence[int]) -> Chain:
    chain = Chain(lexicon)
    for i, word in enumerate(words):
        chain.append(word, Side.BOT if i % 2 == 0 else Side.PLAYER, 0)
    return chain


def make_positions(
    lexicon: Lexicon, per_kind: int = 1000, midgame_games: int = 250, deep_games: int = 60,
    seed: int = 2024,
) -> list[Position]:
    """Positions where the bot is to move, from self-play with fixed seeds, `per_kind`
    of each kind (fewer if the games do not yield that many):

    - opening: the opening as the game draws it and a first player word (a random
      legal word, common ones preferred, as a human would type).
    - midgame: bot turns of games where a player who plays to last meets each
      difficulty in turn (a fixed-seed sample of all of them).
    - deep: bot turns with 100 to 298 words used, from games where both sides play
      to last (most run to the 300-word cap).
    """
    positions: list[Position] = []
    human = EasyOpponent()
    for i in range(per_kind):
        rng = random.Random(seed * 7919 + i)
        chain = Chain(lexicon)
        chain.append(draw_opening(lexicon, rng), Side.BOT, 0)
        word = human.choose(chain, rng)
        if word is None:
            continue
        chain.append(word, Side.PLAYER, 0)
        positions.append(Position("opening", tuple(link.word for link in chain.links)))

    survivor = SurvivorPolicy()
    bots: list[Opponent] = [EasyOpponent(), MediumOpponent(), HardOpponent()]
    found: list[Position] = []
    for i in range(midgame_games):
        rng = random.Random(seed * 104729 + i)
        bot = bots[i % len(bots)]
        chain = Chain(lexicon)
        chain.append(draw_opening(lexicon, rng), Side.BOT, 0)
        while len(chain) < 300:
            word = survivor.choose(chain, rng)
            if word is None:
                break
            chain.append(word, Side.PLAYER, 0)
            if len(chain) < 300:  # the 300th word ends a game: no reply to it
                found.append(Position("midgame", tuple(link.word for link in chain.links)))
            reply = bot.choose(chain, rng)
            if reply is None:
                break
            chain.append(reply, Side.BOT, 0)
    sampler = random.Random(seed)
    positions += sampler.sample(found, min(per_kind, len(found)))

    found = []
    for i in range(deep_games):
        rng = random.Random(seed * 1299709 + i)
        chain = Chain(lexicon)
        chain.append(draw_opening(lexicon, rng), Side.BOT, 0)
        while len(chain) < 300:
            word = survivor.choose(chain, rng)
            if word is None:
                break
            chain.append(word, Side.BOT if len(chain) % 2 == 0 else Side.PLAYER, 0)
            if len(chain) % 2 == 0 and 100 <= len(chain) < 300:
                found.append(Position("deep", tuple(link.word for link in chain.links)))
    positions += sampler.sample(found, min(per_kind, len(found)))
    return positions


# --- engine ----------------------------------------------------------------------------------


def _load_probe(trace: bool, cache_dir: str | None = None) -> None:
    """Run in a fresh interpreter: load the shipped dictionary once, print JSON.

    With `cache_dir`, the built-Lexicon cache there is used (and filled on a miss), as
    a server start does; without, the Lexicon is built from the text (a first start).
    """
    from noitu.adapters.dictionary_file import load_lexicon

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
    lexicon._index_for_bots()
    indexes = time.perf_counter() - started
    print(json.dumps({
        "load_ms": elapsed * 1000,
        "bot_indexes_ms": indexes * 1000,
        "rss_delta_mb": after - before,
        "rss_after_mb": after,
        "tracemalloc_peak_mb": peak,
        "words": len(lexicon),
        "syllables": len(lexicon.syllable_names),
        "edges": len(lexicon.edge_last),
    }))


def _probe(function: str, *args: object) -> dict:
    """Call a probe of this module in a fresh interpreter and read its JSON line."""
    code = f"from noitu.entrypoints.bench import {function}; {function}(*{args!r})"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{function} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def bench_load(runs: int) -> dict:
    """Warm: a start with the built-Lexicon cache filled (every start after the first
    one of a dictionary and a code version). Cold: building from the text."""
    with tempfile.TemporaryDirectory() as cache:
        _probe("_load_probe", False, cache)  # fills the cache
        warm = [_probe("_load_probe", False, cache) for _ in range(runs)]
    cold = [_probe("_load_probe", False) for _ in range(runs)]
    traced = _probe("_load_probe", True)
    result = median_dict(warm)
    result["cold_load_ms"] = median_dict(cold)["load_ms"]
    result["tracemalloc_peak_mb"] = traced["tracemalloc_peak_mb"]
    result["runs"] = runs
    return result


def typed_words(lexicon: Lexicon, count: int = 2000, seed: int = 11) -> dict[str, list[str]]:
    """What players type: dictionary words, other spellings of them (hoà/hòa, lí/lý),
    the same words in capitals with extra spaces, and words not in the dictionary."""
    from noitu.domain.noitu.spelling import word_variants

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


def validate_typed(raw: str, chain: Chain) -> str:
    """The checks of api/move before the bot answers, in PlayMove's and Game.play's
    order: length limits, normalization, syllables, dictionary (with spelling
    variants), link, reuse."""
    if typed_word_too_long(raw):
        return "bad_request"
    typed = normalize(raw)
    if len(syllables(typed)) < MIN_SYLLABLES:
        return "too_few_syllables"
    lexicon = chain.lexicon
    word = lexicon.resolve(typed)
    if word is None:
        return "not_in_dictionary"
    if lexicon.first[word] != chain.current:
        return "wrong_link"
    if word in chain.used:
        return "already_used"
    return "accepted"


def bench_validation(lexicon: Lexicon, runs: int) -> dict:
    typed = typed_words(lexicon)
    chain = _chain_of(lexicon, [lexicon.word_ids[w] for w in typed["exact"][:1]])
    per_kind: dict[str, list[float]] = {kind: [] for kind in typed}
    # Lexicon.resolve alone, on normalized words: dictionary words and other spellings.
    resolve_only = {"exact": typed["exact"], "variant": typed["variant"]}
    per_resolve: dict[str, list[float]] = {kind: [] for kind in resolve_only}
    for _ in range(runs):
        for kind, batch in typed.items():
            started = time.perf_counter_ns()
            for raw in batch:
                validate_typed(raw, chain)
            per_kind[kind].append((time.perf_counter_ns() - started) / len(batch) / 1000)
        for kind, batch in resolve_only.items():
            started = time.perf_counter_ns()
            for word in batch:
                lexicon.resolve(word)
            per_resolve[kind].append((time.perf_counter_ns() - started) / len(batch) / 1000)
    result = {kind: {"us_per_word": median(v), "words": len(typed[kind])} for kind, v in per_kind.items()}
    result["worst_us_per_word"] = max(r["us_per_word"] for r in result.values())
    result["resolve_us"] = {kind: median(v) for kind, v in per_resolve.items()}
    result["runs"] = runs
    return result


def bench_replies(lexicon: Lexicon, positions: Sequence[Position], runs: int) -> dict:
    """Reply time of each difficulty from every position, `runs` times; the figures are
    the medians of the runs' percentiles."""
    chains = [_chain_of(lexicon, p.words) for p in positions]
    kinds = [p.kind for p in positions]
    policies: dict[str, Opponent] = {
        "easy": EasyOpponent(), "medium": MediumOpponent(), "hard": HardOpponent(),
    }
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
                if run == 0 and name == "hard":
                    positions_searched.append(policy.last_search.positions)
            figures = quantiles_us(samples)
            for kind in ("opening", "midgame", "deep"):
                figures[kind] = quantiles_us([s for s, k in zip(samples, kinds) if k == kind])
            per_run[name].append(figures)
            if run == runs // 2:
                samples_of_median_run[name] = samples
            best = best_of_runs[name]
            if best:
                best_of_runs[name] = [min(a, b) for a, b in zip(best, samples)]
            else:
                best_of_runs[name] = samples
    result: dict[str, Any] = {
        name: median_dict(figures) for name, figures in per_run.items()
    }
    for name in policies:
        result[name]["distribution_us"] = distribution_us(samples_of_median_run[name])
        result[name]["best_of_runs"] = quantiles_us(best_of_runs[name])
    positions_searched.sort()
    result["hard"]["positions"] = {
        "mean": statistics.fmean(positions_searched),
        "p99": percentile(positions_searched, 0.99),
        "max": positions_searched[-1],
    }
    result["positions"] = dict(Counter(kinds))
    result["positions"]["total"] = len(positions)
    result["positions"]["mean_words_used"] = statistics.fmean(len(p.words) for p in positions)
    result["runs"] = runs
    return result


def bench_engine(runs: int, quick: bool = False) -> dict:
    from noitu.adapters.dictionary_file import load_lexicon

    report: dict[str, Any] = {"machine": machine()}
    report["load"] = bench_load(runs)
    lexicon = load_lexicon(None)
    report["validation"] = bench_validation(lexicon, runs)
    positions = make_positions(
        lexicon, per_kind=300 if quick else 1000, midgame_games=60 if quick else 250,
        deep_games=15 if quick else 60,
    )
    report["replies"] = bench_replies(lexicon, positions, runs)
    report["machine"]["load_average_after"] = load_average()
    return report


# --- memory --------------------------------------------------------------------------------


class _Clock:
    def __init__(self, now_ms: int) -> None:
        self.now = now_ms

    def now_ms(self) -> int:
        return self.now


def _memory_probe(sessions: int, words: int) -> None:
    """Run in a fresh interpreter: the app of `noitu serve` (without its socket), then
    `sessions` games started through StartGame and played through Game.play (the
    player's words typed as text, so they go through the same checks) until each chain
    holds `words` words. Prints JSON."""
    asyncio.run(_memory(sessions, words))


async def _memory(sessions: int, words: int) -> None:
    from noitu.application.noitu.session import GameMessage, Ticket
    from noitu.application.noitu.start_game import StartGameCommand
    from noitu.entrypoints.container import Container
    from noitu.entrypoints.server import build_app
    from noitu.entrypoints.settings import load_settings

    secret = "b" * 32
    container = Container()
    container.settings.override(
        load_settings({"NOITU_GAME_SECRET": secret, "NOITU_ACCESS_LOG": "0"})
    )
    clock = _Clock(int(time.time() * 1000))
    container.clock.override(clock)
    container.rng.override(random.Random(5))
    lexicon = container.lexicon()
    build_app(container)
    gc.collect()
    before = rss_mb()

    start_game = container.start_game()
    signer = container.token_signer()
    repository = container.sessions()
    survivor = SurvivorPolicy()
    rng = random.Random(9)
    short = retried = 0
    for user in range(1, sessions + 1):
        ticket = Ticket(user, f"P{user}", GameMessage(chat_id=1, message_id=user), clock.now // 1000 + 3600)
        token = signer.issue(ticket)
        for attempt in range(10):
            view = await start_game(StartGameCommand(token=token, difficulty="medium"))
            session = await repository.get(view.session)
            game = session.game
            while len(game.chain) < words and not game.is_over:
                clock.now += 300
                word = survivor.choose(game.chain, rng)
                if word is None:
                    break
                game.play(lexicon.words[word], clock.now, survivor, rng)
            if len(game.chain) >= words and not game.is_over:
                break
            # A game that ended early: drop it and play another for the same user.
            await repository.remove(session.id)
            retried += 1
        short += len(game.chain) < words
    gc.collect()
    after = rss_mb()
    playing = await repository.count_playing()
    chain_words = [len(s.game.chain) for s in [await repository.get(i) for i in await repository.ids()]]
    print(json.dumps({
        "sessions": len(chain_words),
        "playing": playing,
        "short_chains": short,
        "games_replayed": retried,
        "mean_chain_words": statistics.fmean(chain_words),
        "rss_before_sessions_mb": before,
        "rss_mb": after,
        "per_session_kb": (after - before) * 1024 / max(1, len(chain_words)),
    }))


def bench_memory(runs: int, sessions: int = 2000, words: int = 100) -> dict:
    results = [_probe("_memory_probe", sessions, words) for _ in range(runs)]
    result = median_dict(results)
    result["runs"] = runs
    result["machine"] = machine()
    return result


# --- http ------------------------------------------------------------------------------------


@dataclass
class _Sample:
    route: str
    started: float
    latency: float
    status: int
    error: str = ""


@dataclass
class _LoadState:
    window_start: float
    window_end: float
    samples: list[_Sample] = field(default_factory=list)
    rejected: Counter = field(default_factory=Counter)
    games: int = 0
    stop: bool = False


class _RawConnection:
    """A minimal HTTP/1.1 keep-alive client for one player: requests go one at a time,
    so reading a response is a header block and a Content-Length body."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        for attempt in (1, 2):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
            try:
                self.writer.write(
                    b"POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
                    b"Content-Length: %d\r\n\r\n%s"
                    % (path.encode(), self.host.encode(), self.port, len(body), body)
                )
                head = await self.reader.readuntil(b"\r\n\r\n")
                status = int(head[9:12])
                length = 0
                close = chunked = False
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    name = name.strip().lower()
                    if name == b"content-length":
                        length = int(value)
                    elif name == b"connection" and value.strip().lower() == b"close":
                        close = True
                    elif name == b"transfer-encoding" and b"chunked" in value.lower():
                        chunked = True
                if chunked:
                    data = await self._read_chunks()
                else:
                    data = await self.reader.readexactly(length) if length else b""
                if close:
                    await self.close()
                return status, data
            except (ConnectionError, asyncio.IncompleteReadError):
                await self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def _read_chunks(self) -> bytes:
        parts: list[bytes] = []
        while True:
            size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if not size:
                while await self.reader.readuntil(b"\r\n") != b"\r\n":
                    pass  # trailers
                return b"".join(parts)
            parts.append(await self.reader.readexactly(size))
            await self.reader.readexactly(2)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()
        self.reader = self.writer = None


class _HttpxConnection:
    def __init__(self, host: str, port: int) -> None:
        import httpx

        self.client = httpx.AsyncClient(
            base_url=f"http://{host}:{port}", timeout=30.0,
            limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
        )

    async def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        response = await self.client.post(
            path, content=body, headers={"Content-Type": "application/json"}
        )
        return response.status_code, response.content

    async def close(self) -> None:
        await self.client.aclose()


MOVE_INTERVAL_S = 0.300
API = "/games/noitu/api"


async def _player(
    number: int,
    token: str,
    difficulty: str,
    lexicon: Lexicon,
    connection: Any,
    state: _LoadState,
    delay: float,
) -> None:
    """One simulated player: start a game, play it to the end with a word every 300 ms
    (after the previous answer), start the next; at most 10 starts in any minute."""
    import msgspec

    decoder = msgspec.json.Decoder()
    rng = random.Random(number)
    survivor = SurvivorPolicy()
    starts: deque[float] = deque()
    word_ids = lexicon.word_ids
    clock = time.perf_counter
    await asyncio.sleep(delay)

    async def call(route: str, body: dict) -> tuple[int, Any]:
        payload = msgspec.json.encode(body)
        started = clock()
        try:
            status, data = await connection.post(f"{API}/{route}", payload)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            status, data = 0, b""  # counted as "0 connection"
        done = clock()
        try:
            answer = decoder.decode(data) if data else None
        except msgspec.DecodeError:
            answer = None
        error = ""
        if status == 0:
            error = "connection"
        elif status != 200:
            error = answer.get("error", "") if isinstance(answer, dict) else "not JSON"
        if state.window_start <= done <= state.window_end:
            state.samples.append(_Sample(route, started, done - started, status, error))
        return status, answer

    while not state.stop:
        now = clock()
        while starts and now - starts[0] >= 60.0:
            starts.popleft()
        if len(starts) >= 10:
            await asyncio.sleep(60.0 - (now - starts[0]) + 0.05)
            continue
        starts.append(now)
        status, view = await call("start", {"token": token, "difficulty": difficulty})
        if status != 200:
            await asyncio.sleep(1.0)
            continue
        state.games += 1
        chain = Chain(lexicon)
        for link in view["chain"]:
            chain.append(word_ids[link["word"]], Side.BOT, 0)
        session = view["session"]
        playing = view["status"] == "playing"
        while playing and not state.stop:
            await asyncio.sleep(MOVE_INTERVAL_S)
            word = survivor.choose(chain, rng)
            if word is None:
                # A dead end: the player gives up, as the page's "Chịu thua" does.
                await call("give-up", {"session": session})
                break
            status, answer = await call("move", {"session": session, "word": lexicon.words[word]})
            if status == 429:
                continue
            if status != 200:
                break
            result = answer["result"]
            if not result["accepted"]:
                state.rejected[result["reason"]] += 1
                break
            chain.append(word, Side.PLAYER, 0)
            if result["bot_word"]:
                chain.append(word_ids[result["bot_word"]], Side.BOT, 0)
            playing = answer["state"]["status"] == "playing"


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _noitu_executable() -> str:
    beside = Path(sys.executable).with_name("noitu")
    return str(beside) if beside.exists() else "noitu"


def issue_tokens(secret: str, players: int) -> list[str]:
    """`noitu token --user N --chat 1 --message N` for every player, run in-process
    (the same code as the command, without 600 interpreter start-ups)."""
    from noitu.entrypoints import cli

    saved = os.environ.get("NOITU_GAME_SECRET")
    os.environ["NOITU_GAME_SECRET"] = secret
    tokens = []
    try:
        for user in range(1, players + 1):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                cli.main(["token", "--user", str(user), "--chat", "1", "--message", str(user)])
            tokens.append(out.getvalue().strip())
    finally:
        if saved is None:
            os.environ.pop("NOITU_GAME_SECRET", None)
        else:
            os.environ["NOITU_GAME_SECRET"] = saved
    return tokens


@contextlib.contextmanager
def running_server(
    secret: str, extra_env: dict[str, str] | None = None, python: str = "",
):
    """`noitu serve` as the README starts it, on a free loopback port; stopped on exit.
    With `python`, that interpreter runs `-m noitu.entrypoints.cli serve` instead (to
    compare a server environment, e.g. one with uvloop and httptools)."""
    import urllib.request

    port = _free_port()
    env = {
        **os.environ,
        "NOITU_GAME_SECRET": secret,
        "NOITU_PORT": str(port),
        "NOITU_ACCESS_LOG": "0",
        "NOITU_HOST": "127.0.0.1",
        "NOITU_LOG_LEVEL": "WARNING",
        **(extra_env or {}),
    }
    env.pop("TELEGRAM_BOT_TOKEN", None)
    command = [python, "-m", "noitu.entrypoints.cli", "serve"] if python else [_noitu_executable(), "serve"]
    # The server's output goes to a file: a pipe nobody reads would block it when full.
    log = open(os.devnull, "w") if not os.environ.get("NOITU_BENCH_SERVER_LOG") else open(  # noqa: SIM115
        os.environ["NOITU_BENCH_SERVER_LOG"], "w"
    )
    server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while True:
            if server.poll() is not None:
                raise RuntimeError(
                    f"noitu serve exited with {server.returncode}"
                    " (set NOITU_BENCH_SERVER_LOG=<file> to keep its output)"
                )
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("noitu serve did not answer /healthz within 120 s")
            time.sleep(0.2)
        yield server, port
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=5)
        log.close()


async def _load(
    port: int, pid: int, tokens: list[str], difficulty: str, lexicon: Lexicon,
    warmup: float, duration: float, ramp: float, client: str,
) -> dict:
    players = len(tokens)
    begin = time.perf_counter()
    state = _LoadState(begin + warmup, begin + warmup + duration)
    make = _RawConnection if client == "raw" else _HttpxConnection
    connections = [make("127.0.0.1", port) for _ in range(players)]
    tasks = [
        asyncio.create_task(
            _player(i + 1, tokens[i], difficulty, lexicon, connections[i], state, ramp * i / players)
        )
        for i in range(players)
    ]
    await asyncio.sleep(max(0.0, state.window_start - time.perf_counter()))
    cpu_server, cpu_self, wall = cpu_seconds(pid), time.process_time(), time.perf_counter()
    rss_start = rss_mb(pid)
    await asyncio.sleep(max(0.0, state.window_end - time.perf_counter()))
    cpu_server = cpu_seconds(pid) - cpu_server
    cpu_self = time.process_time() - cpu_self
    wall = time.perf_counter() - wall
    rss_end = rss_mb(pid)
    state.stop = True
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for connection in connections:
        with contextlib.suppress(Exception):
            await connection.close()

    routes: dict[str, dict] = {}
    by_route: dict[str, list[_Sample]] = {}
    for sample in state.samples:
        by_route.setdefault(sample.route, []).append(sample)
    errors = Counter(
        f"{s.status} {s.error}".strip() for s in state.samples if s.status != 200
    )
    for route, samples in sorted(by_route.items()):
        latencies = sorted(s.latency * 1000 for s in samples)
        ok = sum(s.status == 200 for s in samples)
        routes[route] = {
            "requests": len(samples),
            "per_s": len(samples) / duration,
            "ok_per_s": ok / duration,
            "p50_ms": percentile(latencies, 0.50),
            "p99_ms": percentile(latencies, 0.99),
            "max_ms": latencies[-1],
        }
    answered = len(state.samples)
    moves = len(by_route.get("move", ()))
    cpu_per_request = cpu_server / answered if answered else 0.0
    return {
        "players": players,
        "difficulty": difficulty,
        "client": client,
        # CPU time the server spent per answered request, and what one core given to it
        # alone would then sustain in moves per second (with this mix of routes): a
        # figure that holds when other processes share the machine.
        "server_cpu_ms_per_request": 1000 * cpu_per_request,
        "one_core_moves_per_s": (moves / answered) / cpu_per_request if cpu_per_request else 0.0,
        "window_s": duration,
        "routes": routes,
        "errors": dict(errors),
        "errors_5xx": sum(n for key, n in errors.items() if key.startswith("5")),
        "rejected_moves": dict(state.rejected),
        "games_started": state.games,
        "server_cpu_percent": 100 * cpu_server / wall,
        "server_rss_mb": rss_end,
        "server_rss_start_mb": rss_start,
        "generator_cpu_percent": 100 * cpu_self / wall,
    }


@contextlib.contextmanager
def store_env(store: str):
    """The environment that selects the session store; for Redis, a throwaway
    `redis-server` on a free loopback port for the duration of the run."""
    if store == "memory":
        yield {}
        return
    import shutil

    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("noitu bench: --store redis needs redis-server (apt-get install redis-server)")
    port = _free_port()
    with tempfile.TemporaryDirectory() as folder:
        redis = subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", folder],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 10
            while True:
                with contextlib.suppress(OSError):
                    with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                        break
                if time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not start")
                time.sleep(0.05)
            yield {"NOITU_STORE": "redis", "REDIS_URL": f"redis://127.0.0.1:{port}/0"}
        finally:
            redis.terminate()
            redis.wait(10)


def bench_http(
    runs: int, players: int, difficulty: str, duration: float, warmup: float, client: str,
    server_python: str = "", store: str = "memory",
) -> dict:
    from noitu.adapters.dictionary_file import load_lexicon

    lexicon = load_lexicon(None)
    secret = secrets.token_hex(32)
    tokens = issue_tokens(secret, players)
    results = []
    for run in range(runs):
        with store_env(store) as env, running_server(
            secret, env, python=server_python
        ) as (server, port):
            result = asyncio.run(
                _load(port, server.pid, tokens, difficulty, lexicon,
                      warmup, duration, min(warmup, 3.0), client)
            )
        results.append(result)
        move = result["routes"].get("move", {})
        print(
            f"noitu bench http: run {run + 1}/{runs}: {move.get('ok_per_s', 0):.0f} moves/s,"
            f" p99 {move.get('p99_ms', 0):.1f} ms, server CPU {result['server_cpu_percent']:.0f} %,"
            f" errors {result['errors']}, load average {load_average()}",
            file=sys.stderr, flush=True,
        )
    merged = median_dict(results)
    merged["per_run"] = results
    merged["errors"] = [r["errors"] for r in results]
    merged["rejected_moves"] = [r["rejected_moves"] for r in results]
    merged["runs"] = runs
    merged["store"] = store
    merged["server"] = f"{server_python} -m noitu.entrypoints.cli serve" if server_python else "noitu serve"
    merged["machine"] = machine()
    return merged


# --- output ----------------------------------------------------------------------------------


def _verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def _row(name: str, value: str, budget: str = "", verdict: str = "") -> str:
    return f"  {name:<44}{value:>22}  {budget:<18}{verdict}"


def format_machine(info: dict) -> str:
    cores = info["cores"]
    text = f"machine: {cores} cores ({info['usable_cores']} usable), {info['cpu']}, Python {info['python']}"
    if info.get("load_average"):
        text += f"; load average {info['load_average']}"
        if info.get("load_average_after"):
            text += f" before, {info['load_average_after']} after"
    return text


def format_engine(report: dict) -> str:
    load, validation, replies = report["load"], report["validation"], report["replies"]
    lines = [
        format_machine(report["machine"]),
        f"medians of {load['runs']} runs (dictionary load: each run in a fresh interpreter)",
        "",
        _row("figure", "value", "budget"),
        _row(
            "dictionary load (shipped, "
            f"{load['words']:,} words)", f"{load['load_ms']:.0f} ms", "≤ 200 ms",
            _verdict(load["load_ms"] <= BUDGET["load_ms"]),
        ),
        _row("  first load (no cache: built from text)", f"{load['cold_load_ms']:.0f} ms"),
        _row("  the bots' indexes, when built", f"{load['bot_indexes_ms']:.1f} ms"),
        _row("  memory: RSS growth", f"{load['rss_delta_mb']:.1f} MB"),
        _row("  memory: tracemalloc peak (1 run)", f"{load['tracemalloc_peak_mb']:.1f} MB"),
    ]
    for kind in ("exact", "variant", "messy", "not_in_dictionary"):
        figure = validation[kind]
        lines.append(
            _row(
                f"move validation, {kind} ({figure['words']} words)",
                f"{figure['us_per_word']:.2f} µs/word", "≤ 10 µs",
                _verdict(figure["us_per_word"] <= BUDGET["validation_us"]),
            )
        )
    for kind, micros in validation.get("resolve_us", {}).items():
        lines.append(
            _row(f"  of which Lexicon.resolve, {kind}", f"{micros:.2f} µs/word", "≤ 5 µs",
                 _verdict(micros <= 5.0))
        )
    positions = replies["positions"]
    lines.append(
        _row(
            f"bot replies from {positions['total']} positions",
            f"{positions.get('opening', 0)}/{positions.get('midgame', 0)}/{positions.get('deep', 0)}",
            "opening/mid/deep",
        )
    )
    for name in DIFFICULTIES:
        r = replies[name]
        budget = BUDGET[f"{name}_p99_us"]
        lines.append(
            _row(
                f"{name} reply p50 / p90 / p99 / max",
                f"{r['p50_us']:.0f} / {r['p90_us']:.0f} / {r['p99_us']:.0f} / {r['max_us']:.0f} µs",
                f"p99 ≤ {budget:,.0f} µs",
                _verdict(r["p99_us"] <= budget),
            )
        )
        for kind in ("opening", "midgame", "deep"):
            k = r[kind]
            lines.append(
                _row(f"  {kind} p50 / p99", f"{k['p50_us']:.0f} / {k['p99_us']:.0f} µs")
            )
        b = r["best_of_runs"]
        lines.append(
            _row(
                "  best of the runs per position: p50/p99/max",
                f"{b['p50_us']:.0f} / {b['p99_us']:.0f} / {b['max_us']:.0f} µs",
            )
        )
    searched = replies["hard"]["positions"]
    lines.append(
        _row(
            "hard positions searched mean / p99 / max",
            f"{searched['mean']:.0f} / {searched['p99']} / {searched['max']}",
            f"≤ {HARD_NODE_LIMIT:,}",
            _verdict(searched["max"] <= HARD_NODE_LIMIT),
        )
    )
    return "\n".join(lines)


def format_memory(report: dict) -> str:
    return "\n".join([
        format_machine(report["machine"]),
        f"medians of {report['runs']} runs, each in a fresh interpreter",
        "",
        _row("figure", "value", "budget"),
        _row(
            f"RSS, {report['sessions']:.0f} sessions × {report['mean_chain_words']:.0f} words",
            f"{report['rss_mb']:.0f} MB", "≤ 300 MB",
            _verdict(report["rss_mb"] <= BUDGET["memory_rss_mb"]),
        ),
        _row("  RSS before the sessions (dictionary, app)", f"{report['rss_before_sessions_mb']:.0f} MB"),
        _row("  per session", f"{report['per_session_kb']:.1f} KB"),
        _row("  sessions still playing / shorter chains", f"{report['playing']:.0f} / {report['short_chains']:.0f}"),
    ])


def format_http(report: dict) -> str:
    lines = [
        format_machine(report["machine"]),
        (f"medians of {report['runs']} runs; {report['players']:.0f} players at "
        f"{report['difficulty']}, a move every ≥ 300 ms after each answer, "
        f"{report['window_s']:.0f} s measured after the warm-up, client: {report['client']};"
        f" server: {report['server']}, store: {report.get('store', 'memory')}"),
        "",
        _row("figure", "value", "budget"),
    ]
    for route, r in report["routes"].items():
        extra_budget, verdict = "", ""
        if route == "move":
            extra_budget = "≥ 1,500/s"
            verdict = _verdict(r["ok_per_s"] >= BUDGET["http_moves_per_s"])
        lines.append(_row(f"api/{route} requests/s (200 only)", f"{r['per_s']:.0f} ({r['ok_per_s']:.0f})", extra_budget, verdict))
        budget = "≤ 100 ms" if route == "move" else ""
        verdict = _verdict(r["p99_ms"] <= BUDGET["http_move_p99_ms"]) if route == "move" else ""
        lines.append(_row(f"api/{route} latency p50 / p99 / max", f"{r['p50_ms']:.1f} / {r['p99_ms']:.1f} / {r['max_ms']:.0f} ms", budget, verdict))
    lines += [
        _row("5xx answers", f"{report['errors_5xx']:.0f}", "0", _verdict(report["errors_5xx"] == 0)),
        _row("errors by code, per run", json.dumps(report["errors"], ensure_ascii=False)[:60]),
        _row("games started", f"{report['games_started']:.0f}"),
        _row("server CPU (of one core)", f"{report['server_cpu_percent']:.0f} %"),
        _row("server CPU per answered request", f"{report['server_cpu_ms_per_request']:.2f} ms"),
        _row("  so one whole core would answer", f"{report['one_core_moves_per_s']:.0f} moves/s"),
        _row("server RSS at the end", f"{report['server_rss_mb']:.0f} MB"),
        _row("load generator CPU (of one core)", f"{report['generator_cpu_percent']:.0f} %"),
    ]
    return "\n".join(lines)


# --- the command ------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(dest="bench", required=True)

    engine = commands.add_parser("engine", help="dictionary load, validation, bot replies")
    engine.add_argument("--runs", type=int, default=5, help="repeated runs (medians)")
    engine.add_argument("--quick", action="store_true", help="fewer positions (a smoke run)")
    engine.add_argument("--json", action="store_true", help="print one JSON object")
    engine.add_argument("--plot", default="", help="also save the reply-time plot (PNG)")
    engine.set_defaults(run=run_engine)

    memory = commands.add_parser("memory", help="RSS with 2,000 sessions of 100 words")
    memory.add_argument("--runs", type=int, default=3)
    memory.add_argument("--sessions", type=int, default=2000)
    memory.add_argument("--words", type=int, default=100)
    memory.add_argument("--json", action="store_true")
    memory.set_defaults(run=run_memory)

    http = commands.add_parser("http", help="load generator against a real server")
    http.add_argument("--runs", type=int, default=3)
    http.add_argument("--players", type=int, default=600)
    http.add_argument("--difficulty", default="medium", choices=DIFFICULTIES)
    http.add_argument("--duration", type=float, default=20.0, help="measured seconds")
    http.add_argument("--warmup", type=float, default=5.0, help="seconds before measuring")
    http.add_argument("--client", default="raw", choices=("raw", "httpx"))
    http.add_argument(
        "--server-python", default="",
        help="run the server with this interpreter (to compare server environments)",
    )
    http.add_argument("--store", default="memory", choices=("memory", "redis"),
                      help="the session store of the server (redis: a throwaway redis-server)")
    http.add_argument("--json", action="store_true")
    http.set_defaults(run=run_http)


def _emit(report: dict, as_json: bool, formatter: Callable[[dict], str]) -> None:
    if as_json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        print(formatter(report))


def run_engine(args: argparse.Namespace) -> None:
    report = bench_engine(max(1, args.runs), quick=args.quick)
    if args.plot:
        _plot_replies(report, args.plot)
    _emit(report, args.json, format_engine)


def _plot_replies(report: dict, path: str) -> None:
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


def run_memory(args: argparse.Namespace) -> None:
    report = bench_memory(max(1, args.runs), args.sessions, args.words)
    _emit(report, args.json, format_memory)


def run_http(args: argparse.Namespace) -> None:
    report = bench_http(
        max(1, args.runs), args.players, args.difficulty, args.duration, args.warmup, args.client,
        args.server_python, args.store,
    )
    _emit(report, args.json, format_http)
