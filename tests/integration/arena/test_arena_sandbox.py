"""Attacks on the real bubblewrap + cgroup sandbox (spec B2): a probe bot runs the code
each test sends it and reports what it could do."""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from noitu.adapters.arena.bubblewrap import BubblewrapLauncher
from noitu.adapters.arena.direct import DirectLauncher
from noitu.adapters.arena.sandbox import DEFAULT_USER_RANGE, Sandbox
from noitu.application.arena.ports import (
    Artefact,
    BotLauncher,
    BotProcess,
    Language,
    ProcessFailure,
    Reply,
)
from noitu.domain.arena.failure import FailureCode
from support.arena_bots import host_processes_with, python_artefact
from support.owned import RecordingTree, cgroups_holding


@pytest.fixture
def launcher(arena_sandbox: Sandbox) -> BubblewrapLauncher:
    return BubblewrapLauncher(arena_sandbox)


@pytest.fixture
async def probe_bot(launcher: BotLauncher, tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    started: list[BotProcess] = []

    async def start(using: BotLauncher | None = None) -> BotProcess:
        bot = await (using or launcher).launch(python_artefact("probe", tmp_path))
        assert not isinstance(bot, ProcessFailure), bot
        started.append(bot)
        return bot

    yield start
    for bot in started:
        await bot.close()


async def run(bot: BotProcess, code: str, timeout_s: float = 15.0) -> Any:
    reply = await bot.ask(json.dumps({"code": code}), timeout_s)
    assert isinstance(reply, Reply), (reply, bot.stderr_tail()[-2000:])
    return json.loads(reply.line)


NETWORK_PROBE = """
import socket
try:
    result = {{"interfaces": [name for _, name in socket.if_nameindex()]}}
except OSError as error:  # it asks a netlink socket, which the seccomp filter refuses
    result = {{"interfaces": error.__class__.__name__}}
for host, port in [("127.0.0.1", {port}), ("1.1.1.1", 53), ("10.0.0.1", 80)]:
    try:
        socket.create_connection((host, port), timeout=1).close()
        result[host] = "connected"
    except OSError as error:
        result[host] = error.__class__.__name__
try:
    socket.getaddrinfo("deb.debian.org", 80)
    result["dns"] = "resolved"
except OSError as error:
    result["dns"] = error.__class__.__name__
"""


async def try_the_network(bot: BotProcess) -> dict[str, Any]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    try:
        result = await run(bot, NETWORK_PROBE.format(port=listener.getsockname()[1]))
        with pytest.raises(BlockingIOError):
            listener.accept()
    finally:
        listener.close()
    assert result["1.1.1.1"] != "connected" and result["10.0.0.1"] != "connected"
    assert result["dns"] != "resolved"
    return result


async def test_no_network_not_even_the_servers_loopback(probe_bot) -> None:
    result = await try_the_network(await probe_bot())
    # No socket but AF_UNIX opens (the seccomp filter), so not even its own loopback.
    assert result["interfaces"] == "PermissionError"
    assert result["127.0.0.1"] == "PermissionError"


async def test_without_the_filter_the_network_namespace_alone_holds(
    probe_bot, arena_sandbox: Sandbox
) -> None:
    unfiltered = BubblewrapLauncher(dataclasses.replace(arena_sandbox, seccomp_program=None))
    result = await try_the_network(await probe_bot(unfiltered))
    assert result["interfaces"] == ["lo"]
    assert result["127.0.0.1"] == "ConnectionRefusedError"  # its own, empty loopback


async def test_no_host_files_only_the_runtime_read_only(probe_bot, tmp_path: Path) -> None:
    bot = await probe_bot()
    paths = ["/etc/passwd", "/etc/shadow", "/etc/hostname", "/root", "/work", "/home",
             str(tmp_path), "/sys/fs/cgroup", "/var", "/run"]
    result = await run(
        bot,
        f"""
import os
result = {{"root": sorted(os.listdir("/")), "seen": {{}}}}
result["etc"] = sorted(os.listdir("/etc")) if os.path.exists("/etc") else None
for path in {paths!r}:
    try:
        with open(path, "rb") as handle:
            handle.read(1)
        result["seen"][path] = "read"
    except IsADirectoryError:
        result["seen"][path] = "listed: " + str(os.listdir(path)[:3])
    except OSError as error:
        result["seen"][path] = error.__class__.__name__
result["bot"] = sorted(os.listdir("/bot"))
result["cwd"] = os.getcwd()
""",
    )
    assert set(result["root"]) <= {"bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc", "proc",
                                    "dev", "tmp", "bot"}
    assert result["etc"] is None  # a Python bot gets no /etc at all (a JVM its JDK's only)
    assert all(v == "FileNotFoundError" for v in result["seen"].values()), result["seen"]
    assert result["bot"] == ["bot.py"] and result["cwd"] == "/bot"


async def test_the_servers_environment_is_invisible(probe_bot, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = f"secret-{uuid.uuid4().hex}"
    monkeypatch.setenv("NOITU_GAME_SECRET", secret)
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", secret)
    bot = await probe_bot()
    result = await run(
        bot,
        """
import os
environs = []
for entry in os.listdir("/proc"):
    if entry.isdigit():
        try:
            environs.append(open(f"/proc/{entry}/environ", "rb").read().decode("latin-1"))
        except OSError as error:
            environs.append(error.__class__.__name__)
result = {"env": dict(os.environ), "environs": environs}
""",
    )
    # bwrap's --chdir adds PWD; nothing else of ours.
    assert result["env"] == {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", "PWD": "/bot"}
    assert secret not in json.dumps(result)


async def test_other_processes_are_invisible_and_it_is_nobody(probe_bot) -> None:
    bot = await probe_bot()
    result = await run(
        bot,
        """
import os
pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
result = {
    "pids": pids,
    "cmdlines": [open(f"/proc/{p}/cmdline", "rb").read().decode(errors="replace") for p in pids],
    "status": {l.split(":")[0]: l.split(":", 1)[1].strip()
               for l in open("/proc/self/status") if l.startswith(("Uid", "CapEff", "CapPrm", "NoNewPrivs"))},
    "hostname": os.uname().nodename,
}
""",
    )
    assert result["pids"] == [1, 2]  # bwrap's init and the bot itself
    assert not any("pytest" in line for line in result["cmdlines"])
    assert result["status"]["CapEff"] == result["status"]["CapPrm"] == "0000000000000000"
    assert result["status"]["NoNewPrivs"] == "1"
    uids = result["status"]["Uid"].split()
    assert len(set(uids)) == 1
    if os.geteuid() == 0:  # a uid of its own, from the sandbox's range: not nobody
        assert int(uids[0]) in DEFAULT_USER_RANGE
    else:
        assert int(uids[0]) == os.geteuid()
    assert result["hostname"] == "bot"


async def test_nothing_is_writable_but_tmp(probe_bot) -> None:
    bot = await probe_bot()
    result = await run(
        bot,
        """
import os
result = {}
for path in ["/x", "/bot/x", "/bot/bot.py", "/usr/x", "/dev/x", "/dev/shm/x", "/etc/x", "/proc/x",
             "/proc/sys/kernel/hostname", "/tmp/ok"]:
    try:
        with open(path, "w") as handle:
            handle.write("x")
        result[path] = "written"
    except OSError as error:
        result[path] = error.__class__.__name__
""",
    )
    assert result.pop("/tmp/ok") == "written"
    assert "written" not in result.values(), result


async def test_tmp_is_capped_at_64_mib(probe_bot) -> None:
    bot = await probe_bot()
    result = await run(
        bot,
        """
import errno
written, code = 0, None
with open("/tmp/fill", "wb", buffering=0) as handle:
    block = b"x" * (1024 * 1024)
    try:
        while written < 200 * 1024 * 1024:
            written += handle.write(block)
    except OSError as error:
        code = errno.errorcode[error.errno]
result = {"mib": written / (1024 * 1024), "error": code}
""",
    )
    assert result["error"] == "ENOSPC"
    assert 60 <= result["mib"] <= 64


async def test_a_fork_bomb_stops_at_the_pids_cap_and_dies_with_the_match(probe_bot, arena_sandbox) -> None:
    marker = f"forkbomb-{uuid.uuid4().hex}"
    bot = await probe_bot()
    result = await run(
        bot,
        f"""
import os, time
children = 0
try:
    while children < 500:
        pid = os.fork()
        if pid == 0:
            os.execv("/bin/sleep", ["{marker}", "60"])
        children += 1
except OSError as error:
    failure = error.__class__.__name__
time.sleep(0.2)
result = {{"children": children, "failure": failure}}
""",
    )
    print(f"fork bomb: {result['children']} children before fork failed")
    assert result["failure"] == "BlockingIOError"  # EAGAIN from the pids cap
    # 64 pids: bwrap outside, bwrap's init, the bot, and the children.
    assert 50 <= result["children"] <= 61, result
    assert len(host_processes_with(marker)) == result["children"]
    await bot.close()
    assert host_processes_with(marker) == []
    assert subprocess.run(["/bin/true"]).returncode == 0  # noqa: ASYNC221 - the machine still forks


async def test_cpu_is_throttled_to_half_a_cpu(probe_bot) -> None:
    bot = await probe_bot()
    result = await run(
        bot,
        """
import time
start_wall, start_cpu = time.monotonic(), time.process_time()
while time.monotonic() - start_wall < 1.5:
    pass
result = {"ratio": (time.process_time() - start_cpu) / (time.monotonic() - start_wall)}
""",
    )
    print(f"CPU time / wall time of a spinning bot: {result['ratio']:.3f}")
    assert 0.35 <= result["ratio"] <= 0.65


GRANDCHILD = """
import os, time
pid = os.fork()
if pid == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/bin/sleep", ["{marker}", "300"])
    os._exit(0)
os.waitpid(pid, 0)
time.sleep(0.2)
result = "spawned"
"""


@pytest.mark.parametrize("where", ["bubblewrap", "direct-cgroup"])
async def test_a_setsid_double_forked_grandchild_dies_with_the_match(
    probe_bot, arena_sandbox: Sandbox, where: str
) -> None:
    marker = f"grandchild-{uuid.uuid4().hex}"
    using = DirectLauncher(cgroups=arena_sandbox.cgroups) if where == "direct-cgroup" else None
    bot = await probe_bot(using)
    assert await run(bot, GRANDCHILD.format(marker=marker)) == "spawned"
    assert len(host_processes_with(marker)) == 1
    await bot.close()
    assert host_processes_with(marker) == []


async def test_the_bots_cgroup_is_below_the_servers_and_removed_after(probe_bot, arena_sandbox: Sandbox) -> None:
    bot = await probe_bot()
    result = await run(bot, "import os; result = os.getpid()")
    assert result == 2
    # On the host: the bot is in one cgroup per hierarchy, each directly under the
    # server's own (other servers' bots may sit beside it: only the bot's count).
    parents = arena_sandbox.cgroups.parent_directories()
    made = cgroups_holding([bot.pid], parents, prefix="noitu-bot-")  # type: ignore[attr-defined]
    assert sorted(directory.parent for directory in made) == sorted(parents)
    await bot.close()
    assert not any(directory.exists() for directory in made)


async def test_a_sandbox_that_cannot_start_is_start_failed(arena_sandbox: Sandbox, tmp_path: Path) -> None:
    broken = dataclasses.replace(arena_sandbox.tools, bwrap="/bin/false")
    cgroups = RecordingTree(arena_sandbox.cgroups)
    sandbox = Sandbox(broken, cgroups, run_as=arena_sandbox.run_as,
                      stage_root=arena_sandbox.stage_root)
    result = await BubblewrapLauncher(sandbox).launch(python_artefact("echo", tmp_path))
    assert isinstance(result, ProcessFailure) and result.code is FailureCode.START_FAILED
    # The cgroup made for it is gone (whatever other servers keep beside it).
    assert cgroups.made and not [d for d in cgroups.directories() if d.exists()]


async def test_a_missing_interpreter_inside_is_not_a_reply(arena_sandbox: Sandbox, tmp_path: Path) -> None:
    # A C++ artefact whose "binary" is not executable code: the bot cannot run.
    directory = tmp_path / "cpp"
    directory.mkdir()
    (directory / "bot").write_bytes(b"not an ELF file")
    bot = await BubblewrapLauncher(arena_sandbox).launch(Artefact(Language.CPP, directory))
    if isinstance(bot, ProcessFailure):
        assert bot.code is FailureCode.START_FAILED
        return
    try:
        result = await bot.ask("{}", 5.0)
        assert isinstance(result, ProcessFailure) and result.code is FailureCode.EXITED
    finally:
        await bot.close()


async def test_launch_is_quick(launcher: BubblewrapLauncher, tmp_path: Path) -> None:
    began = time.monotonic()
    bot = await launcher.launch(python_artefact("echo", tmp_path))
    assert not isinstance(bot, ProcessFailure)
    try:
        reply = await bot.ask("{}", 5.0)
        assert isinstance(reply, Reply)
    finally:
        await bot.close()
    assert time.monotonic() - began < 3.0


@pytest.mark.skipif(os.geteuid() != 0, reason="bots run as uids of their own only when the server is root")
async def test_each_bot_has_a_uid_of_its_own_and_a_stage_no_one_else_reads(
    probe_bot, arena_sandbox: Sandbox
) -> None:
    """A local user's view of other bots: stages were once 0755/0644 under a path every local user
    could read off bwrap's command line, and every bot was uid 65534."""
    first, second = await probe_bot(), await probe_bot()
    code = 'import os\nresult = {"uid": os.getuid(), "bot": sorted(os.listdir("/bot"))}'
    seen = [await run(first, code), await run(second, code)]
    assert seen[0]["uid"] != seen[1]["uid"]
    assert all(one["bot"] == ["bot.py"] for one in seen)
    assert arena_sandbox.stage_root is not None
    stages = [entry for entry in arena_sandbox.stage_root.iterdir() if entry.is_dir()
              and not entry.name.startswith("build-")]
    assert len(stages) == 2
    for stage in stages:
        status = stage.stat()
        assert status.st_mode & 0o777 == 0o700
        assert status.st_uid in {one["uid"] for one in seen}
        assert (stage / "bot.py").stat().st_mode & 0o077 == 0
        assert host_processes_with(stage.name) == []  # mounted through a descriptor
    await first.close()
    await second.close()
    assert [entry for entry in arena_sandbox.stage_root.iterdir() if entry in stages] == []
