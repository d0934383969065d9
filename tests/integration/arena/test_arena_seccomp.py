"""The kernel surface of the real sandbox (spec B2, "Kernel surface"): every system call
of `seccomp.REFUSALS` is answered by the filter itself, honest calls still work, and a
bot cannot pin host memory through socket buffers."""

from __future__ import annotations

import dataclasses
import errno
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from noitu.adapters.arena.bubblewrap import BubblewrapLauncher
from noitu.adapters.arena.sandbox import Sandbox
from noitu.adapters.arena.seccomp import REFUSALS, compile_filter, syscall_number
from noitu.application.arena.ports import BotProcess, ProcessFailure, Reply
from support.arena_bots import python_artefact

# No kernel path answers this errno to these calls: when a call fails with it, the
# filter answered, not the kernel's own checks (many of these calls need capabilities
# the sandbox lacks, so the kernel alone would also say EPERM).
FILTER_ONLY_ERRNO = errno.ENOTRECOVERABLE

# The first argument each call gets; the others are zero. Chosen so that a call the
# filter let through would do nothing harmful (a wrong pid, a null pointer).
FIRST_ARGUMENT = {"socket": 2, "socketpair": 2, "ptrace": 2, "personality": 0x0040000}

CALL_EACH = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
result = {}
for name, number, first in CALLS:
    ctypes.set_errno(0)
    answer = libc.syscall(ctypes.c_long(number), ctypes.c_long(first), ctypes.c_long(0),
                          ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0))
    result[name] = ctypes.get_errno() if answer == -1 else "returned %d" % answer
result["status"] = [l.strip() for l in open("/proc/self/status") if l.startswith("Seccomp")]
"""


async def ask(bot: BotProcess, code: str) -> Any:
    reply = await bot.ask(json.dumps({"code": code}), 15.0)
    assert isinstance(reply, Reply), (reply, bot.stderr_tail()[-2000:])
    return json.loads(reply.line)


@pytest.fixture
async def start_probe(tmp_path: Path) -> AsyncIterator[Callable[[Sandbox], Any]]:
    started: list[BotProcess] = []

    async def start(sandbox: Sandbox) -> BotProcess:
        bot = await BubblewrapLauncher(sandbox).launch(python_artefact("probe", tmp_path))
        assert not isinstance(bot, ProcessFailure), bot
        started.append(bot)
        return bot

    yield start
    for bot in started:
        await bot.close()


async def test_every_refused_call_is_answered_by_the_filter(arena_sandbox: Sandbox, start_probe) -> None:
    marked = dataclasses.replace(
        arena_sandbox, seccomp_program=compile_filter(error=FILTER_ONLY_ERRNO)
    )
    calls = [(r.syscall, syscall_number(r.syscall), FIRST_ARGUMENT.get(r.syscall, 0)) for r in REFUSALS]
    bot = await start_probe(marked)
    result = await ask(bot, f"CALLS = {calls!r}\n" + CALL_EACH)
    status = result.pop("status")
    assert "Seccomp:\t2" in status or "Seccomp: 2" in [" ".join(s.split()) for s in status]
    assert result == {r.syscall: FILTER_ONLY_ERRNO for r in REFUSALS}


async def test_what_bots_use_still_works_and_the_rest_is_eperm(arena_sandbox: Sandbox, start_probe) -> None:
    bot = await start_probe(arena_sandbox)
    result = await ask(
        bot,
        """
import errno, os, socket
result = {}
left, right = socket.socketpair(socket.AF_UNIX)
left.sendall(b"ping")
result["unix pair"] = right.recv(4).decode()
for name, family in [("inet", socket.AF_INET), ("inet6", socket.AF_INET6), ("netlink", socket.AF_NETLINK),
                     ("packet", socket.AF_PACKET)]:
    try:
        socket.socket(family, socket.SOCK_RAW if family in (socket.AF_NETLINK, socket.AF_PACKET) else socket.SOCK_STREAM).close()
        result[name] = "opened"
    except OSError as error:
        result[name] = errno.errorcode[error.errno]
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
result["personality query"] = libc.personality(ctypes.c_ulong(0xFFFFFFFF)) >= 0
result["threads"] = __import__("threading").Thread(target=lambda: None).start() is None
""",
    )
    assert result["unix pair"] == "ping"
    assert result["inet"] == result["inet6"] == result["netlink"] == result["packet"] == "EPERM"
    assert result["personality query"] is True
    assert result["threads"] is True


async def test_no_socket_buffers_can_be_pinned_outside_the_cgroup(arena_sandbox: Sandbox, start_probe) -> None:
    """A memory attack: loopback TCP connections left unread inside the bot's own
    network namespace pinned host memory its v1 memory cgroup did not see."""
    bot = await start_probe(arena_sandbox)
    result = await ask(
        bot,
        """
import socket
try:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    connections = [socket.create_connection(listener.getsockname()) for _ in range(4)]
    result = "connected %d" % len(connections)
except OSError as error:
    result = error.__class__.__name__
""",
    )
    assert result == "PermissionError"
