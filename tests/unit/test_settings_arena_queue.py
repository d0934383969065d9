"""NOITU_ARENA_QUEUE (spec B9): the local queue by default; `saq` only with the shared
Redis and a PostgreSQL arena database, refused otherwise with one line each; the
container picks the adapter from it; a worker's default name is host:pid."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from noitu.adapters.arena.local_jobs import InProcessJobs
from noitu.adapters.arena.saq_jobs import SaqJobRunner, SaqJobs
from noitu.application.arena.jobs import JobKind
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import SettingsError, load_settings

SAQ = {
    "NOITU_ARENA_QUEUE": "saq",
    "NOITU_STORE": "redis",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
    "NOITU_ARENA_DATABASE": "postgresql://noitu@db.internal/noitu",
}


def test_the_local_queue_is_the_default_and_waits_30_s_for_a_worker(tmp_path: Path):
    settings = load_settings({"NOITU_DATA_DIR": str(tmp_path)})
    assert (settings.arena_queue, settings.arena_job_take_s) == ("local", 30.0)


def test_saq_with_redis_and_postgresql_is_accepted():
    settings = load_settings({**SAQ, "NOITU_ARENA_JOB_TAKE_SECONDS": "2.5"})
    assert (settings.arena_queue, settings.arena_job_take_s) == ("saq", 2.5)


@pytest.mark.parametrize(
    ("changes", "needs"),
    [
        ({"NOITU_STORE": "memory"}, "needs NOITU_STORE=redis"),
        ({"NOITU_ARENA_DATABASE": ""}, "needs NOITU_ARENA_DATABASE=postgresql"),
        ({"NOITU_ARENA_DATABASE": "sqlite:////tmp/arena.sqlite3"}, "needs NOITU_ARENA_DATABASE=postgresql"),
        ({"NOITU_ARENA_QUEUE": "celery"}, "NOITU_ARENA_QUEUE='celery': expected one of local, saq"),
        ({"NOITU_ARENA_JOB_TAKE_SECONDS": "0"}, "NOITU_ARENA_JOB_TAKE_SECONDS='0'"),
        ({"NOITU_ARENA_JOB_TAKE_SECONDS": "soon"}, "NOITU_ARENA_JOB_TAKE_SECONDS='soon'"),
    ],
)
def test_saq_without_what_it_needs_refuses_to_start(tmp_path: Path, changes: dict, needs: str):
    env = {**SAQ, "NOITU_DATA_DIR": str(tmp_path), **changes}
    with pytest.raises(SettingsError) as caught:
        load_settings(env)
    assert any(needs in problem for problem in caught.value.problems), caught.value.problems


def test_a_workers_name_is_host_and_process_unless_named():
    assert load_settings(SAQ).worker_instance == f"{socket.gethostname()}:{os.getpid()}"
    assert load_settings({**SAQ, "NOITU_INSTANCE": "builder-7"}).worker_instance == "builder-7"


async def test_the_container_picks_the_queue_from_the_setting(tmp_path: Path):
    local = Container(settings=load_settings({"NOITU_DATA_DIR": str(tmp_path)}))
    local.upload_builder.override(object())  # as if the probe had found a sandbox
    assert isinstance(local.upload_builds(), InProcessJobs)
    local.upload_builder.override(None)  # no sandbox here: nothing builds uploads
    assert local.upload_builds() is None

    saq = Container(settings=load_settings({**SAQ, "NOITU_DATA_DIR": str(tmp_path)}))
    assert isinstance(saq.upload_builds(), SaqJobs)  # no sandbox needed in the web process
    await saq.arena_sandbox_resource.init()  # a web instance's: direct, nothing probed
    try:
        saq.run_build.override(object())  # the worker's sandboxed builds (no probe here)
        runner = saq.job_runner(matches=4, builds=3)
        assert isinstance(runner, SaqJobRunner)
        assert runner.slots == {JobKind.MATCH: 4, JobKind.BUILD: 3}  # each kind its own
        assert saq.job_runner().slots[JobKind.BUILD] == len(os.sched_getaffinity(0))
    finally:
        await saq.arena_sandbox_resource.shutdown()
