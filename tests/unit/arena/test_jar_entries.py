"""A JAR's entries counted from its central directory alone (spec B10), before zipfile
or anything else reads it."""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

from noitu.adapters.arena.jar import count_jar_entries


def _zip(path: Path, entries: int, *, comment: bytes = b"") -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for i in range(entries):
            archive.writestr(f"e{i}.class", b"x" * i)
        archive.comment = comment
    return path


def test_the_entries_of_an_ordinary_jar_are_counted(tmp_path: Path) -> None:
    assert count_jar_entries(_zip(tmp_path / "a.jar", 7)) == 7
    assert count_jar_entries(_zip(tmp_path / "c.jar", 3, comment=b"a comment")) == 3
    assert count_jar_entries(_zip(tmp_path / "e.jar", 0)) == 0
    stub = tmp_path / "stub.jar"  # data before the archive, as zipfile and the JVM allow
    stub.write_bytes(b"#!/bin/sh\nexit 0\n" + (tmp_path / "a.jar").read_bytes())
    assert count_jar_entries(stub) == 7 and len(zipfile.ZipFile(stub).namelist()) == 7


def test_counting_stops_past_the_limit_and_an_announced_excess_is_enough(tmp_path: Path) -> None:
    jar = _zip(tmp_path / "many.jar", 50)
    assert count_jar_entries(jar, most=10) == 50  # the end record says so: no walk
    data = bytearray(jar.read_bytes())
    end = data.rfind(b"PK\x05\x06")
    data[end + 8 : end + 12] = struct.pack("<2H", 2, 2)  # it understates
    jar.write_bytes(bytes(data))
    assert count_jar_entries(jar, most=10) == 11  # walked, and stopped at the 11th


def test_a_directory_that_does_not_add_up_is_broken(tmp_path: Path) -> None:
    jar = _zip(tmp_path / "b.jar", 5)
    data = bytearray(jar.read_bytes())
    end = data.rfind(b"PK\x05\x06")
    data[end + 8 : end + 12] = struct.pack("<2H", 4, 4)  # one entry more than announced
    (tmp_path / "count.jar").write_bytes(bytes(data))
    assert count_jar_entries(tmp_path / "count.jar") is None
    size = struct.unpack_from("<L", data, end + 12)[0]
    data[end + 12 : end + 16] = struct.pack("<L", size - 1)  # a directory of the wrong size
    (tmp_path / "size.jar").write_bytes(bytes(data))
    assert count_jar_entries(tmp_path / "size.jar") is None
    (tmp_path / "junk.jar").write_bytes(b"PK\x03\x04 not a zip")
    assert count_jar_entries(tmp_path / "junk.jar") is None
