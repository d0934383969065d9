"""Which periodic tasks a process runs, by its role and its settings: a web server runs
each enabled part's, a worker its beat and the look for lost matches."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from noitu.domain.noitu.lexicon import Lexicon
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import load_settings

SAQ = {
    "NOITU_ARENA_QUEUE": "saq",
    "NOITU_STORE": "redis",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
    "NOITU_ARENA_DATABASE": "postgresql://noitu@db.internal/noitu",
}
NOITU = ["sessions_sweep", "group_rooms_due", "group_pages_renew", "group_rooms_close"]


def tasks_of(tmp_path: Path, little: Lexicon, worker: bool = False, **env: str) -> list[str]:
    settings = load_settings({"NOITU_GAME_SECRET": "s" * 32, "NOITU_DATA_DIR": str(tmp_path), **env})
    if worker:  # as `noitu arena worker` makes its settings
        settings = dataclasses.replace(
            settings, modules=("arena",), arena_worker=True, arena_matches=2
        )
    container = Container(settings=settings)
    container.lexicon.override(little)
    return container.periodic().names


def test_a_web_server_runs_the_tasks_of_the_parts_it_serves(tmp_path: Path, little: Lexicon):
    assert tasks_of(tmp_path, little) == [*NOITU, "word_additions"]
    assert tasks_of(tmp_path, little, MODULES="arena") == []
    assert tasks_of(tmp_path, little, MODULES="noitu") == [*NOITU, "word_additions"]
    # Several machines: any web server also ends the matches of a worker that died.
    assert tasks_of(tmp_path, little, MODULES="arena", **SAQ) == ["arena_lost_matches"]
    assert tasks_of(tmp_path, little, **SAQ) == [*NOITU, "word_additions", "arena_lost_matches"]


def test_a_worker_beats_and_looks_for_lost_matches_only(tmp_path: Path, little: Lexicon):
    assert tasks_of(tmp_path, little, worker=True, **SAQ) == ["worker_beat", "arena_lost_matches"]
