"""More matches than slots, every bot using most of its 2 s: through the queue, no bot
loses on time (the promise of 0.5 CPU per thinking bot kept under load)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from noitu.adapters.arena.bubblewrap import BubblewrapLauncher
from noitu.adapters.arena.sandbox import Sandbox
from noitu.application.arena.match_queue import MatchQueue, default_slots
from noitu.application.arena.ports import Artefact, Language
from noitu.application.arena.replay import Player, SeatKind
from noitu.application.arena.run_match import BotSeat, MatchCommand, RunMatch
from noitu.domain.arena.board import Side
from support.arena_bots import BOTS

MATCHES = 5
TURNS = 4


class Discard:
    def record(self, event) -> None:
        return None


@pytest.mark.serial
async def test_queued_matches_of_heavy_thinkers_never_time_out(arena_sandbox: Sandbox, tmp_path: Path):
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text((BOTS / "thinks_hard.py").read_text())
    bot = Artefact(Language.PYTHON, folder)
    slots = default_slots(os.cpu_count() or 1)
    assert MATCHES > slots
    queue = MatchQueue(slots)
    run = RunMatch(BubblewrapLauncher(arena_sandbox))
    most = 0

    async def one(index: int):
        nonlocal most
        seats = (
            BotSeat(Player(Side.P1, "a", SeatKind.UPLOAD), bot),
            BotSeat(Player(Side.P2, "b", SeatKind.UPLOAD), bot),
        )
        async with queue.slot(f"LOAD{index:04d}"):
            most = max(most, queue.playing)
            return await run(MatchCommand(f"LOAD{index:04d}", index, seats, TURNS), Discard())

    outcomes = await asyncio.gather(*(one(i) for i in range(MATCHES)))
    assert most == slots
    for outcome in outcomes:
        assert outcome.result.failure is None, outcome.result
        assert (outcome.result.reason.value, outcome.result.turns) == ("TURN_LIMIT", TURNS)
