"""The arena's files port, `ArenaFiles`: what every store must do — the data directory
(`DataDirFiles`, the embedded default) and the database (`DatabaseFiles`, spec B9) on
SQLite and on PostgreSQL (the storage contract's fixtures: a copy of a migrated file, or
the session's throwaway server).

`open_store(machine)` opens the store as a server on machine `machine` would: the
database store gets that machine's own data directory (its cache) on the shared
database; the directory store is shared through its one directory (its premise: one
machine, or one shared file system). "A" and "B" below are two machines.
"""

from __future__ import annotations

import asyncio
import base64
import os
import secrets
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path

import msgspec
import pytest
import zstandard
from sqlalchemy.ext.asyncio import AsyncEngine

from noitu.adapters.arena.direct import DirectLauncher
from noitu.adapters.arena.files import DataDirFiles
from noitu.adapters.arena.sql import migrations
from noitu.adapters.arena.sql.engine import create_engine
from noitu.adapters.arena.sql.files import REPLAY, DatabaseFiles
from noitu.application.arena.errors import StorageFull
from noitu.application.arena.ports import Artefact, Language
from noitu.application.arena.replay import Event, Player, SeatKind
from noitu.application.arena.run_match import BotSeat, MatchCommand, RunMatch
from noitu.application.arena.storage import ArenaFiles, ReplayWriter
from noitu.domain.arena.board import Side
from noitu.domain.arena.match import EndReason
from support.fakes import FakeClock

BOT = "0123456789abcdef"
OTHER = "zyxwvutsrqponmlk"
MATCH = "A1B2C3D4"
MINIMAL_BOT = Path(__file__).resolve().parents[2] / "assets" / "bot-examples" / "minimal.py"
RANDOM_BOT = MINIMAL_BOT.parents[1] / "builtin-bots" / "random.py"
PADDED_BOT = Path(__file__).resolve().parents[1] / "support" / "arena_bots" / "padded.py"

OpenStore = Callable[..., Awaitable[ArenaFiles]]


class Counted:
    """`MatchEvents` that counts the events on their way to a replay writer."""

    def __init__(self, writer: ReplayWriter) -> None:
        self.writer = writer
        self.count = 0

    def record(self, event: Event) -> None:
        self.count += 1
        self.writer.record(event)


@pytest.fixture(params=["directory", "sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
async def open_store(
    database: str,
    request: pytest.FixtureRequest,
    engines: list[AsyncEngine],
    tmp_path: Path,
    clock: FakeClock,
) -> OpenStore:
    if database == "directory":
        shared = tmp_path / "shared"

        async def open_directory(machine: str = "A", uploads_max_bytes: int | None = None):
            return DataDirFiles(shared, uploads_max_bytes)

        return open_directory
    url = request.getfixturevalue("new_url")(True)

    async def open_database(machine: str = "A", uploads_max_bytes: int | None = None):
        engine = create_engine(url)
        engines.append(engine)
        await migrations.upgrade(engine)
        return DatabaseFiles(engine, tmp_path / machine, clock, uploads_max_bytes)

    return open_database


@pytest.fixture
def data_dir(database: str, tmp_path: Path) -> Callable[[str], Path]:
    """What machine `machine` holds on its own disk for the store."""
    return lambda machine: tmp_path / ("shared" if database == "directory" else machine)


async def put_artefact(store: ArenaFiles, bot_id: str, files: dict[str, bytes], exe: str = "") -> str:
    async with store.scratch() as scratch:
        built = scratch / "artefact"
        for name, data in files.items():
            (built / name).parent.mkdir(parents=True, exist_ok=True)
            (built / name).write_bytes(data)
        if exe:
            os.chmod(built / exe, 0o755)
        return await store.put_artefact(bot_id, built)


def tree(directory: Path) -> dict[str, bytes]:
    return {
        path.relative_to(directory).as_posix(): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


def leftovers(root: Path) -> list[Path]:
    """Hidden files (temporaries) and scratch directories under a machine's data dir."""
    return sorted(p for p in root.rglob("*") if p.name.startswith(".") or p.parent.name == "tmp")


# --- sources --------------------------------------------------------------------------


async def test_a_source_is_kept_under_its_bots_name_and_read_on_any_machine(
    open_store: OpenStore,
) -> None:
    a, b = await open_store("A"), await open_store("B")
    names = {}
    for language, suffix in [
        (Language.PYTHON, "py"), (Language.CPP, "cpp"), (Language.JAVA, "java"),
        (Language.JAR, "jar"),
    ]:
        name = await a.put_source(BOT, language, b"data " + suffix.encode())
        assert name == f"bots/{BOT}/source.{suffix}"
        names[name] = b"data " + suffix.encode()
    for store in (a, b):
        for name, data in names.items():
            assert await store.read_source(name) == data
            local = await store.local_source(name)
            assert local.read_bytes() == data and local.is_absolute()


async def test_what_is_not_stored_is_file_not_found(open_store: OpenStore) -> None:
    store = await open_store()
    for read in (store.read_source, store.local_source):
        with pytest.raises(FileNotFoundError):
            await read(f"bots/{BOT}/source.py")
    with pytest.raises(FileNotFoundError):
        await store.local_artefact(f"bots/{BOT}/artefact")
    for read_replay in (store.read_replay, store.read_replay_zstd):
        for name in (f"replays/{MATCH}.jsonl", f"replays/{MATCH}.jsonl.zst"):
            with pytest.raises(FileNotFoundError):
                await read_replay(name)
    assert await store.stored_bot_ids() == set()
    assert await store.bot_files_modified_ms(BOT) is None


@pytest.mark.parametrize("bad", ["", "../../etc", "0123456789ABCDEF", "0123456789abcde/", ".."])
async def test_ids_and_names_are_checked_before_they_are_used(
    open_store: OpenStore, bad: str
) -> None:
    store = await open_store()
    with pytest.raises(ValueError):
        await store.put_source(bad, Language.PYTHON, b"x")
    with pytest.raises(ValueError):
        await store.delete_bot_files(bad)
    with pytest.raises(ValueError):
        store.replay_writer(bad)
    async with store.scratch() as scratch:
        with pytest.raises(ValueError):
            await store.put_artefact(bad, scratch)
    for name in (f"bots/{BOT}/../../x", "/etc/passwd", f"bots/{BOT}/source.sh", "arena.sqlite3",
                 f"bots/{bad}/artefact", "replays/../x.jsonl", f"replays/{MATCH}.zst",
                 f"replays/{MATCH}.jsonl.zst.zst"):
        for read in (store.read_source, store.local_source, store.local_artefact,
                     store.read_replay, store.read_replay_zstd):
            with pytest.raises(ValueError):
                await read(name)
    assert await store.stored_bot_ids() == set()


# --- artefacts ------------------------------------------------------------------------


async def test_an_artefact_is_launchable_from_another_machine_with_an_empty_cache(
    open_store: OpenStore, data_dir: Callable[[str], Path]
) -> None:
    a = await open_store("A")
    name = await put_artefact(
        a, BOT, {"bot": b"\x7fELF", "pkg/Helper.class": b"helper", "data.txt": b"x"}, exe="bot"
    )
    assert name == f"bots/{BOT}/artefact"
    b = await open_store("B")
    for store, machine in ((a, "A"), (b, "B")):
        directory = await store.local_artefact(name)
        assert directory.is_relative_to(data_dir(machine))
        assert tree(directory) == {"bot": b"\x7fELF", "data.txt": b"x", "pkg/Helper.class": b"helper"}
        assert stat.S_IMODE((directory / "bot").stat().st_mode) == 0o755
        assert stat.S_IMODE((directory / "data.txt").stat().st_mode) & 0o111 == 0
        assert stat.S_IMODE(directory.stat().st_mode) == 0o755
        assert leftovers(data_dir(machine)) == []
    assert await a.stored_bot_ids() == await b.stored_bot_ids() == {BOT}


async def test_a_new_artefact_replaces_the_old_one_whole_on_every_machine(
    open_store: OpenStore,
) -> None:
    a, b = await open_store("A"), await open_store("B")
    name = await put_artefact(a, BOT, {"Main.class": b"old", "Old.class": b"gone"})
    assert tree(await b.local_artefact(name)) == {"Main.class": b"old", "Old.class": b"gone"}
    assert await put_artefact(a, BOT, {"Main.class": b"new"}) == name
    assert tree(await a.local_artefact(name)) == {"Main.class": b"new"}
    assert tree(await b.local_artefact(name)) == {"Main.class": b"new"}  # B had the old one


async def test_an_artefact_with_a_link_or_a_pipe_is_refused(
    open_store: OpenStore, tmp_path: Path
) -> None:
    store = await open_store()
    name = await put_artefact(store, BOT, {"bot": b"good"})
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
    assert tree(await store.local_artefact(name)) == {"bot": b"good"}


async def test_machines_fetching_one_artefact_at_once_get_it_whole(
    open_store: OpenStore, data_dir: Callable[[str], Path]
) -> None:
    a = await open_store("A")
    name = await put_artefact(a, BOT, {"bot.py": b"print()\n" * 10_000})
    b, c = await open_store("B"), await open_store("B")  # two processes of machine B
    found = await asyncio.gather(*(store.local_artefact(name) for store in (b, c, b, c)))
    assert len(set(found)) == 1
    assert tree(found[0]) == {"bot.py": b"print()\n" * 10_000}
    assert leftovers(data_dir("B")) == []


async def test_a_bot_stored_on_one_machine_plays_on_another(
    open_store: OpenStore, data_dir: Callable[[str], Path]
) -> None:
    a = await open_store("A")
    source = MINIMAL_BOT.read_bytes()
    source_name = await a.put_source(BOT, Language.PYTHON, source)
    name = await put_artefact(a, BOT, {"bot.py": source})
    b = await open_store("B")
    if data_dir("B") != data_dir("A"):  # nothing of the bot on B's disk yet
        assert not [p for p in data_dir("B").rglob("*") if BOT in p.as_posix()]
    artefact = Artefact(Language.PYTHON, await b.local_artefact(name))
    seats = (
        BotSeat(Player(Side.P1, "Bot của An", SeatKind.UPLOAD), artefact),
        BotSeat(Player(Side.P2, "Bot của An", SeatKind.UPLOAD), artefact),
    )
    writer = b.replay_writer(MATCH)
    events = Counted(writer)
    outcome = await RunMatch(DirectLauncher())(MatchCommand(MATCH, 7, seats, turn_limit=12), events)
    assert outcome.result.failure is None and outcome.result.reason is EndReason.TURN_LIMIT
    replay = await writer.finish()
    assert await b.read_source(source_name) == source
    stored = (await a.read_replay(replay)).decode().splitlines()
    assert len(stored) == events.count and '"event":"end"' in stored[-1]


# --- replays --------------------------------------------------------------------------


async def test_a_replay_is_readable_only_once_finished_and_from_any_machine(
    open_store: OpenStore, data_dir: Callable[[str], Path]
) -> None:
    a, b = await open_store("A"), await open_store("B")
    writer = a.replay_writer(MATCH)
    writer.record({"event": "setup", "matchId": MATCH})
    writer.record({"event": "end", "winner": None})
    for store in (a, b):
        with pytest.raises(FileNotFoundError):
            await store.read_replay(f"replays/{MATCH}.jsonl.zst")
    name = await writer.finish()
    assert name == f"replays/{MATCH}.jsonl.zst"
    expected = b'{"event":"setup","matchId":"A1B2C3D4"}\n{"event":"end","winner":null}\n'
    assert await a.read_replay(name) == await b.read_replay(name) == expected
    # Spec B14: kept as one zstd frame, given as it is to a client that takes zstd.
    frame = await b.read_replay_zstd(name)
    assert frame is not None and zstandard.ZstdDecompressor().decompressobj().decompress(
        frame
    ) == expected

    dropped = a.replay_writer("00000000")
    dropped.record({"event": "setup"})
    dropped.discard()
    with pytest.raises(FileNotFoundError):
        await b.read_replay("replays/00000000.jsonl.zst")
    assert leftovers(data_dir("A")) == []


async def test_a_replay_stored_before_b14_is_read_as_it_was(open_store: OpenStore) -> None:
    """A replay stored as plain JSON Lines (under `.jsonl`) reads as before; there is
    no zstd frame to give of it."""
    store = await open_store("A")
    name, lines = f"replays/{MATCH}.jsonl", b'{"event":"setup"}\n{"event":"end"}\n'
    if isinstance(store, DataDirFiles):
        (store.root / name).write_bytes(lines)
    else:
        assert isinstance(store, DatabaseFiles)
        await store.put_blob(name, REPLAY, None, lines)
    assert await store.read_replay(name) == lines
    assert await store.read_replay_zstd(name) is None


#: The events of a 200-turn match of a bot against itself, by the bot's file: played once
#: per test process (a match costs seconds of CPU), then written through each store.
_PLAYED: dict[Path, list[Event]] = {}


class Recorded(list):  # type: ignore[type-arg]
    def record(self, event: Event) -> None:
        self.append(event)


async def stored_200_turns(store: ArenaFiles, bot: Path, scratch: Path) -> tuple[bytes, bytes]:
    """A 200-turn match of `bot` against itself, stored: its JSON Lines and its frame."""
    if bot not in _PLAYED:
        folder = scratch / "artefact"
        folder.mkdir()
        (folder / "bot.py").write_bytes(bot.read_bytes())
        artefact = Artefact(Language.PYTHON, folder)
        seats = tuple(
            BotSeat(Player(side, bot.stem, SeatKind.BUILTIN), artefact) for side in Side
        )
        events = Recorded()
        command = MatchCommand(MATCH, 1, seats, turn_limit=200)  # type: ignore[arg-type]
        outcome = await RunMatch(DirectLauncher())(command, events)
        assert outcome.result.reason is EndReason.TURN_LIMIT and outcome.result.turns == 200
        _PLAYED[bot] = events
    writer = store.replay_writer(MATCH)
    for event in _PLAYED[bot]:
        writer.record(event)
    replay = await writer.finish()
    lines, frame = await store.read_replay(replay), await store.read_replay_zstd(replay)
    assert frame is not None
    return lines, frame


async def test_a_200_turn_match_of_two_builtins_is_stored_in_at_most_150_kb(
    open_store: OpenStore, tmp_path: Path
) -> None:
    """Spec B14's figure, on every store: the request lines repeat the board, so the
    stored frame is a small part of the 2.5 MB of text."""
    lines, frame = await stored_200_turns(await open_store("A"), RANDOM_BOT, tmp_path)
    assert len(lines) > 2_000_000 and len(frame) <= 150_000


async def test_padded_replies_do_not_inflate_a_replay(
    open_store: OpenStore, tmp_path: Path
) -> None:
    """Spec B14: ~63 KB of ignored fields a reply keep at most 4 KiB in the replay."""
    lines, frame = await stored_200_turns(await open_store("A"), PADDED_BOT, tmp_path)
    received = [
        event for event in map(msgspec.json.decode, lines.splitlines())
        if event["event"] == "received"
    ]
    assert len(received) == 200
    assert all(len(e["line"].encode()) == 4096 and e["cut"] > 58_000 for e in received)
    assert len(frame) <= 150_000


async def finished_replay(store: ArenaFiles, match_id: str = MATCH) -> str:
    """A finished replay of random text (so that no compression makes it tiny); its
    name."""
    writer = store.replay_writer(match_id)
    writer.record({"event": "setup", "matchId": match_id})
    line = base64.b64encode(secrets.token_bytes(15_000)).decode()  # ~15 KB compressed
    writer.record({"event": "sent", "player": "P1", "line": line})
    return await writer.finish()


async def test_a_deleted_replay_is_gone_for_every_machine_and_deleting_again_is_no_error(
    open_store: OpenStore, data_dir: Callable[[str], Path]
) -> None:
    a, b = await open_store("A"), await open_store("B")
    name = await finished_replay(a)
    other = await finished_replay(a, "00000001")
    assert await b.delete_replay(name) > 0
    for store in (a, b):
        with pytest.raises(FileNotFoundError):
            await store.read_replay(name)
        assert await store.delete_replay(name) == 0  # idempotent: nothing there, no error
    assert await a.read_replay(other)  # only the one named goes
    assert leftovers(data_dir("A")) == leftovers(data_dir("B")) == []


async def test_replays_count_toward_the_cap_until_deleted(open_store: OpenStore) -> None:
    cap = 100_000
    store = await open_store(uploads_max_bytes=cap)
    assert await store.stored_bytes() == 0  # counted before the replay: kept up to date
    name = await finished_replay(store)
    size = await store.stored_bytes()
    assert size > 10_000
    with pytest.raises(StorageFull):  # bots and replays together would pass the cap
        await store.put_source(BOT, Language.PYTHON, b"x" * (cap - size + 1))
    assert await store.delete_replay(name) == size
    assert await store.stored_bytes() == 0
    await store.put_source(BOT, Language.PYTHON, b"x" * (cap - size + 1))  # room again


# --- deleting, orphans, clean-up ------------------------------------------------------


async def test_deleting_a_bot_removes_its_files_everywhere_and_nothing_else(
    open_store: OpenStore, data_dir: Callable[[str], Path], clock: FakeClock
) -> None:
    a, b = await open_store("A"), await open_store("B")
    source = await a.put_source(BOT, Language.CPP, b"int main(){}")
    artefact = await put_artefact(a, BOT, {"bot": b"ELF"})
    kept = await a.put_source(OTHER, Language.PYTHON, b"pass")
    assert tree(await b.local_artefact(artefact)) == {"bot": b"ELF"}  # cached on B
    assert await b.stored_bot_ids() == {BOT, OTHER}
    assert isinstance(await b.bot_files_modified_ms(BOT), int)

    await a.delete_bot_files(BOT)
    await a.delete_bot_files(BOT)  # again: nothing there, nothing happens
    for store in (a, b):
        assert await store.stored_bot_ids() == {OTHER}
        assert await store.bot_files_modified_ms(BOT) is None
        with pytest.raises(FileNotFoundError):
            await store.local_artefact(artefact)
        with pytest.raises(FileNotFoundError):
            await store.read_source(source)
        assert await store.read_source(kept) == b"pass"
    # B's cached copy goes with its sweep (a server's start-up)
    await b.sweep(max_age_s=0)
    assert not [p for p in data_dir("B").rglob("*") if BOT in p.as_posix()]
    assert await b.read_source(kept) == b"pass"


async def test_the_sweep_keeps_what_is_current_and_drops_replaced_versions(
    open_store: OpenStore, data_dir: Callable[[str], Path]
) -> None:
    a, b = await open_store("A"), await open_store("B")
    name = await put_artefact(a, BOT, {"bot": b"v1"})
    await b.local_artefact(name)
    await put_artefact(a, BOT, {"bot": b"v2"})
    await b.local_artefact(name)
    assert await b.sweep(max_age_s=3600) == 0  # nothing old enough
    await b.sweep(max_age_s=0)
    assert await b.sweep(max_age_s=0) == 0  # nothing left to remove
    copies = [p for p in data_dir("B").rglob("bot") if p.is_file()]
    assert [p.read_bytes() for p in copies] == [b"v2"]
    assert tree(await b.local_artefact(name)) == {"bot": b"v2"}


async def test_uploads_are_refused_past_the_cap_with_nothing_stored(open_store: OpenStore) -> None:
    store = await open_store(uploads_max_bytes=1000)
    await store.put_source(BOT, Language.PYTHON, b"x" * 600)
    with pytest.raises(StorageFull):
        await store.put_source(OTHER, Language.PYTHON, b"y" * 600)
    assert await store.stored_bot_ids() == {BOT}
    await store.delete_bot_files(BOT)
    await store.put_source(OTHER, Language.PYTHON, b"y" * 600)  # room again
    assert await store.stored_bot_ids() == {OTHER}
