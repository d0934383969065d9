"""The I/O of one bot process, shared by both launchers (spec B2, B3, A6).

stdout and stderr are read all the time by background tasks. A small state machine
decides what every stdout byte is:

- while a request is outstanding, bytes build the reply line; the first newline ends it
  (`Reply`), and more than 65,536 code points (counted as bytes that are not UTF-8
  continuation bytes, newline excluded) fail at once with REPLY_TOO_LONG, so at most
  that much is ever buffered;
- at any other time a byte is EXTRA_OUTPUT, the moment it arrives. Bytes that follow a
  reply in the same read are held back until `ask()` has handed that reply over (and
  before the next request is written they are looked at first), so the caller can judge
  and apply the reply before learning of them;
- what arrived before a request is written is never its reply, however late the reader
  gets to it: at the instant of writing, `ask()` counts the bytes nobody has judged yet
  (the stream's buffer and, by FIONREAD, the pipe) and any is EXTRA_OUTPUT. So the
  verdict depends only on when the bytes arrived, not on how the event loop (asyncio's
  or uvloop's, whose pipes are socket pairs) scheduled the reader;
- the end of stdout (or the process's exit) is RESOURCE_LIMIT when the cgroup's OOM
  counter moved, INCOMPLETE_LINE when part of a reply was pending, EXITED otherwise.

The first failure is kept; everything after it, and everything after `close()` started,
is ignored.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import fcntl
import logging
import os
import select
import shutil
import signal
import termios
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from noitu.adapters.arena.cgroups.tree import BotCgroup
from noitu.application.arena.ports import (
    MAX_REPLY_CODE_POINTS,
    STDERR_TAIL_BYTES,
    ProcessFailure,
    Reply,
)
from noitu.domain.arena.failure import FailureCode

#: What a bot whose reply passes the cap is told (the cap as a Vietnamese reader writes it).
REPLY_TOO_LONG = "Dòng trả lời dài quá {} ký tự.".format(f"{MAX_REPLY_CODE_POINTS:,}".replace(",", "."))

_log = logging.getLogger(__name__)

READ_SIZE = 64 * 1024
#: The size asked for a bot's stderr pipe (Linux's pipe-max-size for an unprivileged
#: process; it stays at the kernel's 64 KiB when refused). A flooding bot waits on its
#: full pipe between two passes of the reader, so the pipe's size over the pause below
#: is what a flood gets through: 1 MiB per 50 ms, 20 MiB/s (docs/performance.md).
STDERR_PIPE_BYTES = 1024 * 1024
#: After a pass of the reader that took something, the pause before the next one,
#: however often the bot writes: a flood (or a million one-byte writes) wakes the server
#: at most 20 times a second. A pass costs a few system calls, plus the kernel's freeing
#: of the pages it drops (0.14–0.26 ms per MiB measured): the pause is what bounds a
#: flooding bot's cost to the server (under 1% of a core), so it is not shorter.
STDERR_READ_INTERVAL_S = 0.05
#: What the reader keeps in the process before trimming to the tail: while a bot's
#: stderr fits in it, everything it wrote was read (a late listener still gets it).
STDERR_KEEP_BYTES = 2 * STDERR_TAIL_BYTES
#: How long a process gets to exit after its stdin was closed (B2).
CLOSE_GRACE_S = 1.0
#: After stdout ended, how long to wait for the exit status (and a final OOM count).
EXIT_STATUS_WAIT_S = 0.5
#: After the process exited, how long stdout may stay open (held by a child).
STDOUT_AFTER_EXIT_S = 0.5

_CONTINUATION = bytes(range(0x80, 0xC0))


async def _stderr_pause() -> None:
    await asyncio.sleep(STDERR_READ_INTERVAL_S)


#: `sh -c` wrapper: write our pid to every file up to "--", then exec the rest. The pid
#: of the shell is the pid of what it execs, so the bot is in its cgroups before any of
#: its code runs (no preexec_fn in a threaded server).
JOIN_SCRIPT = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'


def joined(
    procs_files: Sequence[Path], command: Sequence[str], shell: str = "/bin/sh"
) -> list[str]:
    """`command` run so that it starts inside the cgroups of `procs_files`."""
    if not procs_files:
        return list(command)
    return [shell, "-c", JOIN_SCRIPT, "noitu-join", *map(str, procs_files), "--", *command]


def code_points(data: bytes) -> int:
    """Unicode code points in UTF-8 `data` (bytes that are not continuation bytes)."""
    return len(data.translate(None, _CONTINUATION))


def _seconds(value: float) -> str:
    return f"{value:g}".replace(".", ",")


@dataclass(frozen=True, slots=True)
class Spawned:
    """A started process and the read end of its stderr pipe (non-blocking, ours to
    close: `PipeBotProcess` drains it in bounded passes (`StderrReader`), not through
    asyncio's pipe transport, which would read every byte as eagerly as the bot writes)."""

    process: asyncio.subprocess.Process
    stderr_fd: int


async def spawn(
    argv: Sequence[str], *, cwd: str | Path, env: dict[str, str], pass_fds: Sequence[int] = ()
) -> Spawned:
    """Start `argv` with three pipes in a new session (so it never shares our process
    group); the server's other file descriptors are not inherited."""
    read_end, write_end = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
    os.set_blocking(write_end, True)  # the bot's end: a full pipe makes it wait
    _grow_stderr_pipe(read_end)
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=write_end,
            cwd=str(cwd),
            env=env,
            pass_fds=tuple(pass_fds),
            start_new_session=True,
        )
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
    return Spawned(process, read_end)


_pipe_refusal_told = False


def _grow_stderr_pipe(fd: int) -> None:
    """Ask for a `STDERR_PIPE_BYTES` pipe; a refusal (the user's pipe quota,
    /proc/sys/fs/pipe-user-pages-soft, or a lower pipe-max-size) is told once."""
    global _pipe_refusal_told
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, STDERR_PIPE_BYTES)
    except OSError as error:
        if not _pipe_refusal_told:
            _pipe_refusal_told = True
            _log.warning(
                "a bot's stderr pipe stays at the kernel's default size (%s): a bot that "
                "floods stderr gets 64 KiB through per %g s, not %d KiB",
                error.strerror, STDERR_READ_INTERVAL_S, STDERR_PIPE_BYTES // 1024,
            )


class StderrReader:
    """A bot's stderr pipe (the read end, non-blocking; ours to close), drained in
    passes (spec B2): after a pass that took something, a pause of
    `STDERR_READ_INTERVAL_S`; when the pipe is empty, a wait until it is readable.

    A pass takes all that waits in the pipe at that instant (FIONREAD says how much):
    when it fits in the room left in the kept buffer (`STDERR_KEEP_BYTES`), or while a
    listener wants every byte, it is read into the process; otherwise all but the last
    `STDERR_TAIL_BYTES` of it is spliced to /dev/null (the kernel drops those pages: no
    copy into Python, whatever the size) and those last bytes are read. A byte is only
    ever dropped when a tail's worth written after it was already waiting, so `tail()`
    is always the last `STDERR_TAIL_BYTES` of all the bot wrote up to the last pass, in
    order. A pass copies at most `STDERR_KEEP_BYTES` into the process (no listener), and
    empties the pipe whatever the bot wrote, so a flooding bot waits at most one pause
    on its full pipe at a time. Listeners get every byte read, in order."""

    def __init__(self, fd: int, pause: Callable[[], Awaitable[None]] = _stderr_pause) -> None:
        self._fd: int | None = fd
        self._null: int | None = None  # /dev/null, opened at the first drop
        self._pause = pause
        self._kept = bytearray()
        self._trimmed = False
        self._listeners: list[Callable[[bytes], None]] = []
        self.ended = False
        #: Bytes read into the process, and bytes dropped in the kernel, so far.
        self.copied = 0
        self.dropped = 0

    def tail(self) -> bytes:
        return bytes(self._kept[-STDERR_TAIL_BYTES:])

    def listen(self, listener: Callable[[bytes], None]) -> None:
        if self._kept and not self._trimmed:
            listener(bytes(self._kept))  # what came before the listener
        self._listeners.append(listener)

    async def run(self) -> None:
        """Drain until the end (every holder of the pipe's write end is gone)."""
        while not self.ended:
            # A pass first: while a bot floods, its pipe is never empty, and waiting
            # for it to be readable would cost a wake-up (and two epoll calls) per pass.
            if self.drain():
                await self._pause()
            elif not self.ended:
                await self._readable()

    def catch_up(self) -> None:
        """One pass now, without waiting: what the bot wrote up to this instant is
        taken (the tail then ends with it)."""
        self.drain()

    def drain(self) -> int:
        """One pass; how many bytes it took (read or dropped; 0: none, or the end)."""
        fd = self._fd
        if fd is None or self.ended:
            self.ended = True
            return 0
        dropped = 0
        try:
            waiting = _waiting(fd)
            room = STDERR_KEEP_BYTES - len(self._kept)
            if waiting > max(room, STDERR_TAIL_BYTES) and not self._listeners:
                dropped = self._drop(fd, waiting - STDERR_TAIL_BYTES)
            # Something is always asked for: an empty pipe whose writers are all gone
            # reads as the end (FIONREAD says 0 either way), and what came since the
            # count is read from the front, dropping nothing.
            chunk = os.read(fd, waiting - dropped or STDERR_TAIL_BYTES)
        except BlockingIOError:
            return dropped
        except OSError:
            chunk = b""
        if not chunk:
            self.ended = True
            return dropped
        self.copied += len(chunk)
        self._kept += chunk
        for listener in self._listeners:
            listener(chunk)
        if len(self._kept) > STDERR_KEEP_BYTES:
            del self._kept[:-STDERR_TAIL_BYTES]
            self._trimmed = True
        return dropped + len(chunk)

    def _drop(self, fd: int, count: int) -> int:
        """Splice the first `count` bytes of the pipe to /dev/null; how many went."""
        if self._null is None:
            self._null = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
        done = 0
        while done < count:
            try:
                moved = os.splice(fd, self._null, count - done, flags=os.SPLICE_F_NONBLOCK)
            except BlockingIOError:
                break
            if moved <= 0:
                break
            done += moved
        if done:
            self.dropped += done
            self._trimmed = True
        return done

    async def _readable(self) -> None:
        fd = self._fd
        if fd is None:
            return
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()

        def on_readable() -> None:
            if not ready.done():
                ready.set_result(None)

        loop.add_reader(fd, on_readable)
        try:
            await ready
        finally:
            loop.remove_reader(fd)

    def close(self) -> None:
        """Close the pipe's read end (and /dev/null); nothing is read after."""
        for fd in (self._fd, self._null):
            if fd is not None:
                os.close(fd)
        self._fd = self._null = None
        self.ended = True


def _waiting(fd: int) -> int:
    """How many bytes wait in the pipe `fd` now."""
    size = array.array("i", [0])
    fcntl.ioctl(fd, termios.FIONREAD, size, True)
    return size[0]


class Containment(Protocol):
    """How a launcher holds what a bot started."""

    memory_limit_mb: int | None

    def oom_killed(self) -> bool: ...

    async def kill_all(self) -> None: ...

    async def release(self) -> None: ...


class ProcessTree:
    """The usual containment: the process itself, optionally its process group (direct
    launcher), its cgroup (kill every member, tell OOM kills), a staging directory."""

    def __init__(
        self,
        process: asyncio.subprocess.Process,
        *,
        cgroup: BotCgroup | None = None,
        memory_limit_mb: int | None = None,
        kill_group: bool = False,
        staging: Path | None = None,
        init_pidfd: int | None = None,
    ) -> None:
        """`init_pidfd`: a pidfd of the sandbox's PID 1 (bwrap's init). Killing it first
        ends its whole PID namespace while the outer bwrap is still there to reap it, so
        nothing is left as a zombie for the host's init."""
        self.process = process
        self.cgroup = cgroup
        self.memory_limit_mb = memory_limit_mb
        self.kill_group = kill_group
        self.staging = staging
        self.init_pidfd = init_pidfd
        self._released = False

    def oom_killed(self) -> bool:
        return self.cgroup is not None and self.cgroup.oom_kills() > 0

    async def kill_all(self) -> None:
        if self.init_pidfd is not None and self.process.returncode is None:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self.init_pidfd, signal.SIGKILL)
            for _ in range(50):
                if self.process.returncode is not None:
                    break
                await asyncio.sleep(0.01)
        if self.kill_group:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
        if self.cgroup is not None:
            await self.cgroup.kill_all()

    async def release(self) -> None:
        if self._released:
            return
        self._released = True
        if self.init_pidfd is not None:
            os.close(self.init_pidfd)
            self.init_pidfd = None
        if self.cgroup is not None and not await self.cgroup.remove():
            _log.warning("bot cgroup not removed: %s", ", ".join(map(str, self.cgroup.directories)))
        if self.staging is not None:
            await asyncio.to_thread(shutil.rmtree, self.staging, True)


@dataclass(slots=True)
class _Request:
    future: asyncio.Future[Reply | ProcessFailure]
    asked_at: float
    deadline: float
    timeout_s: float


class PipeBotProcess:
    """`BotProcess` over a subprocess's stdin/stdout/stderr pipes."""

    def __init__(
        self, process: asyncio.subprocess.Process, containment: Containment, stderr_fd: int
    ) -> None:
        """`stderr_fd`: the read end of the process's stderr pipe (non-blocking), now
        owned by this object (closed by `close()`)."""
        assert process.stdin and process.stdout
        self._process = process
        self._containment = containment
        self._loop = asyncio.get_running_loop()
        self._request: _Request | None = None
        self._line = bytearray()
        self._points = 0
        self._leftover: bytes | None = None
        self._resume = asyncio.Event()
        self._failed: asyncio.Future[ProcessFailure] = self._loop.create_future()
        self._asked = 0
        self._stderr = StderrReader(stderr_fd)
        self._stdout_done = False
        self._ending = False
        self._closing = False
        self._close_task: asyncio.Task[None] | None = None
        self._stdout_fd = self._pipe_fd(1)
        self._exit: asyncio.Future[None] = self._loop.create_future()
        self._pidfd: int | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._watch_pid()
        self._reader = asyncio.create_task(self._read_stdout())
        self._stderr_reader = asyncio.create_task(self._stderr.run())
        self._tasks += [self._reader, self._stderr_reader, asyncio.create_task(self._watch_exit())]

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.returncode

    # ------------------------------------------------------------ the port

    async def ask(self, line: str, timeout_s: float) -> Reply | ProcessFailure:
        if self._request is not None:
            raise RuntimeError("ask() while another request is outstanding")
        if "\n" in line or "\r" in line:
            raise ValueError("a request is one line")
        if self._closing:
            return ProcessFailure(FailureCode.EXITED, "Tiến trình bot đã bị đóng.")
        # Whatever the bot wrote before this request must be judged as such.
        self._take_leftover()
        await self._settle()
        if self.unread_stdout() > 0 and not self._failed.done():
            self._extra_output()  # it arrived before this request: never its reply
        failure = self.pending_failure()
        if failure is not None:
            return failure
        future: asyncio.Future[Reply | ProcessFailure] = self._loop.create_future()
        stdin = self._process.stdin
        assert stdin is not None
        try:
            stdin.write(line.encode("utf-8") + b"\n")
        except (OSError, RuntimeError):
            pass  # the bot is gone: its end shows up on stdout
        asked_at = self._loop.time()
        request = _Request(future, asked_at, asked_at + timeout_s, timeout_s)
        self._request = request
        self._asked += 1
        timer = self._loop.call_at(request.deadline, self._on_timeout, request)
        drain = asyncio.create_task(self._drain())
        try:
            return await future
        finally:
            timer.cancel()
            if not drain.done():
                drain.cancel()
            self._request = None
            self._resume.set()

    async def failure(self) -> ProcessFailure:
        if self._request is None:
            self._take_leftover()
        return await asyncio.shield(self._failed)

    def pending_failure(self) -> ProcessFailure | None:
        if self._request is None:
            self._take_leftover()
        return self._failed.result() if self._failed.done() else None

    def unread_stdout(self) -> int:
        """How many bytes the bot wrote to stdout that were not judged yet (in the
        stream's buffer, or still in the pipe)."""
        buffered = len(getattr(self._process.stdout, "_buffer", b""))
        if self._stdout_fd is None:
            return buffered
        size = array.array("i", [0])
        try:
            fcntl.ioctl(self._stdout_fd, termios.FIONREAD, size, True)
        except OSError:
            return buffered
        return buffered + size[0]

    def stderr_tail(self) -> bytes:
        """The last bytes of stderr, including what waits in the pipe now (a pass at
        once): taken at the end of a match, it ends with what the bot wrote before,
        although the reader's last pass may have been a pause ago."""
        self._stderr.catch_up()
        return self._stderr.tail()

    def on_stderr(self, listener: Callable[[bytes], None]) -> None:
        self._stderr.listen(listener)

    async def close(self) -> None:
        if self._close_task is None:
            self._close_task = asyncio.create_task(self._close())
        await asyncio.shield(self._close_task)

    # ------------------------------------------------------------ internals

    def _pipe_fd(self, number: int) -> int | None:
        """The descriptor our end of the child's pipe `number` reads: asyncio's pipe
        transports name it "pipe", uvloop's (a socket pair) "socket"."""
        try:
            transport = self._process._transport  # type: ignore[attr-defined]
            pipe = transport.get_pipe_transport(number)
            for key in ("pipe", "socket"):
                end = pipe.get_extra_info(key)
                if end is not None:
                    return int(end.fileno())
        except Exception:  # noqa: BLE001 - a private transport shape: no descriptor, no fast path
            return None
        return None

    def _stdout_waiting(self) -> bool:
        """Bytes (or the end) sit in the pipe or the stream buffer, not yet judged."""
        if len(getattr(self._process.stdout, "_buffer", b"")) > 0:
            return True
        if self._stdout_fd is None:
            return False
        try:
            readable, _, _ = select.select([self._stdout_fd], [], [], 0)
        except (OSError, ValueError):
            return False
        return bool(readable)

    async def _settle(self) -> None:
        """Let the reader judge what already arrived before a request is written."""
        for _ in range(100):
            if self._failed.done() or self._stdout_done:
                return
            await asyncio.sleep(0)
            if not self._stdout_waiting() and self._leftover is None:
                await asyncio.sleep(0)
                if not self._stdout_waiting():
                    return
            self._take_leftover()

    async def _drain(self) -> None:
        stdin = self._process.stdin
        assert stdin is not None
        with contextlib.suppress(OSError, RuntimeError, asyncio.CancelledError):
            await stdin.drain()

    def _fail(self, code: FailureCode, detail: str) -> None:
        if self._closing or self._failed.done():
            return
        failure = ProcessFailure(code, detail)
        self._failed.set_result(failure)
        request = self._request
        if request is not None and not request.future.done():
            request.future.set_result(failure)

    def _on_timeout(self, request: _Request) -> None:
        if self._request is request and not request.future.done():
            seconds = _seconds(request.timeout_s)
            self._fail(FailureCode.TIMEOUT, f"Bot không trả lời trong {seconds} giây.")

    def _extra_output(self) -> None:
        if self._asked == 0:
            detail = (
                "Bot in ra stdout trước khi được hỏi; stdout chỉ dành cho dòng ACTION "
                "(log hãy ghi ra stderr)."
            )
        else:
            detail = (
                "Bot in thêm ra stdout ngoài dòng trả lời; mỗi YOUR_TURN chỉ được trả lời "
                "đúng một dòng (log hãy ghi ra stderr)."
            )
        self._fail(FailureCode.EXTRA_OUTPUT, detail)

    def _feed(self, data: bytes) -> None:
        """Judge newly read stdout bytes (at most one reply completes per call; what
        follows it waits in `_leftover`)."""
        request = self._request
        if request is None or request.future.done():
            self._extra_output()
            return
        newline = data.find(b"\n")
        piece = data if newline < 0 else data[:newline]
        points = self._points + code_points(piece)
        if points > MAX_REPLY_CODE_POINTS:
            self._line = bytearray()
            detail = REPLY_TOO_LONG
            if self._asked == 1:
                # A bot that prints as it starts, after its first request was written.
                detail += (
                    " Mọi thứ in ra stdout sau khi được hỏi lần đầu đều thuộc dòng trả lời"
                    " này (log hãy ghi ra stderr)."
                )
            self._fail(FailureCode.REPLY_TOO_LONG, detail)
            return
        self._line += piece
        self._points = points
        if newline < 0:
            return
        now = self._loop.time()
        line = bytes(self._line)
        self._line = bytearray()
        self._points = 0
        if now > request.deadline:
            self._on_timeout(request)
            return
        self._resume.clear()
        self._leftover = data[newline + 1 :]
        request.future.set_result(Reply(line, round((now - request.asked_at) * 1000)))

    def _take_leftover(self) -> None:
        rest, self._leftover = self._leftover, None
        if rest and not self._closing and not self._failed.done():
            self._extra_output()

    async def _read_stdout(self) -> None:
        stdout = self._process.stdout
        assert stdout is not None
        try:
            while True:
                chunk = await stdout.read(READ_SIZE)
                if not chunk:
                    break
                if self._closing or self._failed.done():
                    continue
                self._feed(chunk)
                if self._leftover is not None:
                    # Hold on until ask() handed the reply over.
                    await self._resume.wait()
                    self._take_leftover()
        except (OSError, ValueError):
            pass
        finally:
            self._stdout_done = True
        await self._ended()

    def _watch_pid(self) -> None:
        """Resolve `_exit` the moment the process exits. (asyncio's wait() also waits
        for the pipes to close, which a child of the bot may hold open.)"""
        try:
            self._pidfd = os.pidfd_open(self._process.pid)
        except OSError:
            self._pidfd = None
        if self._pidfd is None:
            self._tasks.append(asyncio.create_task(self._poll_exit()))
            return
        try:
            self._loop.add_reader(self._pidfd, self._on_pidfd)
        except (NotImplementedError, OSError, ValueError):
            os.close(self._pidfd)
            self._pidfd = None
            self._tasks.append(asyncio.create_task(self._poll_exit()))

    def _on_pidfd(self) -> None:
        self._forget_pidfd()
        if not self._exit.done():
            self._exit.set_result(None)

    def _forget_pidfd(self) -> None:
        if self._pidfd is not None:
            with contextlib.suppress(Exception):
                self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None

    async def _poll_exit(self) -> None:
        while self._process.returncode is None:
            await asyncio.sleep(0.05)
        if not self._exit.done():
            self._exit.set_result(None)

    async def _exited(self, timeout_s: float) -> bool:
        """Wait at most `timeout_s` for the process to exit (and its status to be known)."""
        try:
            await asyncio.wait_for(asyncio.shield(self._exit), timeout_s)
        except TimeoutError:
            return False
        for _ in range(50):
            if self._process.returncode is not None:
                break
            await asyncio.sleep(0.01)
        return True

    async def _watch_exit(self) -> None:
        await asyncio.shield(self._exit)
        # stdout normally ends with the process; a child may still hold it open.
        while not self._reader.done():
            done, _ = await asyncio.wait({self._reader}, timeout=STDOUT_AFTER_EXIT_S)
            if done:
                return
            if self._leftover is None:
                await self._ended()
                return

    async def _ended(self) -> None:
        """stdout ended, or the process exited: say how."""
        if self._ending:
            return
        self._ending = True
        if await self._exited(EXIT_STATUS_WAIT_S):
            # What it wrote to stderr before it went (a traceback, say) is read before
            # its failure ends the match, so the stderr tail taken then has it.
            self._stderr.catch_up()
        if self._closing or self._failed.done():
            return
        if self._containment.oom_killed():
            limit = self._containment.memory_limit_mb
            self._fail(
                FailureCode.RESOURCE_LIMIT,
                f"Bot bị dừng vì dùng quá giới hạn bộ nhớ ({limit} MB)."
                if limit
                else "Bot bị dừng vì dùng quá giới hạn bộ nhớ.",
            )
        elif self._line:
            self._fail(
                FailureCode.INCOMPLETE_LINE,
                "Bot dừng khi dòng trả lời chưa kết thúc bằng ký tự xuống dòng.",
            )
        else:
            code = self._process.returncode
            if code is None:
                detail = "Bot đã đóng stdout."
            elif code < 0:
                detail = f"Tiến trình bot đã kết thúc (bị tín hiệu {-code})."
            else:
                detail = f"Tiến trình bot đã kết thúc (mã thoát {code})."
            self._fail(FailureCode.EXITED, detail)

    async def _close(self) -> None:
        self._closing = True
        request = self._request
        if request is not None and not request.future.done():
            closed = ProcessFailure(FailureCode.EXITED, "Tiến trình bot đã bị đóng.")
            request.future.set_result(closed)
        stdin = self._process.stdin
        assert stdin is not None
        with contextlib.suppress(OSError, RuntimeError):
            stdin.close()
        await self._exited(CLOSE_GRACE_S)
        # Whether or not it left in time: it and everything it started go now.
        await self._containment.kill_all()
        await self._exited(5.0)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._process.wait()), 1.0)
        self._forget_pidfd()
        self._resume.set()
        _, pending = await asyncio.wait(self._tasks, timeout=0.5)
        for task in pending:
            task.cancel()
        for task in pending:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._stderr.catch_up()
        self._stderr.close()
        await self._containment.release()
