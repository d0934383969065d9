"""The container's Resources and the runner they decide, on a real data directory:
what opens with `init_resources()`, what closes with `shutdown_resources()`, and which
runner and upload builder the process's role, the settings and the probe give."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from noitu.adapters.arena.bubblewrap import BubblewrapLauncher
from noitu.adapters.arena.build import DirectBuilder, SandboxBuilder
from noitu.adapters.arena.builtin import BuiltinBots
from noitu.adapters.arena.direct import DirectLauncher
from noitu.adapters.arena.sql.engine import SQLITE_FILE
from noitu.adapters.periodic import Periodic, PeriodicTask
from noitu.application.arena.ladder.errors import LadderBusy
from noitu.application.arena.ladder.rebuild_ladder import RebuildLadderCommand
from noitu.application.arena.ports import SandboxStatus
from noitu.entrypoints.container import Container
from noitu.entrypoints.containers.runners import RunnersNotChosen
from noitu.entrypoints.role import WEB, Role
from noitu.entrypoints.settings import load_settings

#: Several machines (B9): the arena's jobs on workers.
SAQ = {
    "NOITU_ARENA_QUEUE": "saq",
    "NOITU_STORE": "redis",
    "REDIS_URL": "redis://127.0.0.1:1/0",
    "NOITU_ARENA_DATABASE": "postgresql://noitu@db.internal/noitu",
}


class FakeCgroups:
    def __init__(self) -> None:
        self.swept = 0

    def remove_empty(self) -> int:
        self.swept += 1
        return 0


class FakeSandbox:
    def __init__(self) -> None:
        self.cgroups = FakeCgroups()
        self.tools = object()  # what a builder keeps; never used to build here
        self.closed = False

    def close(self) -> None:
        self.closed = True


class FakeProbe:
    """A probe that finds (or not) a sandbox, and counts how often it was asked."""

    def __init__(self, available: bool) -> None:
        self.sandbox = FakeSandbox() if available else None
        self.status: SandboxStatus | None = None
        self.probes = 0

    async def probe(self) -> SandboxStatus:
        self.probes += 1
        self.status = SandboxStatus(self.sandbox is not None, "a test's probe")
        return self.status

    def make_sandbox(self) -> FakeSandbox:
        if self.sandbox is None:
            raise RuntimeError("probe() did not find a usable sandbox")
        return self.sandbox


def container_for(data_dir: Path, probe: FakeProbe, role: Role = WEB, **env: str) -> Container:
    settings = load_settings({"NOITU_ACCESS_LOG": "0", "NOITU_DATA_DIR": str(data_dir), **env})
    container = Container(settings=settings, role=role)
    container.arena_probe.override(probe)
    return container


async def test_before_the_probe_nothing_can_run_or_build_a_bot(tmp_path: Path) -> None:
    container = container_for(tmp_path / "data", FakeProbe(available=True))
    # Not a guess that a later probe would contradict: whatever is built too early
    # (a Singleton keeping its launcher or its upload builder) fails, and says why.
    for needs_a_runner in (
        container.arena_launcher, container.arena_builder, container.upload_builder,
        container.run_match, container.builtin_bots, container.start_match,
    ):
        with pytest.raises(RunnersNotChosen, match="sandbox's Resource opens"):
            needs_a_runner()


@pytest.mark.parametrize("available", [True, False])
async def test_what_needs_the_launcher_gets_what_the_probe_found(
    tmp_path: Path, available: bool
) -> None:
    probe = FakeProbe(available=available)
    container = container_for(tmp_path / "data", probe)
    await container.init_resources()
    try:
        assert probe.probes == 1
        assert container.arena_runners().kind == ("sandbox" if available else "direct")
        # Built now, the match runners take the launcher the probe's Resource chose.
        launcher = container.arena_launcher()
        assert container.run_match()._launcher is launcher
        assert container.room_run_match()._launcher is launcher
        if available:
            assert isinstance(launcher, BubblewrapLauncher) and launcher.sandbox is probe.sandbox
            assert isinstance(container.arena_builder(), SandboxBuilder)
        else:
            assert isinstance(launcher, DirectLauncher)
            assert isinstance(container.arena_builder(), DirectBuilder)
            assert container.upload_builder() is None  # uploads are built only sandboxed
    finally:
        await container.shutdown_resources()


async def test_a_found_sandbox_runs_uploads_and_is_closed_at_shutdown(tmp_path: Path) -> None:
    probe = FakeProbe(available=True)
    container = container_for(tmp_path / "data", probe)
    await container.init_resources()
    assert probe.probes == 1
    builder = container.upload_builder()
    assert isinstance(builder, SandboxBuilder) and builder.sandbox is probe.sandbox
    recovered = await container.recover_at_start()()
    assert recovered.stale_cgroups == 0 and probe.sandbox is not None
    assert probe.sandbox.cgroups.swept == 1  # the sandbox's own cgroups were swept
    await container.shutdown_resources()
    assert probe.sandbox.closed


async def test_the_no_sandbox_cli_runs_directly_without_a_probe(tmp_path: Path) -> None:
    probe = FakeProbe(available=True)
    container = container_for(tmp_path / "data", probe, Role.cli(no_sandbox=True))
    await container.init_resources()
    try:
        assert probe.probes == 0
        assert container.arena_runners().kind == "direct"
        assert container.arena_sandbox_status() is None
        assert container.upload_builder() is None
    finally:
        await container.shutdown_resources()


@pytest.mark.parametrize(
    ("role", "probed"), [(WEB, False), (Role.worker(2), True), (Role.cli(), True)]
)
async def test_with_jobs_on_workers_only_workers_and_the_cli_probe(
    tmp_path: Path, role: Role, probed: bool
) -> None:
    probe = FakeProbe(available=True)
    container = container_for(tmp_path / "data", probe, role, **SAQ)
    await container.arena_sandbox_resource.init()
    try:
        assert probe.probes == (1 if probed else 0)
        # A web instance plays and builds nothing (B9): its workers do.
        assert container.arena_runners().kind == ("sandbox" if probed else "direct")
    finally:
        await container.arena_sandbox_resource.shutdown()


async def test_the_database_opens_migrated_only_when_the_arena_runs(tmp_path: Path) -> None:
    arena = container_for(tmp_path / "arena", FakeProbe(available=False))
    await arena.init_resources()
    try:
        assert await arena.arena_repository().live_matches() == []  # its tables exist
    finally:
        await arena.shutdown_resources()
    assert (tmp_path / "arena" / SQLITE_FILE).exists()

    probe = FakeProbe(available=True)
    noitu = container_for(tmp_path / "noitu", probe, MODULES="noitu")
    await noitu.init_resources()
    await noitu.shutdown_resources()
    assert probe.probes == 0
    assert not (tmp_path / "noitu" / SQLITE_FILE).exists()


async def test_the_ladder_is_stored_in_the_arena_database(tmp_path: Path) -> None:
    arena = container_for(tmp_path, FakeProbe(available=False))
    await arena.init_resources()
    try:
        table = await arena.show_ladder()()
        # The built-ins, members from the start, at the first rating; nothing played yet.
        assert sorted(row.bot for row in table) == sorted(BuiltinBots.names())
        assert all(row.games == 0 for row in table)
        lease, now_ms = arena.ladder_lease(), arena.clock().now_ms()
        assert await lease.acquire("scheduler", now_ms, 60_000)
        with pytest.raises(LadderBusy):  # the rebuild takes the scheduler's lease
            await arena.rebuild_ladder()(RebuildLadderCommand("rebuild"))
        await lease.release("scheduler")
        rebuilt = await arena.rebuild_ladder()(RebuildLadderCommand("rebuild"))
        assert rebuilt.table == table and rebuilt.results == 0
    finally:
        await arena.shutdown_resources()


class Closing:
    """A connection or feed that notes in `log` when it has closed, after `takes_s`
    (a feed closing slowly: a link closed alongside it would be noted first)."""

    def __init__(self, name: str, log: list[str], takes_s: float = 0.0) -> None:
        self.name = name
        self.log = log
        self.takes_s = takes_s

    async def aclose(self) -> None:
        await asyncio.sleep(self.takes_s)
        self.log.append(self.name)

    async def stop(self) -> None:
        await self.aclose()


async def test_with_redis_the_feeds_close_before_the_link(tmp_path: Path) -> None:
    closed: list[str] = []
    container = container_for(
        tmp_path / "data", FakeProbe(available=False),
        NOITU_STORE="redis", REDIS_URL="redis://127.0.0.1:1/0",
    )
    container.redis.override(Closing("link", closed))
    container.group_feed_on_redis.override(Closing("group feed", closed, takes_s=0.05))
    container.room_feed.override(Closing("room feed", closed, takes_s=0.05))
    container.periodic.override(Periodic([]))  # the periodic tasks: the next test
    await container.init_resources()
    assert closed == []
    await container.shutdown_resources()
    assert sorted(closed[:2]) == ["group feed", "room feed"]
    assert closed[2:] == ["link"]


async def test_the_periodic_tasks_run_from_the_start_and_stop_before_what_they_use(
    tmp_path: Path,
) -> None:
    closed: list[str] = []
    container = container_for(
        tmp_path / "data", FakeProbe(available=False),
        NOITU_STORE="redis", REDIS_URL="redis://127.0.0.1:1/0",
    )
    container.redis.override(Closing("link", closed))
    container.group_feed_on_redis.override(Closing("group feed", closed))
    container.room_feed.override(Closing("room feed", closed))
    running = asyncio.Event()

    async def write_through_the_link() -> None:  # a run in progress when the stop comes
        running.set()
        try:
            await asyncio.Event().wait()
        finally:
            closed.append("periodic task")

    container.periodic.override(
        Periodic([PeriodicTask("writes", 60.0, write_through_the_link, first_s=0.0)])
    )
    await container.init_resources()
    await asyncio.wait_for(running.wait(), 5.0)
    assert container.periodic().running == ["writes"]
    await container.shutdown_resources()
    assert container.periodic().running == []
    assert closed.index("periodic task") < closed.index("room feed") < closed.index("link")
