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
from noitu.adapters.arena.files import DataDirFiles
from noitu.adapters.arena.rooms import InMemoryRoomFeed, InMemoryRoomRegistry, LoopTimer
from noitu.adapters.arena.sandbox import Sandbox
from noitu.adapters.system_clock import SystemClock
from noitu.application.arena.match_queue import MatchQueue
from noitu.application.arena.ports import Language
from noitu.application.arena.records import BotRecord, BuildStatus, new_bot_id
from noitu.application.arena.rooms.create_room import CreateRoom, CreateRoomCommand
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.seating import Seating
from noitu.application.arena.rooms.start_match import StartMatch
from noitu.application.arena.run_match import RunMatch
from noitu.domain.arena.ladder.members import Member
from support.arena_bots import BOTS
from support.arena_rooms import MemoryStores, builtin, new_owner
from support.fakes import CollectingBackground
from support.ladder import LadderRun, Roster

TURNS = 12


async def test_a_pairing_is_played_and_rated_and_a_room_starts_at_once(
    arena_sandbox: Sandbox, tmp_path: Path
):
    clock = SystemClock()
    timer = LoopTimer(clock)
    background = CollectingBackground()
    queue = MatchQueue(3)  # the ladder may hold two slots
    host = RoomHost(InMemoryRoomRegistry(), InMemoryRoomFeed(), queue, clock, background)
    stores = MemoryStores()
    files = DataDirFiles(tmp_path / "data")
    builtins = BuiltinBots(SandboxBuilder(arena_sandbox), tmp_path / "cache")
    rng = random.Random(11)
    start = StartMatch(
        host, stores, files, stores, builtins,
        RunMatch(BubblewrapLauncher(arena_sandbox), timer=timer), timer, rng,
    )
    create_room = CreateRoom(host, Seating(stores, builtins), start, rng)

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
    ladder = LadderRun(
        host, start, stores, timer, clock, roster=Roster("random"), turn_limit=TURNS, seed=3
    )
    ladder.stores.members.by_bot[thinker.id] = Member(thinker.id, owner, thinker.created_ms)

    async with ladder.running():
        await _until(lambda: queue.ladder_playing == 2, 60)
        snapshot = await create_room(
            CreateRoomCommand(new_owner(), builtin("random"), builtin("tactical"))
        )
        room = host.room(snapshot.code)
        assert room.match_id is not None
        await _until(lambda: stores.matches[room.match_id].started_ms is not None, 30)
        # the room's match got the third slot while both ladder matches still play
        assert queue.ladder_playing == 2 and queue.place(room.match_id) is None
        await _until(lambda: len(ladder.closed) >= 1, 120)
    await background.settle(30)

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
