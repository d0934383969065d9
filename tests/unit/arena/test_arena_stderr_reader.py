"""The stderr reader (spec B2) on a real pipe: a pass empties the pipe whatever it
holds, reading into the process only what the tail needs (the rest is spliced away in
the kernel), so a writer blocked on its full pipe is freed at every pass; the tail is
exactly the last bytes written, however the writes and the passes fall; a listener gets
every byte; the end is seen once every writer is gone."""

from __future__ import annotations

import array
import asyncio
import fcntl
import itertools
import math
import os
import termios
import threading
from collections.abc import Iterator

import pytest

from noitu.adapters.arena.stderr_reader import (
    STDERR_KEEP_BYTES,
    STDERR_PIPE_BYTES,
    StderrReader,
)
from noitu.application.arena.ports import STDERR_TAIL_BYTES


def waiting(fd: int) -> int:
    size = array.array("i", [0])
    fcntl.ioctl(fd, termios.FIONREAD, size, True)
    return size[0]


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    """(read end, write end): the read end non-blocking and grown as spawn() grows a
    bot's stderr pipe, the write end blocking, as the bot's is."""
    read_end, write_end = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
    os.set_blocking(write_end, True)
    fcntl.fcntl(read_end, fcntl.F_SETPIPE_SZ, STDERR_PIPE_BYTES)
    ends = {fd: _identity(fd) for fd in (read_end, write_end)}
    yield read_end, write_end
    for fd, identity in ends.items():
        if _identity(fd) == identity:  # not closed by the test (nor the number reused)
            os.close(fd)


def _identity(fd: int) -> tuple[int, int, int] | None:
    try:
        info = os.fstat(fd)
    except OSError:
        return None
    return info.st_dev, info.st_ino, info.st_mode


def numbered(size: int, start: int = 0) -> bytes:
    """Numbered 64-byte lines, so that any cut or reordering shows."""
    lines = b"".join(b"%09d " % n + b"x" * 53 + b"\n" for n in range(start, start + size // 64 + 1))
    return lines[:size]


async def no_pause() -> None:
    await asyncio.sleep(0)


def test_a_pass_empties_a_full_pipe_reading_only_the_tail(pipe) -> None:
    read_end, write_end = pipe
    data = numbered(STDERR_PIPE_BYTES)
    os.write(write_end, data)
    reader = StderrReader(read_end)
    assert reader.drain() == len(data)
    assert waiting(read_end) == 0
    assert reader.tail() == data[-STDERR_TAIL_BYTES:]
    assert reader.copied == STDERR_TAIL_BYTES  # the rest never entered the process
    assert reader.dropped == len(data) - STDERR_TAIL_BYTES
    assert not reader.ended


@pytest.mark.parametrize(
    "sizes",
    [
        [1, 100, 9000, 3, 20_000, 8191, 8192, 8193, 16_384, 16_385, 70_000, 5],
        [STDERR_KEEP_BYTES, 1, STDERR_TAIL_BYTES - 1, 2, STDERR_PIPE_BYTES - 10, 7],
        [300] * 60,
    ],
)
def test_the_tail_is_the_last_bytes_written_however_writes_and_passes_fall(pipe, sizes) -> None:
    read_end, write_end = pipe
    reader = StderrReader(read_end)
    written = bytearray()
    for n, size in enumerate(sizes):
        chunk = numbered(size, start=len(written))
        os.write(write_end, chunk)
        written += chunk
        if n % 3 != 1:  # some writes pile up before a pass
            reader.drain()
            assert waiting(read_end) == 0
            assert reader.tail() == written[-STDERR_TAIL_BYTES:]
    reader.drain()
    assert reader.tail() == written[-STDERR_TAIL_BYTES:]
    assert reader.copied + reader.dropped == len(written)


def test_what_fits_in_the_kept_buffer_is_all_read_and_a_late_listener_gets_it(pipe) -> None:
    read_end, write_end = pipe
    reader = StderrReader(read_end)
    start = numbered(STDERR_KEEP_BYTES - 100)
    os.write(write_end, start)
    reader.drain()
    assert reader.dropped == 0
    heard: list[bytes] = []
    reader.listen(heard.append)  # nothing was dropped yet: it gets the start too
    os.write(write_end, b"more\n")
    reader.drain()
    assert b"".join(heard) == start + b"more\n"


def test_a_listener_gets_every_byte_and_nothing_is_dropped(pipe) -> None:
    read_end, write_end = pipe
    reader = StderrReader(read_end)
    heard: list[bytes] = []
    reader.listen(heard.append)
    data = numbered(STDERR_PIPE_BYTES)
    os.write(write_end, data)
    reader.drain()
    assert b"".join(heard) == data and reader.dropped == 0
    assert reader.tail() == data[-STDERR_TAIL_BYTES:]
    late: list[bytes] = []
    reader.listen(late.append)  # the start was trimmed from the kept buffer
    os.write(write_end, b"last\n")
    reader.drain()
    assert late == [b"last\n"]


async def test_a_writer_blocked_on_its_full_pipe_is_freed_at_every_pass(pipe) -> None:
    """5 MB in one write (what the bot of the issue did): each pass finds the pipe full
    and empties it, so the writer waits for as many passes as pipes' worth it wrote,
    not for the server to read 5 MB."""
    read_end, write_end = pipe
    data = numbered(5_000_000)
    capacity = fcntl.fcntl(read_end, fcntl.F_GETPIPE_SZ)
    done = threading.Event()

    def write() -> None:
        os.write(write_end, data)  # blocks while the pipe is full
        os.close(write_end)
        done.set()

    passes = 0

    async def until_full_again() -> None:
        """The pause: until the writer filled the pipe again (or finished)."""
        nonlocal passes
        passes += 1
        while not done.is_set() and waiting(read_end) < capacity:
            await asyncio.sleep(0.001)

    reader = StderrReader(read_end, until_full_again)
    writer = threading.Thread(target=write)
    writer.start()
    await asyncio.wait_for(reader.run(), 30)
    writer.join()
    assert reader.ended
    assert passes <= math.ceil(len(data) / capacity) + 1
    assert reader.tail() == data[-STDERR_TAIL_BYTES:]
    assert reader.copied <= passes * STDERR_KEEP_BYTES


async def test_every_pass_that_took_something_is_followed_by_a_pause(pipe) -> None:
    """A million tiny writes or a flood: the server wakes once per pause at most."""
    read_end, write_end = pipe
    log: list[str] = []

    class Logged(StderrReader):
        def drain(self) -> int:
            taken = super().drain()
            log.append("took" if taken else "none")
            return taken

    async def pause() -> None:
        log.append("pause")
        await asyncio.sleep(0)

    reader = Logged(read_end, pause)
    task = asyncio.create_task(reader.run())
    for n in range(200):
        os.write(write_end, b"%d\n" % n)
        await asyncio.sleep(0)
    os.close(write_end)
    await asyncio.wait_for(task, 10)
    assert all(after == "pause" for before, after in itertools.pairwise(log) if before == "took")
    assert log.count("took") == log.count("pause") and log[-1] == "none"
    assert reader.tail() == b"".join(b"%d\n" % n for n in range(200))[-STDERR_TAIL_BYTES:]


def test_the_end_is_seen_once_the_writers_are_gone_and_close_releases_the_pipe(pipe) -> None:
    read_end, write_end = pipe
    reader = StderrReader(read_end)
    os.write(write_end, b"Traceback ...\n")
    os.close(write_end)
    reader.catch_up()  # one pass: what waits
    assert reader.tail() == b"Traceback ...\n" and not reader.ended
    reader.catch_up()
    assert reader.ended
    reader.close()
    with pytest.raises(OSError):
        os.fstat(read_end)
    assert reader.drain() == 0 and reader.tail() == b"Traceback ...\n"
