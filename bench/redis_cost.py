"""What the Redis session store costs per move, against the in-memory store.

Times the PlayMove use case end to end (the copy it starts from, the move, the bot's reply,
the write) with each repository, on the shipped dictionary, and prints medians.

    .venv/bin/python bench/redis_cost.py                 # starts its own redis-server
    .venv/bin/python bench/redis_cost.py --redis-url redis://127.0.0.1:6379/15
    .venv/bin/python bench/redis_cost.py --samples 20    # a smoke run
    .venv/bin/python bench/redis_cost.py --parts         # CPU of each piece of a write

Each sample is a fresh session (added untimed) whose next move is timed: an accepted
word (the bot answers; easy and medium bots) or a rejected one (no bot: nearly all of
what is left is the store), at the opening and deep into a chain (the Redis store reads
and writes the whole chain on every move). With --redis-url the database is flushed.

With --parts it prints instead this process's CPU time (not wall time: on a shared
machine the waits are the neighbours') for each piece of the Redis store's work on one
session, averaged over many calls: the snapshot's encoding and decoding, the copy a
change starts from, one write (the compare-and-set script) and one full read, and a bare
`GET` as the client's own cost of a round trip.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import random
import secrets
import statistics
import tempfile
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from noitu.adapters.noitu.dictionary_file import load_lexicon
from noitu.adapters.noitu.memory_repository import InMemorySessionRepository
from noitu.adapters.noitu.redis.repository import RedisSessionRepository
from noitu.adapters.redis.client import RedisLink
from noitu.adapters.system_clock import SystemClock
from noitu.application.noitu.commands import PlayMoveCommand
from noitu.application.noitu.play_move import PlayMove
from noitu.application.noitu.ports import SessionRepository
from noitu.application.noitu.session import GameMessage, ReportState, ScoreReport, Session, Ticket
from noitu.application.noitu.unit_of_work import Sessions
from noitu.application.noitu.view import SessionViews
from noitu.bench.redis_server import RedisServer
from noitu.domain.noitu.bots import BotIndex, make_opponents
from noitu.domain.noitu.chain import Side
from noitu.domain.noitu.game import Game
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.opponent import Difficulty, Opponent
from noitu.domain.noitu.rules import SessionLimits, TurnClock


class NoReports:
    async def report(self, user_id: int, score: int, message: GameMessage) -> ScoreReport:
        return ScoreReport(ReportState.OK)


class DropBackground:
    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        work.close()


def long_game(lexicon: Lexicon, turn_clock: TurnClock, difficulty: Difficulty,
              rng: random.Random, now: int, words: int) -> Game:
    """A game whose chain has `words` words (odd: the bot's word is last), each word the
    one that leaves the most replies, so the chain does not run into a dead end."""
    game = Game.start(lexicon, turn_clock, difficulty, rng, now)
    chain = game.chain
    while len(chain) < words:
        side = Side.PLAYER if len(chain) % 2 else Side.BOT
        chain.append(max(chain.legal_words(), key=chain.replies_after), side, 0)
    return game


async def measure(repository: SessionRepository, lexicon: Lexicon,
                  opponents: dict[Difficulty, Opponent], difficulty: Difficulty, accepted: bool,
                  samples: int, seed: int, words: int = 1) -> list[float]:
    clock = SystemClock()
    rng = random.Random(seed)
    turn_clock = TurnClock()
    limits = SessionLimits(max_playing=10**9)
    sessions = Sessions(repository, NoReports(), DropBackground(), clock)
    play = PlayMove(sessions, SessionViews(), opponents, limits, rng)
    timings: list[float] = []
    for i in range(samples):
        now = clock.now_ms()
        session = Session(
            id=secrets.token_hex(16),
            ticket=Ticket(user_id=1 + i, first_name="", message=GameMessage(chat_id=1, message_id=i + 1),
                          expires_at=now // 1000 + 3600),
            game=long_game(lexicon, turn_clock, difficulty, rng, now, words),
            created_ms=now,
            last_active_ms=now,
        )
        session.game.deadline_ms = clock.now_ms() + turn_clock.turn_ms  # building may take a while
        await repository.add(session, limits.max_playing)  # untimed: the store keeps a copy
        if accepted:
            word = lexicon.words[next(session.game.chain.legal_words())]
        else:
            word = "không có từ này"
        started = time.perf_counter()
        result = await play(PlayMoveCommand(session=session.id, word=word))
        timings.append((time.perf_counter() - started) * 1000)
        assert result.result.accepted is accepted, result.result
    return timings


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis-url", default="")
    parser.add_argument("--samples", type=int, default=400,
                        help="timed moves per case and store (at least 2; 20 for a smoke run)")
    parser.add_argument("--parts", action="store_true",
                        help="the CPU of each piece of a Redis write instead")
    args = parser.parse_args()
    if args.samples < 2:
        parser.error("--samples must be at least 2")

    with contextlib.ExitStack() as stack:
        url = args.redis_url
        if not url:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="noitu-bench-redis-"))
            url = stack.enter_context(RedisServer(Path(folder))).url
        await (parts(url, args.samples) if args.parts else compare(url, args.samples))


def _cpu_us(started: float, calls: int) -> float:
    return (time.process_time() - started) / calls * 1e6


async def _pieces(repository: RedisSessionRepository, link: RedisLink, session: Session,
                  calls: int) -> tuple[bytes, list[float]]:
    codec = repository._codec  # the adapter's own codec: the piece measured
    data = codec.encode(session)
    figures = []
    for piece in (lambda: codec.encode(session), lambda: codec.decode(session.id, data, 1),
                  session.copy):
        started = time.process_time()
        for _ in range(calls):
            piece()
        figures.append(_cpu_us(started, calls))
    current = await repository.recent(session.id)
    assert current is not None
    for write in (lambda: repository.save(current), lambda: repository.get(session.id),
                  lambda: link.run(link.client.get("absent"))):
        started = time.process_time()
        for _ in range(calls):
            await write()
        figures.append(_cpu_us(started, calls))
    return data, figures


async def parts(url: str, calls: int) -> None:
    lexicon = load_lexicon(None)
    link = RedisLink.from_url(url)
    clock = SystemClock()
    repository = RedisSessionRepository(link, lexicon, TurnClock(), SessionLimits(), clock)
    calls = max(calls, 2) * 5
    print(f"CPU per call in this process, µs ({calls} calls each); python"
          f" {platform.python_version()}, cores: {os.cpu_count()},"
          f" load average: {os.getloadavg()[0]:.2f}")
    print(f"{'chain':>6}{'bytes':>7}{'encode':>8}{'decode':>8}{'copy':>7}"
          f"{'save':>8}{'read':>8}{'GET':>7}")
    try:
        await link.client.flushdb()
        for words in (11, 101, 251):
            now = clock.now_ms()
            session = Session(
                id=secrets.token_hex(16),
                ticket=Ticket(user_id=1, first_name="", message=GameMessage(chat_id=1, message_id=1),
                              expires_at=now // 1000 + 3600),
                game=long_game(lexicon, TurnClock(), Difficulty.MEDIUM, random.Random(words), now,
                               words),
                created_ms=now,
                last_active_ms=now,
            )
            await repository.add(session, 10**9)
            data, figures = await _pieces(repository, link, session, calls)
            print(f"{words:>6}{len(data):>7}" + "".join(
                f"{figure:>{width}.0f}" for figure, width in zip(figures, (8, 8, 7, 8, 8, 7))
            ))
        await link.client.flushdb()
    finally:
        await link.aclose()


async def compare(url: str, samples: int) -> None:
    lexicon = load_lexicon(None)
    opponents = make_opponents(BotIndex(lexicon))
    link = RedisLink.from_url(url)
    try:
        await link.client.flushdb()
        stores = {
            "memory": lambda: InMemorySessionRepository(),
            "redis": lambda: RedisSessionRepository(
                link, lexicon, TurnClock(), SessionLimits(), SystemClock()
            ),
        }
        affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
        print(f"cores: {os.cpu_count()} (usable: {affinity}); python {platform.python_version()};"
              f" dictionary: {len(lexicon)} words; {samples} samples each")
        print(f"{'move':<22}{'memory ms':>12}{'redis ms':>12}{'extra ms':>12}{'p90 redis':>12}")
        cases = [
            ("rejected (no bot)", Difficulty.MEDIUM, False, 1),
            ("accepted, easy bot", Difficulty.EASY, True, 1),
            ("accepted, medium bot", Difficulty.MEDIUM, True, 1),
            ("medium, 101-word chain", Difficulty.MEDIUM, True, 101),
            ("medium, 251-word chain", Difficulty.MEDIUM, True, 251),
        ]
        for name, difficulty, accepted, words in cases:
            medians = {}
            p90 = 0.0
            for store, make in stores.items():
                warm_up = min(30, samples)
                await measure(make(), lexicon, opponents, difficulty, accepted, warm_up, 1, words)
                timings = await measure(
                    make(), lexicon, opponents, difficulty, accepted, samples, 2, words
                )
                medians[store] = statistics.median(timings)
                if store == "redis":
                    p90 = statistics.quantiles(timings, n=10)[-1]
            print(f"{name:<22}{medians['memory']:>12.3f}{medians['redis']:>12.3f}"
                  f"{medians['redis'] - medians['memory']:>12.3f}{p90:>12.3f}")
        await link.client.flushdb()
    finally:
        await link.aclose()


if __name__ == "__main__":
    asyncio.run(main())
