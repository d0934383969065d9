"""The arena's files store (`ArenaFiles` in a data directory): the layout, atomic
writes (a reader or a crash never sees half a file), path safety (names come only from
checked ids) and the clean-up of what a crash leaves behind."""

from __future__ import annotations

import errno
import os
import threading
import time
from pathlib import Path

import msgspec
import pytest

from noitu.adapters.arena import files as files_module
from noitu.adapters.arena.files import DataDirFiles, write_atomically
from noitu.application.arena.ports import Language

BOT = "0123456789abcdef"
OTHER = "zyxwvutsrqponmlk"
MATCH = "A1B2C3D4"


@pytest.fixture
def store(tmp_path: Path) -> DataDirFiles:
    return DataDirFiles(tmp_path / "data")


def hidden_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob(".*"))


def test_a_new_store_makes_its_folders(tmp_path: Path) -> None:
    DataDirFiles(tmp_path / "deep" / "data")
    assert sorted(p.name for p in (tmp_path / "deep" / "data").iterdir()) == [
        "bots", "replays", "tmp",
    ]


async def test_sources_are_stored_under_the_bots_id(store: DataDirFiles) -> None:
    for language, suffix in [
        (Language.PYTHON, "py"), (Language.CPP, "cpp"), (Language.JAVA, "java"),
        (Language.JAR, "jar"),
    ]:
        name = await store.put_source(BOT, language, b"data " + suffix.encode())
        assert name == f"bots/{BOT}/source.{suffix}"
        assert store.source_path(name) == store.root / name
        assert await store.read_source(name) == b"data " + suffix.encode()
        assert (store.source_path(name).stat().st_mode & 0o777) == 0o644
    assert hidden_files(store.root) == []


async def test_a_source_is_replaced_whole_or_not_at_all(
    store: DataDirFiles, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = await store.put_source(BOT, Language.PYTHON, b"old")

    def crash(*_: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files_module.os, "replace", crash)
    with pytest.raises(OSError):
        await store.put_source(BOT, Language.PYTHON, b"new" * 1000)
    assert await store.read_source(name) == b"old"
    assert hidden_files(store.root) == []  # no temporary left behind


def test_readers_never_see_half_a_file(tmp_path: Path) -> None:
    target = tmp_path / "replays" / "X.jsonl"
    contents = [bytes([65 + i]) * 300_000 for i in range(4)]
    write_atomically(target, contents[0])
    seen: set[bytes] = set()
    torn: list[int] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            data = target.read_bytes()
            if data not in contents:
                torn.append(len(data))
            seen.add(data[:1])

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for round_ in range(40):
            write_atomically(target, contents[round_ % 4])
    finally:
        stop.set()
        reader.join()
    assert torn == [] and seen and hidden_files(tmp_path) == []


@pytest.mark.parametrize(
    "bad",
    ["", "../../../etc", "0123456789ABCDEF", "0123456789abcde", "0123456789abcdef0",
     "0123456789abcde/", "..", "0123456789abcd.f", "0123456789abcd\x00f", "/tmp/x"],
)
async def test_bot_ids_are_checked_before_they_become_paths(
    store: DataDirFiles, bad: str
) -> None:
    with pytest.raises(ValueError):
        await store.put_source(bad, Language.PYTHON, b"x")
    with pytest.raises(ValueError):
        await store.put_artefact(bad, store.root / "tmp")
    with pytest.raises(ValueError):
        await store.delete_bot_files(bad)
    assert list((store.root / "bots").iterdir()) == []


@pytest.mark.parametrize(
    "bad", ["", "a1b2c3d4", "A1B2C3D", "../A1B2C3D4", "A1B2C3D4/..", "G1B2C3D4"]
)
async def test_match_ids_are_checked_before_they_become_paths(
    store: DataDirFiles, bad: str
) -> None:
    with pytest.raises(ValueError):
        store.replay_writer(bad)
    assert list((store.root / "replays").iterdir()) == []


@pytest.mark.parametrize(
    "name",
    [
        f"bots/{BOT}/../../../etc/passwd", "/etc/passwd", f"bots/{BOT}/source.sh",
        f"bots/{BOT}/source.py/..", f"./bots/{BOT}/source.py", f"bots/{BOT}/artefact/../x",
        "replays/../arena.sqlite3", "replays/A1B2C3D4.jsonl\n", "replays/a1b2c3d4.jsonl",
        f"bots//{BOT}/source.py", "arena.sqlite3",
    ],
)
async def test_stored_names_are_checked_before_they_become_paths(
    store: DataDirFiles, name: str
) -> None:
    for resolve in (store.source_path, store.artefact_path, store.replay_path):
        with pytest.raises(ValueError):
            resolve(name)
    with pytest.raises(ValueError):
        await store.read_source(name)
    with pytest.raises(ValueError):
        await store.read_replay(name)
    with pytest.raises(ValueError):
        await store.local_source(name)
    with pytest.raises(ValueError):
        await store.local_artefact(name)


async def test_an_artefact_moves_in_from_a_scratch_directory(store: DataDirFiles) -> None:
    async with store.scratch() as scratch:
        assert scratch.parent == store.root / "tmp" and list(scratch.iterdir()) == []
        built = scratch / "artefact"
        (built / "pkg").mkdir(parents=True)
        (built / "Main.class").write_bytes(b"\xca\xfe\xba\xbe")
        (built / "pkg" / "Helper.class").write_bytes(b"helper")
        os.chmod(built / "Main.class", 0o755)
        name = await store.put_artefact(BOT, built)
        assert not built.exists()  # moved, not copied
    assert name == f"bots/{BOT}/artefact"
    directory = store.artefact_path(name)
    assert (directory / "Main.class").read_bytes() == b"\xca\xfe\xba\xbe"
    assert (directory / "Main.class").stat().st_mode & 0o777 == 0o755
    assert (directory / "pkg" / "Helper.class").read_bytes() == b"helper"
    assert list((store.root / "tmp").iterdir()) == []  # the scratch is gone

    # A rebuild replaces the whole artefact: nothing of the old one stays.
    async with store.scratch() as scratch:
        (scratch / "bot").write_bytes(b"ELF")
        assert await store.put_artefact(BOT, scratch) == name
    assert sorted(p.name for p in directory.iterdir()) == ["bot"]
    assert hidden_files(store.root) == []


async def test_an_artefact_is_copied_across_file_systems(
    store: DataDirFiles, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "bot.py").write_text("print('hi')")
    real_rename = os.rename

    def rename(source: object, target: object) -> None:
        if Path(str(source)) == elsewhere:
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        real_rename(source, target)  # type: ignore[arg-type]

    monkeypatch.setattr(files_module.os, "rename", rename)
    name = await store.put_artefact(BOT, elsewhere)
    assert (store.artefact_path(name) / "bot.py").read_text() == "print('hi')"
    assert elsewhere.is_dir()  # a copy leaves the original to its owner


async def test_an_artefact_with_a_symlink_is_refused(store: DataDirFiles, tmp_path: Path) -> None:
    async with store.scratch() as scratch:
        (scratch / "bot").write_bytes(b"good")
        name = await store.put_artefact(BOT, scratch)
    secret = tmp_path / "secret"
    secret.write_text("server secret")
    for make in (
        lambda d: (d / "bot").symlink_to(secret),
        lambda d: (d / "sub").mkdir() or (d / "sub" / "x").symlink_to("/etc/passwd"),
        lambda d: os.mkfifo(d / "pipe"),
    ):
        async with store.scratch() as scratch:
            make(scratch)
            with pytest.raises(ValueError):
                await store.put_artefact(BOT, scratch)
    assert (store.artefact_path(name) / "bot").read_bytes() == b"good"  # untouched
    assert sorted(p.name for p in store.artefact_path(name).iterdir()) == ["bot"]
    with pytest.raises(ValueError):  # the directory itself a symlink
        link = tmp_path / "link"
        link.symlink_to(store.artefact_path(name))
        await store.put_artefact(OTHER, link)


async def test_a_scratch_directory_goes_even_when_the_build_fails(store: DataDirFiles) -> None:
    with pytest.raises(RuntimeError):
        async with store.scratch() as scratch:
            (scratch / "half").write_bytes(b"x")
            raise RuntimeError("compiler crashed")
    assert list((store.root / "tmp").iterdir()) == []


async def test_deleting_a_bot_removes_its_files_only(store: DataDirFiles) -> None:
    await store.put_source(BOT, Language.CPP, b"int main(){}")
    async with store.scratch() as scratch:
        (scratch / "bot").write_bytes(b"ELF")
        await store.put_artefact(BOT, scratch)
    kept = await store.put_source(OTHER, Language.PYTHON, b"pass")
    assert await store.stored_bot_ids() == {BOT, OTHER}
    await store.delete_bot_files(BOT)
    await store.delete_bot_files(BOT)  # again: nothing there, nothing happens
    assert await store.stored_bot_ids() == {OTHER}
    assert not (store.root / "bots" / BOT).exists()
    assert await store.read_source(kept) == b"pass"
    assert hidden_files(store.root) == []


async def test_a_replay_appears_only_when_finished(store: DataDirFiles) -> None:
    writer = store.replay_writer(MATCH)
    writer.record({"event": "setup", "matchId": MATCH})
    writer.record({"event": "end", "winner": None})
    target = store.root / "replays" / f"{MATCH}.jsonl.zst"
    assert not target.exists()
    name = await writer.finish()
    assert name == f"replays/{MATCH}.jsonl.zst" and store.replay_path(name) == target
    lines = (await store.read_replay(name)).splitlines()
    assert [msgspec.json.decode(line)["event"] for line in lines] == ["setup", "end"]
    assert hidden_files(store.root) == []

    dropped = store.replay_writer("00000000")
    dropped.record({"event": "setup"})
    dropped.discard()
    assert sorted(p.name for p in (store.root / "replays").iterdir()) == [f"{MATCH}.jsonl.zst"]


async def test_a_replay_not_there_is_file_not_found(store: DataDirFiles) -> None:
    with pytest.raises(FileNotFoundError):
        await store.read_replay("replays/FFFFFFFF.jsonl")


async def test_sweep_removes_what_a_crash_left_and_nothing_else(store: DataDirFiles) -> None:
    source = await store.put_source(BOT, Language.PYTHON, b"pass")
    writer = store.replay_writer(MATCH)
    writer.record({"event": "end"})
    replay = await writer.finish()
    root = store.root
    leftovers = [
        root / "tmp" / "1234abcd",  # a scratch directory of a crashed build
        root / "bots" / BOT / ".source.py.abc.partial",
        root / "bots" / BOT / ".artefact.abc.partial",
        root / "bots" / f".{OTHER}.abc.deleted",
        root / "replays" / f".{MATCH}.jsonl.xyz.partial",
    ]
    for path in leftovers:
        if path.suffix == ".partial" and "artefact" not in path.name:
            path.write_bytes(b"half")
        else:
            path.mkdir()
            (path / "inside").write_bytes(b"x")
    fresh = root / "replays" / ".B0000000.jsonl.new.partial"  # a match being written now
    fresh.write_bytes(b"live")
    old = time.time() - 7200
    for path in leftovers:
        os.utime(path, (old, old))
    assert await store.sweep(max_age_s=3600) == len(leftovers)
    assert all(not path.exists() for path in leftovers)
    assert fresh.exists()
    assert await store.read_source(source) == b"pass"
    assert msgspec.json.decode(await store.read_replay(replay)) == {"event": "end"}
    assert await store.sweep(max_age_s=3600) == 0
