"""Which periodic tasks a process runs, by its role and its settings: a web server runs
each enabled part's, a worker its beat and the look for lost matches, a CLI command
none. The retention sweep's run itself is tested in tests/integration/arena/
test_replay_retention.py."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from noitu.adapters.arena.room_board import InMemoryRoomBoard
from noitu.application.arena.jobs import JobKind
from noitu.domain.noitu.lexicon import Lexicon
from noitu.entrypoints.container import Container
from noitu.entrypoints.role import WEB, Role
from noitu.entrypoints.settings import load_settings
from support.arena_store import NoSandbox

SAQ = {
    "NOITU_ARENA_QUEUE": "saq",
    "NOITU_STORE": "redis",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
    "NOITU_ARENA_DATABASE": "postgresql://noitu@db.internal/noitu",
}
NOITU = ["sessions_sweep", "group_rooms_due", "group_pages_renew", "group_rooms_close"]


def tasks_of(tmp_path: Path, little: Lexicon, role: Role = WEB, **env: str) -> list[str]:
    settings = load_settings({"NOITU_GAME_SECRET": "s" * 32, "NOITU_DATA_DIR": str(tmp_path), **env})
    if role.kind == "worker":  # as `noitu arena worker` makes its settings
        settings = dataclasses.replace(settings, modules=("arena",))
    container = Container(settings=settings, role=role)
    container.lexicon.override(little)
    return container.periodic().names


def test_a_web_server_runs_the_tasks_of_the_parts_it_serves(tmp_path: Path, little: Lexicon):
    # One machine: the arena's board pass, the retention sweep (B14), and this process's
    # beat as the matches' host.
    hosting = ["arena_lost_matches", "replay_sweep", "worker_beat"]
    assert tasks_of(tmp_path, little) == [*NOITU, "word_additions", *hosting]
    assert tasks_of(tmp_path, little, MODULES="arena") == hosting
    assert tasks_of(tmp_path, little, MODULES="noitu") == [*NOITU, "word_additions"]
    # Several machines: any web server also ends the matches of a worker that died, and
    # sweeps (its lease makes one sweep at a time); workers leave the sweep to them.
    arena = ["arena_lost_matches", "replay_sweep"]
    assert tasks_of(tmp_path, little, MODULES="arena", **SAQ) == arena
    assert tasks_of(tmp_path, little, **SAQ) == [*NOITU, "word_additions", *arena]


def test_a_worker_beats_and_looks_for_lost_matches_only(tmp_path: Path, little: Lexicon):
    worker = Role.worker(matches=2)
    assert tasks_of(tmp_path, little, worker, **SAQ) == ["worker_beat", "arena_lost_matches"]


def test_a_cli_command_runs_no_periodic_task(tmp_path: Path, little: Lexicon):
    assert tasks_of(tmp_path, little, Role.cli()) == []
    assert tasks_of(tmp_path, little, Role.cli(), **SAQ) == []


async def test_a_workers_beat_says_the_matches_its_role_plays(tmp_path: Path, little: Lexicon):
    settings = load_settings({**SAQ, "NOITU_DATA_DIR": str(tmp_path), "NOITU_INSTANCE": "w-1"})
    settings = dataclasses.replace(settings, modules=("arena",), instance=settings.worker_instance)
    container = Container(settings=settings, role=Role.worker(matches=3))
    board = InMemoryRoomBoard(container.clock())
    container.room_board.override(board)
    container.arena_probe.override(NoSandbox())
    await container.arena_sandbox_resource.init()  # the runner's parts need the probe's choice
    try:
        # The same number wherever the worker says it: its queue, its runner, its beat.
        assert container.match_queue().slots == 3
        assert container.job_runner().slots[JobKind.MATCH] == 3
        (beat,) = [task for task in container.periodic().tasks if task.name == "worker_beat"]
        await beat.run()
        assert await board.alive("w-1") and await board.match_slots() == 3
    finally:
        await container.arena_sandbox_resource.shutdown()
