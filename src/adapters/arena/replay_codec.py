"""Replays at rest (spec B14): one zstd frame of the JSON Lines, about 50 KB for a
200-turn match of two built-ins against 2.5 MB as text (the request lines repeat the
board and the legal actions turn after turn). A replay stored before compression
(plain JSON Lines) is read as it is: a stored replay is told by its first bytes, not by
its name.

Level 1: on this machine (2 cores), three 200-turn matches of random moves written
event by event as the runner writes them: 51 KB a match at 16.4 µs a turn, against
52 KB at 20.9 µs for level 3 (zstd's default); level 19 made 15 KB of a 2.5 MB replay
in 490 ms, CPU a worker playing hundreds of matches a minute cannot spare. Every level
reads with the same decoder.
"""

from __future__ import annotations

import io
from typing import BinaryIO

import zstandard

#: zstd's compression level for replays (see the module's note).
LEVEL = 1
#: The first four bytes of every zstd frame (RFC 8878, 3.1.1).
MAGIC = b"\x28\xb5\x2f\xfd"
#: What a compressed replay's name ends with, after `.jsonl`.
SUFFIX = ".zst"


def is_compressed(data: bytes) -> bool:
    return data[:4] == MAGIC


def compress(data: bytes) -> bytes:
    return zstandard.ZstdCompressor(level=LEVEL).compress(data)


def plain(data: bytes) -> bytes:
    """A stored replay's JSON Lines, whichever way it was stored."""
    if not is_compressed(data):
        return data
    # A frame written by a stream does not carry its size: read it as a stream.
    with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data)) as reader:
        return reader.read()


class CompressedLines:
    """A binary file that zstd-compresses what is written to it, as one frame that
    `finish` ends (the file itself is the caller's to sync and close)."""

    def __init__(self, file: BinaryIO) -> None:
        self._writer = zstandard.ZstdCompressor(level=LEVEL).stream_writer(
            file, closefd=False, write_return_read=True
        )

    def write(self, data: bytes) -> int:
        return self._writer.write(data)

    def finish(self) -> None:
        self._writer.flush(zstandard.FLUSH_FRAME)
