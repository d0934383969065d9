"""The ladder's driver with the real runner, the sandbox and the built-in bots (spec B8):
a pairing is played and rated on idle slots, and a room's match that comes meanwhile
starts at once. The ladder's stores are in memory; matches are shortened by a turn
limit."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path

from noitu.adapters.arena.bubblewrap import BubblewrapLauncher
from noitu.adapters.arena.build import SandboxBuilder
from noitu.adapters.arena.builtin import BuiltinBots
from noitu.adapters.arena.rooms import LoopTimer
from noitu.adapters.arena.sandbox import Sandbox
from noitu.adapters.system_clock import SystemClock
from noitu.application.arena.ports import Language
from noitu.application.arena.records import BotRecord, BuildStatus, new_bot_id
from noitu.domain.arena.ladder.members import Member
from support.arena_bots import BOTS
from support.arena_rooms import Arena, RealParts, builtin, new_owner
from support.ladder import LadderRun, Roster

TURNS = 12


async def test_a_pairing_is_played_and_rated_and_a_room_starts_at_once(
    arena_sandbox: Sandbox, tmp_path: Path
):
    clock = SystemClock()
    real = RealParts(
        clock,
        LoopTimer(clock),
        BubblewrapLauncher(arena_sandbox),
        BuiltinBots(SandboxBuilder(arena_sandbox), tmp_path / "cache"),
    )
    arena = Arena(tmp_path / "data", slots=3, real=real)  # the ladder may hold two slots
    queue, stores, files, rng = arena.queue, arena.stores, arena.files, random.Random(11)

    # a ranked upload that waits half a second a turn, so the pairing's matches hold
    # their slots a while (without racing a busy machine for CPU); its only possible
    # opponent is the built-in `random`
    owner = new_owner()
    thinker_id = new_bot_id(rng)
    thinker = BotRecord(
        id=thinker_id, owner=owner, name="Nghĩ lâu", language=Language.PYTHON,
        public=True, created_ms=clock.now_ms(), source_bytes=1, build=BuildStatus.OK,
        build_messages="", source_file=f"bots/{thinker_id}/source.py",
        artefact_dir=f"bots/{thinker_id}/artefact",
    )
    stores.bots[thinker.id] = thinker
    artefact = files.artefact_path(f"bots/{thinker_id}/artefact")
    artefact.mkdir(parents=True)
    (artefact / "bot.py").write_text((BOTS / "takes_its_time.py").read_text())
    ladder = LadderRun(arena, roster=Roster("random"), turn_limit=TURNS, seed=3)
    ladder.stores.members.by_bot[thinker.id] = Member(thinker.id, owner, thinker.created_ms)

    async with ladder.running():
        await _until(lambda: queue.ladder_playing == 2, 60)
        snapshot = await arena.create(new_owner(), builtin("random"), builtin("tactical"))
        match_id = (await arena.hosted(snapshot.code)).match_id
        assert match_id is not None
        await _until(lambda: stores.matches[match_id].started_ms is not None, 30)
        # the room's match got the third slot while both ladder matches still play
        assert queue.ladder_playing == 2 and queue.playing == 3
        await _until(lambda: len(ladder.closed) >= 1, 120)
    await arena.background.settle(30)

    pairing = ladder.closed[0]
    assert set(pairing.bots) == {thinker.id, "random"}
    assert len(pairing.ends) == 2 and all(end.rated for end in pairing.ends)
    for end in pairing.ends:
        record = stores.matches[end.match_id]
        assert record.seed == pairing.seed and record.turn_limit == TURNS
        assert record.result is not None and record.result.failure is None
        assert record.replay is not None
        assert end.match_id in ladder.stores.results.by_match  # rated, in the history
    for bot in pairing.bots:  # (the next pairing may have begun before the driver stopped)
        assert ladder.standing(bot).games >= 2


async def _until(condition: Callable[[], bool], timeout_s: float) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s")
        await asyncio.sleep(0.01)
