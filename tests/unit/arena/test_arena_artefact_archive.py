"""The database files store's artefact archives (`pack` and `unpack` of
adapters/arena/artefact_archive.py): equal contents give equal bytes, modes survive, and
unpacking trusts nothing in an archive — no absolute name, no `..`, no link or device,
no bomb — and leaves nothing behind when it refuses one."""

from __future__ import annotations

import gzip
import io
import os
import stat
import tarfile
from pathlib import Path

import pytest

from noitu.adapters.arena import artefact_archive
from noitu.adapters.arena.artefact_archive import member_path, pack, unpack


def make_tree(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "bot").write_bytes(b"\x7fELF")
    os.chmod(root / "bot", 0o755)
    (root / "pkg" / "Helper.class").write_bytes(b"helper")
    os.chmod(root / "pkg" / "Helper.class", 0o600)
    return root


def archive(*members: tuple[tarfile.TarInfo, bytes | None]) -> bytes:
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb") as zipped, tarfile.open(
        fileobj=zipped, mode="w"
    ) as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def entry(name: str, kind: bytes = tarfile.REGTYPE, **fields: object) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    for key, value in fields.items():
        setattr(info, key, value)
    return info


def test_an_artefact_survives_a_round_trip_with_its_modes(tmp_path: Path) -> None:
    blob = pack(make_tree(tmp_path / "built"))
    unpack(blob, tmp_path / "out")
    out = tmp_path / "out"
    assert (out / "bot").read_bytes() == b"\x7fELF"
    assert (out / "pkg" / "Helper.class").read_bytes() == b"helper"
    assert stat.S_IMODE((out / "bot").stat().st_mode) == 0o755
    assert stat.S_IMODE((out / "pkg" / "Helper.class").stat().st_mode) == 0o644
    assert stat.S_IMODE((out / "pkg").stat().st_mode) == 0o755


def test_equal_contents_pack_to_equal_bytes(tmp_path: Path) -> None:
    first = pack(make_tree(tmp_path / "one"))
    later = make_tree(tmp_path / "two")
    os.utime(later / "bot", (1, 1))
    assert pack(later) == first
    (later / "bot").write_bytes(b"\x7fELF2")
    assert pack(later) != first


def test_packing_refuses_links(tmp_path: Path) -> None:
    built = make_tree(tmp_path / "built")
    (built / "link").symlink_to("/etc/passwd")
    with pytest.raises(ValueError):
        pack(built)


@pytest.mark.parametrize(
    "name", ["", "/etc/passwd", "../x", "a/../../x", "a/..", ".", "a\\b", "a\x00b", "./"]
)
def test_member_names_stay_inside(name: str) -> None:
    with pytest.raises(ValueError):
        member_path(name)


def test_plain_member_names_are_kept() -> None:
    assert member_path("pkg/Helper.class").parts == ("pkg", "Helper.class")
    assert member_path("./bot").parts == ("bot",)


@pytest.mark.parametrize(
    "members",
    [
        [(entry("/abs"), b"x")],
        [(entry("../escape"), b"x")],
        [(entry("ok"), b"x"), (entry("sub/../../escape"), b"x")],
        [(entry("link", tarfile.SYMTYPE, linkname="/etc/passwd"), None)],
        [(entry("ok"), b"x"), (entry("hard", tarfile.LNKTYPE, linkname="ok"), None)],
        [(entry("dev", tarfile.CHRTYPE, devmajor=1, devminor=3), None)],
        [(entry("fifo", tarfile.FIFOTYPE), None)],
        [(entry("twice"), b"x"), (entry("twice"), b"y")],
    ],
)
def test_unsafe_archives_are_refused_with_nothing_left(
    tmp_path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]]
) -> None:
    with pytest.raises(ValueError):
        unpack(archive(*members), tmp_path / "out")
    assert list(tmp_path.iterdir()) == []
    assert not (tmp_path.parent / "escape").exists()


def test_a_damaged_archive_is_refused(tmp_path: Path) -> None:
    blob = pack(make_tree(tmp_path / "built"))
    for broken in (blob[: len(blob) // 2], b"not an archive", b""):
        with pytest.raises(ValueError):
            unpack(broken, tmp_path / "out")
        assert not (tmp_path / "out").exists()


def test_a_bomb_stops_at_the_caps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(artefact_archive, "MAX_UNPACKED_BYTES", 1000)
    with pytest.raises(ValueError, match="too large"):
        unpack(archive((entry("a"), b"x" * 600), (entry("b"), b"x" * 600)), tmp_path / "out")
    monkeypatch.setattr(artefact_archive, "MAX_UNPACKED_FILES", 3)
    many = [(entry(f"f{i}"), b"") for i in range(4)]
    with pytest.raises(ValueError, match="too many"):
        unpack(archive(*many), tmp_path / "out")
    assert list(tmp_path.iterdir()) == []
