"""A JAR upload's checks (spec B2): its entries counted from its central directory
(constant memory, before any is read), and its manifest's `Main-Class`, read with size
caps, which the JAR must hold."""

from __future__ import annotations

import os
import struct
import zipfile
from pathlib import Path

from noitu.adapters.arena.build_messages import vi_number
from noitu.application.arena.limits import MAX_JAR_ENTRIES

MAX_MANIFEST_BYTES = 64 * 1024
BROKEN_JAR = "Tệp JAR bị hỏng hoặc không phải tệp zip."


def jar_refusal(path: Path) -> str | None:
    """Why the JAR at `path` is refused, or None when it may run."""
    try:
        entries = count_jar_entries(path)
    except OSError:
        entries = None
    if entries is None:
        return BROKEN_JAR
    if entries > MAX_JAR_ENTRIES:
        return f"Tệp JAR có quá nhiều mục: tối đa {vi_number(MAX_JAR_ENTRIES)} mục."
    main, why = read_manifest_main_class(path)
    return why if main is None else None


_BROKEN_ZIP = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    OSError,
    EOFError,
    ValueError,
    NotImplementedError,  # an unknown compression method
    RuntimeError,  # an encrypted entry
)


def read_manifest_main_class(path: Path) -> tuple[str | None, str]:
    """(Main-Class, "") of a JAR, or (None, why it is refused)."""
    try:
        with zipfile.ZipFile(path) as jar:
            try:
                info = jar.getinfo("META-INF/MANIFEST.MF")
            except KeyError:
                return None, "JAR không có META-INF/MANIFEST.MF, nên không có Main-Class."
            if info.file_size > MAX_MANIFEST_BYTES:
                return None, "META-INF/MANIFEST.MF của JAR quá lớn."
            with jar.open(info) as handle:
                data = handle.read(MAX_MANIFEST_BYTES + 1)
            if len(data) > MAX_MANIFEST_BYTES:
                return None, "META-INF/MANIFEST.MF của JAR quá lớn."
            names = set(jar.namelist())
    except _BROKEN_ZIP:
        return None, BROKEN_JAR
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, "META-INF/MANIFEST.MF của JAR không phải UTF-8."
    headers: dict[str, str] = {}
    last: str | None = None
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if line.startswith(" ") and last is not None:
            headers[last] += line[1:]
        elif ":" in line:
            key, _, value = line.partition(":")
            last = key.strip().lower()
            headers[last] = value.strip()
        elif not line:
            if headers:
                break  # the main section ends at the first empty line
            last = None
    main = headers.get("main-class", "").strip()
    if not main:
        return None, "META-INF/MANIFEST.MF của JAR không có Main-Class."
    if main.replace(".", "/") + ".class" not in names:
        return None, f"JAR không chứa lớp Main-Class {main}."
    return main, ""


_EOCD = struct.Struct("<4s4H2LH")  # end of central directory record
_CENTRAL = struct.Struct("<4s24x3H12x")  # a central directory header: its three lengths
_EOCD_SIGNATURE = b"PK\x05\x06"
_CENTRAL_SIGNATURE = b"PK\x01\x02"


def count_jar_entries(path: Path, most: int = MAX_JAR_ENTRIES) -> int | None:
    """The entries of the zip `path` by its central directory, reading no member and
    holding one header at a time; counting stops past `most` (a count above `most` means
    "too many"). None when there is no consistent central directory. The directory is
    found where zipfile and the JVM look for it: just before the end record."""
    with open(path, "rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        tail_length = min(size, _EOCD.size + 0xFFFF)
        handle.seek(size - tail_length)
        tail = handle.read(tail_length)
        at = tail.rfind(_EOCD_SIGNATURE)
        if at < 0 or len(tail) - at < _EOCD.size:
            return None
        _, _, _, _, total, cd_size, _, _ = _EOCD.unpack_from(tail, at)
        if total == 0xFFFF:  # Zip64: 65,535 entries or more
            return max(most + 1, total)
        if total > most:
            return total
        end = size - tail_length + at
        position = end - cd_size
        if position < 0:
            return None
        count = 0
        while position < end:
            handle.seek(position)
            header = handle.read(_CENTRAL.size)
            if len(header) < _CENTRAL.size or not header.startswith(_CENTRAL_SIGNATURE):
                return None
            _, name, extra, comment = _CENTRAL.unpack(header)
            position += _CENTRAL.size + name + extra + comment
            count += 1
            if count > most:
                return count
        if position != end or count != total:
            return None
        return count
