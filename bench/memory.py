"""`noitu bench memory`: the resident memory of a server holding 2,000 live games of 100
words each (the budget: ≤ 300 MB).

Each run is a fresh interpreter that builds what `noitu serve` builds (the container and
the app, without the socket) and plays every game through the use cases, StartGame and
PlayMove, with tokens from the container's signer: the sessions in the store are what
a real server would hold, including the views the use cases keep. Both sides play with
`SurvivorPolicy` (the container is given it as its opponents), so that the games
last; a game that ends early anyway is removed and played again.
"""

from __future__ import annotations

import asyncio
import gc
import json
import random
import statistics
import time

from noitu.bench.machine import (
    BUDGET,
    format_machine,
    machine,
    median_dict,
    probe,
    row,
    rss_mb,
    verdict,
)
from noitu.bench.positions import SurvivorPolicy

MOVE_INTERVAL_MS = 300  # the fastest a player may move (SessionLimits.move_interval_ms)
ATTEMPTS = 10  # games started per player at most: within the 10 starts a minute allowed


class SettableClock:
    """The container's clock, moved on by hand: a game of 100 words takes no 15 s."""

    def __init__(self, now_ms: int) -> None:
        self.now = now_ms

    def now_ms(self) -> int:
        return self.now


def memory_probe(sessions: int, words: int) -> None:
    """Run in a fresh interpreter: the app of `noitu serve`, then `sessions` games, each
    played until its chain holds `words` words. Prints JSON."""
    asyncio.run(_memory(sessions, words))


async def _memory(sessions: int, words: int) -> None:
    from dependency_injector import providers

    from noitu.adapters.log_setup import configure_logging
    from noitu.application.noitu.commands import PlayMoveCommand, StartGameCommand
    from noitu.application.noitu.session import GameMessage, Ticket
    from noitu.domain.noitu.chain import Chain, Side
    from noitu.domain.noitu.opponent import Difficulty
    from noitu.domain.noitu.rules import SessionLimits
    from noitu.entrypoints.app import create_app
    from noitu.entrypoints.container import Container
    from noitu.entrypoints.settings import load_settings

    configure_logging("json", "WARNING")  # on stderr: stdout carries the JSON line
    # The server's container given a clock moved by hand, a seeded random source and
    # bots that play to last (whatever the difficulty), so that games reach their
    # length; everything else is the server's own code. The bots need the container's
    # index, so their table is filled once the index is built, before any game.
    clock = SettableClock(int(time.time() * 1000))
    survivors: dict[Difficulty, SurvivorPolicy] = {}
    container = Container(
        settings=load_settings({
            "NOITU_GAME_SECRET": "b" * 32,
            "NOITU_ACCESS_LOG": "0",
            "NOITU_MAX_SESSIONS": str(max(sessions, SessionLimits().max_playing)),
        }),
        clock=providers.Object(clock),
        rng=providers.Object(random.Random(5)),
        opponents=providers.Object(survivors),
    )
    lexicon = container.lexicon()
    index = container.bot_index()
    for word_id in range(len(lexicon)):  # as `noitu serve` does before freezing its heap
        lexicon.word(word_id)
    survivor = SurvivorPolicy(index)
    survivors.update({difficulty: survivor for difficulty in Difficulty})
    create_app(container)
    gc.collect()
    before = rss_mb()

    start_game = container.start_game()
    play_move = container.play_move()
    units = container.sessions()
    signer = container.token_signer()
    word_ids = lexicon.word_ids
    rng = random.Random(9)
    short = replayed = 0
    for user in range(1, sessions + 1):
        ticket = Ticket(
            user, f"P{user}", GameMessage(chat_id=1, message_id=user), clock.now // 1000 + 3600
        )
        token = signer.issue(ticket)
        chain = Chain(lexicon)
        playing = False
        for attempt in range(ATTEMPTS):
            clock.now += MOVE_INTERVAL_MS
            view = await start_game(StartGameCommand(token=token, difficulty="medium"))
            # The player's own copy of the chain, as the page keeps it, to choose from.
            chain = Chain(lexicon)
            for link in view.chain:
                chain.append(word_ids[link.word], Side.BOT, 0)
            playing = view.status == "playing"
            while playing and len(chain) < words:
                word = survivor.choose(chain, rng)
                if word is None:
                    break
                clock.now += MOVE_INTERVAL_MS
                command = PlayMoveCommand(session=view.session, word=lexicon.words[word])
                answer = await play_move(command)
                if not answer.result.accepted:
                    raise AssertionError(f"a legal word was refused: {answer.result}")
                chain.append(word, Side.PLAYER, 0)
                if answer.result.bot_word:
                    chain.append(word_ids[answer.result.bot_word], Side.BOT, 0)
                playing = answer.state.status == "playing"
            if playing and len(chain) >= words:
                break
            if attempt + 1 < ATTEMPTS:
                # A game that ended (or would end) early: drop it, play another.
                async with units.open(view.session, touch=False) as work:
                    await work.remove()
                replayed += 1
        short += len(chain) < words or not playing
    gc.collect()
    after = rss_mb()
    repository = container.session_repository()
    playing_count = await repository.count_playing()
    stored = [await repository.get(i) for i in await repository.ids()]
    chain_words = [len(s.game.chain) for s in stored if s is not None]
    print(json.dumps({
        "sessions": len(chain_words),
        "playing": playing_count,
        "short_chains": short,
        "games_replayed": replayed,
        "mean_chain_words": statistics.fmean(chain_words) if chain_words else 0.0,
        "rss_before_sessions_mb": before,
        "rss_mb": after,
        "per_session_kb": (after - before) * 1024 / max(1, len(chain_words)),
    }))


def bench_memory(runs: int, sessions: int = 2000, words: int = 100) -> dict:
    results = [probe("memory", "memory_probe", sessions, words) for _ in range(runs)]
    result = median_dict(results)
    result["runs"] = runs
    result["machine"] = machine()
    return result


def format_memory(report: dict) -> str:
    return "\n".join([
        format_machine(report["machine"]),
        f"medians of {report['runs']} runs, each in a fresh interpreter",
        "",
        row("figure", "value", "budget"),
        row(
            f"RSS, {report['sessions']:.0f} sessions × {report['mean_chain_words']:.0f} words",
            f"{report['rss_mb']:.0f} MB", "≤ 300 MB",
            verdict(report["rss_mb"] <= BUDGET["memory_rss_mb"]),
        ),
        row("  RSS before the sessions (dictionary, app)", f"{report['rss_before_sessions_mb']:.0f} MB"),
        row("  per session", f"{report['per_session_kb']:.1f} KB"),
        row(
            "  sessions still playing / shorter chains",
            f"{report['playing']:.0f} / {report['short_chains']:.0f}",
        ),
        row("  games played again (ended early)", f"{report['games_replayed']:.0f}"),
    ])
