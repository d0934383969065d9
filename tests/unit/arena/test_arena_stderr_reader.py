"""The stderr reader's bounds (spec B2), observed through a fake pipe: every read asks
for at most STDERR_READ_BYTES, and a read that got bytes is followed by a pause before
the next one, however much waits; only the tail is kept; listeners get every byte in
order."""

from __future__ import annotations

import asyncio
import itertools

from noitu.adapters.arena.process import STDERR_CATCH_UP_BYTES, STDERR_READ_BYTES, StderrReader
from noitu.application.arena.ports import STDERR_TAIL_BYTES


class FakePipe:
    """A pipe already holding `data`, recording every read and every pause in order;
    it ends once drained when `closed`, else `readable()` waits for more."""

    def __init__(self, data: bytes, *, closed: bool = True) -> None:
        self.data = bytearray(data)
        self.closed = closed
        self.log: list[tuple[str, int]] = []  # ("read", size asked), ("got", bytes), ("pause", 0)
        self.more = asyncio.Event()

    def read(self, size: int) -> bytes | None:
        self.log.append(("read", size))
        if not self.data:
            return b"" if self.closed else None
        chunk = bytes(self.data[:size])
        del self.data[:size]
        self.log.append(("got", len(chunk)))
        return chunk

    async def readable(self) -> None:
        while not self.data and not self.closed:
            self.more.clear()
            await self.more.wait()

    async def pause(self) -> None:
        self.log.append(("pause", 0))
        await asyncio.sleep(0)

    def write(self, data: bytes) -> None:
        self.data += data
        self.more.set()


def flood(size: int) -> bytes:
    """Numbered lines, so any cut shows."""
    lines = b"".join(b"%07d " % n + b"x" * 1015 + b"\n" for n in range(size // 1024 + 1))
    return lines[:size]


def reader_of(pipe: FakePipe) -> StderrReader:
    return StderrReader(pipe.read, pipe.readable, pipe.pause)


async def test_a_flood_is_read_in_bounded_chunks_with_a_pause_between_reads() -> None:
    data = flood(3 * 1024 * 1024)
    pipe = FakePipe(data)
    reader = reader_of(pipe)
    whole: list[bytes] = []
    reader.listen(whole.append)
    await reader.run()
    reads = [size for kind, size in pipe.log if kind == "read"]
    assert reads and max(reads) <= STDERR_READ_BYTES
    # The server takes one chunk, then waits: never two chunks without a pause.
    kinds = [kind for kind, _ in pipe.log]
    assert all(b == "pause" for a, b in itertools.pairwise(kinds) if a == "got")
    assert kinds.count("pause") == kinds.count("got") >= len(data) // STDERR_READ_BYTES
    assert b"".join(whole) == data
    assert reader.tail() == data[-STDERR_TAIL_BYTES:]
    assert reader.ended


async def test_catch_up_reads_what_waits_now_within_its_budget() -> None:
    data = flood(3 * STDERR_CATCH_UP_BYTES)
    pipe = FakePipe(data, closed=False)
    reader = reader_of(pipe)
    reader.catch_up()
    reads = [size for kind, size in pipe.log if kind == "read"]
    assert max(reads) <= STDERR_READ_BYTES
    assert sum(reads) == STDERR_CATCH_UP_BYTES
    assert reader.tail() == data[STDERR_CATCH_UP_BYTES - STDERR_TAIL_BYTES : STDERR_CATCH_UP_BYTES]
    assert not reader.ended


async def test_the_tail_is_the_last_bytes_and_a_late_listener_gets_what_it_can() -> None:
    pipe = FakePipe(b"", closed=False)
    reader = reader_of(pipe)
    pipe.write(b"first line\n")
    reader.catch_up()
    early: list[bytes] = []
    reader.listen(early.append)  # nothing was dropped yet: it gets the start too
    pipe.write(b"second\n")
    reader.catch_up()
    assert b"".join(early) == b"first line\nsecond\n"
    assert reader.tail() == b"first line\nsecond\n"
    pipe.write(flood(5 * STDERR_TAIL_BYTES))
    task = asyncio.create_task(reader.run())
    while pipe.data:
        await asyncio.sleep(0)
    pipe.closed = True
    pipe.more.set()
    await task
    assert reader.tail() == (b"first line\nsecond\n" + flood(5 * STDERR_TAIL_BYTES))[-STDERR_TAIL_BYTES:]
    assert len(b"".join(early)) == len(b"first line\nsecond\n") + 5 * STDERR_TAIL_BYTES
