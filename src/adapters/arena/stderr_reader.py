"""A bot's stderr (spec B2): its pipe, asked large, drained in bounded passes."""

from __future__ import annotations

import array
import asyncio
import fcntl
import logging
import os
import termios
from collections.abc import Awaitable, Callable

from noitu.application.arena.ports import STDERR_TAIL_BYTES

_log = logging.getLogger(__name__)

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


async def _stderr_pause() -> None:
    await asyncio.sleep(STDERR_READ_INTERVAL_S)

_pipe_refusal_told = False


def grow_stderr_pipe(fd: int) -> None:
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
            waiting = bytes_waiting(fd)
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


def bytes_waiting(fd: int) -> int:
    """How many bytes wait in the pipe `fd` now."""
    size = array.array("i", [0])
    fcntl.ioctl(fd, termios.FIONREAD, size, True)
    return size[0]
