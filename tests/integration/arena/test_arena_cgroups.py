"""Per-bot cgroups, real (v1 on this machine; v2 where its controllers exist), their
discovery from /proc, and the reasons the sandbox probe gives."""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from noitu.adapters.arena.bubblewrap import describe_bwrap_failure
from noitu.adapters.arena.cgroups.limits import BOT_LIMITS, MIB, CgroupLimits
from noitu.adapters.arena.cgroups.mounts import find_cgroups
from noitu.adapters.arena.cgroups.tree import CgroupError, CgroupTree
from noitu.adapters.arena.cgroups.v1 import CgroupV1Tree
from noitu.adapters.arena.cgroups.v2 import CgroupV2Tree
from noitu.adapters.arena.process_tree import joined
from support.arena_bots import probe_now
from support.owned import own_parent

SMALL = CgroupLimits(memory_bytes=64 * MIB, cpu_quota_us=50_000, cpu_period_us=100_000, pids_max=8)


def _what_this_machine_has() -> str:
    try:
        membership = Path("/proc/self/cgroup").read_text().strip().replace("\n", "; ")
    except OSError:
        membership = "unreadable /proc/self/cgroup"
    return membership


@pytest.fixture(params=["v1", "v2"])
def tree(request: pytest.FixtureRequest) -> CgroupTree:
    try:
        return find_cgroups(prefer=request.param)
    except CgroupError as error:
        if request.param == "v2":
            pytest.skip(
                f"cgroup v2 cannot be tested here: {error}; this machine uses cgroup v1 "
                f"(/proc/self/cgroup: {_what_this_machine_has()})"
            )
        if os.environ.get("CI"):
            pytest.fail(f"CI must test cgroup v1: {error}")
        pytest.skip(str(error))


async def _run_in(cgroup, *command: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        *joined(cgroup.procs_files, list(command)),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def test_a_cgroup_is_made_below_the_servers_own_with_the_limits(tree: CgroupTree) -> None:
    own = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _number, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") or [""]:
            own[controller or "unified"] = path
    cgroup = tree.create("test", BOT_LIMITS)
    try:
        if isinstance(tree, CgroupV1Tree):
            memory, cpu, pids = cgroup.directories
            assert str(memory.parent).endswith(own["memory"].rstrip("/")) or own["memory"] == "/"
            assert (memory / "memory.limit_in_bytes").read_text().strip() == str(384 * MIB)
            tcp = memory / "memory.kmem.tcp.limit_in_bytes"
            if tcp.exists():  # v1 charges socket buffers only with it (kernel surface, B2)
                assert tcp.read_text().strip() == str(384 * MIB)
            assert (cpu / "cpu.cfs_quota_us").read_text().strip() == "50000"
            assert (cpu / "cpu.cfs_period_us").read_text().strip() == "100000"
            assert (pids / "pids.max").read_text().strip() == "64"
        else:
            (directory,) = cgroup.directories
            assert str(directory.parent).endswith(own["unified"].rstrip("/")) or own["unified"] == "/"
            assert (directory / "memory.max").read_text().strip() == str(384 * MIB)
            assert (directory / "cpu.max").read_text().strip() == "50000 100000"
            assert (directory / "pids.max").read_text().strip() == "64"
        process = await _run_in(cgroup, "/bin/sleep", "30")
        await asyncio.sleep(0.1)
        assert cgroup.pids() == {process.pid}
        assert await cgroup.kill_all()
        await process.wait()
        assert process.returncode == -9
        assert cgroup.pids() == set()
    finally:
        assert await cgroup.remove()
    assert not any(d.exists() for d in cgroup.directories)


async def test_a_memory_kill_moves_the_oom_counter(tree: CgroupTree) -> None:
    cgroup = tree.create("test", SMALL)
    try:
        assert cgroup.oom_kills() == 0
        hog = await _run_in(cgroup, "/usr/bin/python3", "-c", "x = [bytearray(1 << 20) for _ in range(200)]")
        await hog.wait()
        assert hog.returncode == -9
        assert cgroup.oom_kills() >= 1
    finally:
        await cgroup.kill_all()
        assert await cgroup.remove()


async def test_forks_past_pids_max_fail_and_are_counted(tree: CgroupTree) -> None:
    cgroup = tree.create("test", SMALL)
    try:
        shell = await _run_in(cgroup, "/bin/sh", "-c", "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do sleep 5 & done; wait")
        await asyncio.sleep(0.5)
        assert len(cgroup.pids()) <= 8
        assert cgroup.pids_limit_hits() >= 1
    finally:
        await cgroup.kill_all()
        await shell.wait()
        assert await cgroup.remove()


# ---------------------------------------------------------------- v2 logic on a fake tree


def _fake_v2(root: Path) -> Path:
    base = root / "srv"
    base.mkdir(parents=True)
    (base / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (base / "cgroup.subtree_control").write_text("")
    (base / "cgroup.procs").write_text("")
    return base


async def test_v2_writes_its_limits_and_reads_its_counters(tmp_path: Path) -> None:
    base = _fake_v2(tmp_path)
    tree = CgroupV2Tree(base)
    cgroup = tree.create("bot", BOT_LIMITS)
    (directory,) = cgroup.directories
    assert directory.parent == base and directory.name.startswith("noitu-bot-")
    assert (base / "cgroup.subtree_control").read_text() == "+memory +cpu +pids"
    assert (directory / "memory.max").read_text() == str(384 * MIB)
    assert (directory / "memory.swap.max").read_text() == "0"
    assert (directory / "memory.oom.group").read_text() == "1"
    assert (directory / "cpu.max").read_text() == "50000 100000"
    assert (directory / "pids.max").read_text() == "64"
    assert cgroup.procs_files == (directory / "cgroup.procs",)
    (directory / "memory.events").write_text("low 0\nhigh 0\nmax 7\noom 2\noom_kill 1\noom_group_kill 0\n")
    (directory / "pids.events").write_text("max 3\n")
    assert cgroup.oom_kills() == 1
    assert cgroup.pids_limit_hits() == 3
    (directory / "cgroup.procs").write_text("")
    assert await cgroup.kill_all()
    assert (directory / "cgroup.kill").read_text() == "1"


def test_v2_without_delegated_controllers_says_so(tmp_path: Path) -> None:
    base = _fake_v2(tmp_path)
    (base / "cgroup.controllers").write_text("cpuset io\n")
    with pytest.raises(CgroupError, match="does not offer memory, cpu, pids"):
        CgroupV2Tree(base).create("bot", BOT_LIMITS)


def _fake_proc(root: Path, cgroup: str, mountinfo: str) -> Path:
    (root / "self").mkdir(parents=True)
    (root / "self" / "cgroup").write_text(cgroup)
    (root / "self" / "mountinfo").write_text(mountinfo)
    return root


def test_discovery_finds_v2_below_the_servers_own_cgroup(tmp_path: Path) -> None:
    mount = tmp_path / "unified"
    base = _fake_v2(mount / "system.slice" / "noitu.service")
    proc = _fake_proc(
        tmp_path / "proc",
        "0::/system.slice/noitu.service/srv\n",
        f"30 23 0:26 / {mount} rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n",
    )
    tree = find_cgroups(proc)
    assert isinstance(tree, CgroupV2Tree) and tree.base == base


def test_discovery_finds_v1_hierarchies_at_non_root_paths(tmp_path: Path) -> None:
    proc = _fake_proc(
        tmp_path / "proc",
        "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/abc\n2:cpuacct:/\n1:cpu:/\n0::/\n",
        "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
        "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
        "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
        f"41 31 0:38 / {tmp_path / 'none'} rw,relatime - cgroup2 cgroup2 rw\n",
    )
    tree = find_cgroups(proc)
    assert isinstance(tree, CgroupV1Tree)
    assert tree.parents == {
        "memory": Path("/sys/fs/cgroup/memory/process_api/abc"),
        "cpu": Path("/sys/fs/cgroup/cpu"),
        "pids": Path("/sys/fs/cgroup/pids"),
    }


def test_discovery_without_any_usable_cgroup_says_why(tmp_path: Path) -> None:
    proc = _fake_proc(
        tmp_path / "proc",
        "4:memory:/\n0::/\n",
        "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n",
    )
    with pytest.raises(CgroupError) as caught:
        find_cgroups(proc)
    assert str(caught.value) == (
        "no usable cgroups: no cgroup v2 hierarchy mounted; cgroup v1 has no cpu, pids hierarchy mounted"
    )


# ---------------------------------------------------------------- the probe's reasons


def test_the_probe_works_here_and_says_what_it_uses() -> None:
    status, _ = probe_now()
    if not status.available and not os.environ.get("CI"):
        pytest.skip(status.reason)
    assert status.available, status.reason
    assert status.reason.startswith("bubblewrap ")
    assert "cgroup v" in status.reason and "\n" not in status.reason


def test_the_probe_without_bwrap_says_which_package(tmp_path: Path) -> None:
    status, _ = probe_now(path=str(tmp_path))
    assert not status.available
    assert status.reason == "bubblewrap is not installed (no bwrap on PATH): apt-get install bubblewrap"


def test_the_probe_without_cgroup_access_names_the_path() -> None:
    locked = Path("/sys/kernel")  # not writable, even for root
    tree = CgroupV1Tree({"memory": locked, "cpu": locked, "pids": locked})
    status, _ = probe_now(cgroups=tree)
    if shutil.which("bwrap") is None:
        pytest.skip("bwrap missing: the probe stops before cgroups")
    assert not status.available
    assert status.reason.startswith("cannot create a cgroup under /sys/kernel: ")
    assert "\n" not in status.reason


@pytest.fixture
def fake_bwrap() -> Iterator[Path]:
    """A PATH directory whose `bwrap` behaves like one on a host without user namespaces."""
    directory = Path(tempfile.mkdtemp(prefix="noitu-fake-bwrap-"))
    os.chmod(directory, 0o755)
    script = directory / "bwrap"
    script.write_text(
        "#!/bin/sh\n"
        'case "$1" in\n'
        "  --help) echo '    --size BYTES  Set size of next argument'; exit 0;;\n"
        "  --version) echo 'bubblewrap 0.8.0'; exit 0;;\n"
        "esac\n"
        "echo 'bwrap: No permissions to creating new namespace, likely because the kernel "
        "does not allow non-privileged user namespaces.' >&2\n"
        "exit 1\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def test_the_probe_without_user_namespaces_says_so(fake_bwrap: Path) -> None:
    try:
        find_cgroups()
    except CgroupError as error:
        pytest.skip(f"needs cgroups to get as far as bwrap: {error}")
    status, _ = probe_now(path=f"{fake_bwrap}:/usr/bin:/bin")
    assert not status.available
    assert status.reason.startswith("user namespaces are not permitted (bwrap: No permissions to creating")
    assert "\n" not in status.reason


def test_bwrap_failures_are_told_apart() -> None:
    assert describe_bwrap_failure(1, "bwrap: setting up uid map: Permission denied\n").startswith(
        "user namespaces are not permitted"
    )
    assert describe_bwrap_failure(
        125, "/bin/sh: 1: cannot create /sys/fs/cgroup/pids/x/cgroup.procs: Permission denied\n"
    ).startswith("cannot join the bot's cgroup (")
    assert describe_bwrap_failure(1, "bwrap: Can't mount proc on /newroot/proc: Operation not permitted\n") == (
        "user namespaces are not permitted (bwrap: Can't mount proc on /newroot/proc: Operation not permitted): "
        "allow unprivileged user namespaces (sysctl user.max_user_namespaces > 0, "
        "kernel.unprivileged_userns_clone=1, AppArmor/seccomp of the container) for bubblewrap"
    )
    assert describe_bwrap_failure(1, "bwrap: execvp true: No such file or directory\n") == (
        "bubblewrap cannot start a sandbox (bwrap: execvp true: No such file or directory)"
    )


def test_the_probe_needs_setpriv_when_root(tmp_path: Path) -> None:
    (tmp_path / "bwrap").symlink_to(shutil.which("bwrap") or "/bin/true")
    status, _ = probe_now(path=str(tmp_path), run_as=(65534, 65534))
    assert not status.available
    assert status.reason == "setpriv is missing (bots run as an unprivileged uid): apt-get install util-linux"


async def test_start_up_removes_the_empty_cgroups_a_killed_server_left(tree: CgroupTree) -> None:
    # Under a parent of its own: remove_empty() with no minimum age would also remove
    # the cgroup another server beside the suite just made for a bot about to join it.
    with own_parent(tree, SMALL) as own:
        await _removes_the_empty_ones(own)


async def _removes_the_empty_ones(tree: CgroupTree) -> None:
    left = tree.create("bot", BOT_LIMITS)  # as a server killed with -9 leaves it
    busy = tree.create("bot", BOT_LIMITS)
    sleeper = await _run_in(busy, "sleep", "30")
    try:
        # The wrapper joins the hierarchies one after the other (v1): wait until the
        # process is in every one, or an empty-looking one would rightly be removed.
        while not all(
            str(sleeper.pid) in procs.read_text().split() for procs in map(Path, busy.procs_files)
        ):
            await asyncio.sleep(0.01)
        # A young cgroup may be another server's, just made for a bot not in it yet.
        tree.remove_empty()
        assert all(directory.exists() for directory in left.directories)
        assert tree.remove_empty(min_age_s=0) == 1  # `left`: the parent is the test's own
        assert not any(directory.exists() for directory in left.directories)
        # A cgroup that still holds a process (another server's bot) is left alone.
        assert all(directory.exists() for directory in busy.directories)
        assert sleeper.pid in busy.pids()
    finally:
        await busy.kill_all()
        await sleeper.wait()
        assert await busy.remove()
