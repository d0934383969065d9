"""The uploaded bots' use cases (spec B2, B5) on the real SQLite repository and data
directory in a temporary directory, with a scripted builder and a settable clock."""

from __future__ import annotations

import asyncio
import io
import random
import zipfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from noitu.adapters.arena.files import DataDirFiles
from noitu.adapters.arena.local_jobs import local_builds
from noitu.adapters.arena.sql.engine import create_engine, default_url
from noitu.adapters.arena.sql.repository import SqlArenaRepository
from noitu.adapters.http.errors import ERROR_STATUS
from noitu.application.arena.bot_details import BotDetails
from noitu.application.arena.bot_source import BotSource
from noitu.application.arena.build_queue import BuildQueue
from noitu.application.arena.delete_bot import DeleteBot
from noitu.application.arena.errors import (
    BadFile,
    BadOwnerKey,
    BotInMatch,
    BotNotBuilt,
    BotNotFound,
    BuildUnavailable,
    Busy,
    FileTooLarge,
    NotOwner,
    TooManyBots,
    TooManyUploads,
    UnsupportedFile,
    UploadsUnavailable,
)
from noitu.application.arena.jobs import JobError, JobFailed, JobLost, JobNotTaken
from noitu.application.arena.ladder.errors import BotRanked
from noitu.application.arena.ladder.rank_bot import RankBot, RankBotCommand
from noitu.application.arena.limits import (
    FAILED_BUILD_KEPT_MS,
    MAX_BOTS_PER_OWNER,
    MAX_FAILED_BUILDS_PER_OWNER,
    MAX_JAR_BYTES,
    MAX_SOURCE_BYTES,
    UPLOAD_WINDOW_MS,
    UPLOADS_PER_WINDOW,
)
from noitu.application.arena.my_bots import MyBots
from noitu.application.arena.ports import Language
from noitu.application.arena.public_bots import PublicBots, PublicBotsQuery
from noitu.application.arena.publish_bot import PublishBot, PublishBotCommand
from noitu.application.arena.records import (
    BuildStatus,
    MatchRecord,
    Seat,
    is_owner_key,
    owner_hash,
)
from noitu.application.arena.replay import SeatKind
from noitu.application.arena.sweep_failed_builds import SweepFailedBuilds
from noitu.application.arena.upload_bot import UploadBot, UploadBotCommand
from noitu.domain.arena.match import EndReason, Result
from support.arena_store import ScriptedBuilder, fresh_data_dir, migrated_template
from support.fakes import FakeClock
from support.ladder import MemoryMembers, MemoryStandings

KEY_A = "a" * 32
KEY_B = "b" * 32
SOURCE = b'import sys\nprint("hi", file=sys.stderr)\n'


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return migrated_template(tmp_path_factory.mktemp("template"))


@dataclass
class World:
    repository: SqlArenaRepository
    files: DataDirFiles
    builder: ScriptedBuilder
    clock: FakeClock
    rng: random.Random

    def upload_bot(self, builder: object = "scripted") -> UploadBot:
        chosen = self.builder if builder == "scripted" else builder
        builds = local_builds(chosen, self.files, None)  # type: ignore[arg-type]
        return UploadBot(self.repository, self.files, builds, self.clock, self.rng)

    async def upload(self, file_name: str = "bot.py", data: bytes = SOURCE, key: str | None = KEY_A, **kw: str):
        return await self.upload_bot()(UploadBotCommand(file_name, data, owner_key=key, **kw))

    def stored_ids(self) -> list[str]:
        return sorted(p.name for p in (self.files.root / "bots").iterdir())


@pytest.fixture
async def world(template: Path, tmp_path: Path, clock: FakeClock) -> AsyncIterator[World]:
    data = fresh_data_dir(template, tmp_path / "data")
    engine = create_engine(default_url(data))
    yield World(SqlArenaRepository(engine), DataDirFiles(data), ScriptedBuilder(), clock, random.Random(5))
    await engine.dispose()


def jar(main: str = "Main") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("META-INF/MANIFEST.MF", f"Main-Class: {main}\n")
    return buffer.getvalue()


# --- upload -----------------------------------------------------------------------------


async def test_a_first_upload_makes_an_owner_key_and_stores_source_artefact_and_record(world: World):
    result = await world.upload(key=None)
    assert result.new_owner and is_owner_key(result.owner_key) and result.compiled
    record = await world.repository.get_bot(result.bot.id)
    assert record is not None and record.owner == owner_hash(result.owner_key)
    assert record.build is BuildStatus.OK and record.artefact_dir is not None
    assert record.name == "bot" and record.created_ms == world.clock.now
    assert await world.files.read_source(record.source_file) == SOURCE
    assert (world.files.artefact_path(record.artefact_dir) / "bot.py").read_bytes() == SOURCE
    assert world.builder.built == [(SOURCE, Language.PYTHON)]
    again = await world.upload(key=result.owner_key, name="  Kéo   Búa! ")
    assert not again.new_owner and again.owner_key == result.owner_key and again.bot.name == "Kéo Búa"


@pytest.mark.parametrize(
    ("file_name", "language"),
    [("a.py", Language.PYTHON), ("A.CPP", Language.CPP), ("b.cc", Language.CPP),
     ("c.cxx", Language.CPP), ("Main.java", Language.JAVA), ("C:\\bots\\x.jar", Language.JAR)],
)
async def test_the_language_comes_from_the_file_names_extension(world: World, file_name, language):
    data = jar() if language is Language.JAR else SOURCE
    result = await world.upload(file_name, data)
    assert result.bot.language is language
    assert result.bot.name in ("a", "A", "b", "c", "Main", "x")


async def test_a_failed_build_is_stored_with_its_messages_and_no_artefact(world: World):
    world.builder.ok, world.builder.messages = False, "bot.cpp:1:1: error: expected ';'"
    result = await world.upload("broken.cpp")
    assert not result.compiled and result.bot.build_messages == "bot.cpp:1:1: error: expected ';'"
    record = await world.repository.get_bot(result.bot.id)
    assert record is not None and record.build is BuildStatus.FAILED and record.artefact_dir is None
    assert not (world.files.root / "bots" / record.id / "artefact").exists()


@pytest.mark.parametrize(
    ("file_name", "data", "error"),
    [
        ("bot.rb", SOURCE, UnsupportedFile),
        ("README", SOURCE, UnsupportedFile),
        ("bot.py", b"#" * (MAX_SOURCE_BYTES + 1), FileTooLarge),
        ("bot.jar", b"PK" + b"\0" * MAX_JAR_BYTES, FileTooLarge),
        ("bot.py", b"", BadFile),
        ("bot.py", b"\xff\xfe\x00p", BadFile),
        ("bot.cpp", b"int main() {}\x00", BadFile),
        ("bot.jar", b"PK but no zip", BadFile),
        ("bot.jar", SOURCE, BadFile),
    ],
)
async def test_refused_files_store_nothing_and_are_not_counted(world: World, file_name, data, error):
    with pytest.raises(error):
        await world.upload(file_name, data)
    assert world.builder.built == [] and world.stored_ids() == []
    # The window has room for one upload still: the refused one took no place in it.
    assert await world.repository.record_upload(
        owner_hash(KEY_A), world.clock.now_ms(), window_ms=UPLOAD_WINDOW_MS, limit=1
    )


def jar_of_size(size: int) -> bytes:
    """A JAR of exactly `size` bytes: a stored entry grows the archive by its length."""

    def archive(padding: int) -> bytes:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as made:
            made.writestr("META-INF/MANIFEST.MF", "Main-Class: Main\n")
            made.writestr("pad", b"\0" * padding)
        return buffer.getvalue()

    return archive(size - len(archive(0)))


async def test_the_size_limits_are_inclusive(world: World):
    assert (await world.upload("big.py", b"#" * MAX_SOURCE_BYTES)).compiled
    exact = jar_of_size(MAX_JAR_BYTES)
    assert len(exact) == MAX_JAR_BYTES
    assert (await world.upload("big.jar", exact)).compiled
    with pytest.raises(FileTooLarge):
        await world.upload("bigger.jar", jar_of_size(MAX_JAR_BYTES + 1))


@pytest.mark.parametrize("key", ["A" * 32, "a" * 31, "g" * 32, " " + "a" * 31])
async def test_a_malformed_owner_key_is_refused_before_anything(world: World, key: str):
    with pytest.raises(BadOwnerKey):
        await world.upload(key=key)
    assert world.builder.built == []


async def test_without_a_sandbox_uploads_are_refused(world: World):
    with pytest.raises(UploadsUnavailable):
        await world.upload_bot(builder=None)(UploadBotCommand("bot.py", SOURCE, owner_key=KEY_A))
    assert world.stored_ids() == []


async def test_uploads_per_minute_are_limited_per_owner_in_a_sliding_window(world: World):
    for _ in range(UPLOADS_PER_WINDOW):
        await world.upload()
        world.clock.advance(1_000)
    with pytest.raises(TooManyUploads):
        await world.upload()
    await world.upload(key=KEY_B)  # another owner is not slowed down
    # The first upload leaves the window one minute after it was made.
    world.clock.advance(UPLOAD_WINDOW_MS - UPLOADS_PER_WINDOW * 1_000 - 1)
    with pytest.raises(TooManyUploads):
        await world.upload()
    world.clock.advance(1)
    await world.upload()
    assert len(world.builder.built) == UPLOADS_PER_WINDOW + 2


async def test_bots_stored_are_limited_per_owner(world: World):
    for n in range(MAX_BOTS_PER_OWNER):
        world.clock.advance(UPLOAD_WINDOW_MS)
        await world.upload(f"b{n}.py")
    world.clock.advance(UPLOAD_WINDOW_MS)
    with pytest.raises(TooManyBots):
        await world.upload()
    assert len(world.stored_ids()) == MAX_BOTS_PER_OWNER
    await world.upload(key=KEY_B)


async def test_a_failed_build_does_not_count_and_is_kept_a_day(world: World):
    for n in range(MAX_BOTS_PER_OWNER - 1):
        world.clock.advance(UPLOAD_WINDOW_MS)
        await world.upload(f"b{n}.py")
    world.builder.ok, world.builder.messages = False, "hỏng.py:1: lỗi"
    world.clock.advance(UPLOAD_WINDOW_MS)
    failed = (await world.upload("hỏng.py")).bot
    assert failed.build is BuildStatus.FAILED and world.builder.shown_as[-1] == "hỏng.py"
    # It does not count: the 20th bot that builds is taken, then the cap holds.
    world.builder.ok = True
    world.clock.advance(UPLOAD_WINDOW_MS)
    assert (await world.upload("b19.py")).compiled
    world.clock.advance(UPLOAD_WINDOW_MS)
    with pytest.raises(TooManyBots):
        await world.upload("c.py")
    mine = await MyBots(world.repository)(KEY_A)
    assert len(mine) == MAX_BOTS_PER_OWNER + 1  # listed with the others, marked failed
    assert [b.id for b in mine if b.build is BuildStatus.FAILED] == [failed.id]
    # A day after its upload it is gone, row and files, at the owner's next upload.
    world.clock.advance(FAILED_BUILD_KEPT_MS - 2 * UPLOAD_WINDOW_MS - 1)
    with pytest.raises(TooManyBots):
        await world.upload("c.py")
    assert await world.repository.get_bot(failed.id) is not None
    world.clock.advance(1)
    with pytest.raises(TooManyBots):
        await world.upload("c.py")
    assert await world.repository.get_bot(failed.id) is None
    assert failed.id not in world.stored_ids() and len(world.stored_ids()) == MAX_BOTS_PER_OWNER


async def test_failed_builds_are_swept_at_start_up_and_only_the_newest_are_kept(world: World):
    world.builder.ok = False
    sweep = SweepFailedBuilds(world.repository, world.files, world.clock)
    ids = []
    for n in range(MAX_FAILED_BUILDS_PER_OWNER + 2):
        world.clock.advance(UPLOAD_WINDOW_MS)
        ids.append((await world.upload(f"f{n}.cpp")).bot.id)
    kept = [b.id for b in await world.repository.failed_builds()]
    assert kept == ids[::-1][:MAX_FAILED_BUILDS_PER_OWNER]  # the two oldest went
    assert sorted(world.stored_ids()) == sorted(kept)
    other = (await world.upload("g.cpp", key=KEY_B)).bot
    assert await sweep() == 0
    world.clock.advance(FAILED_BUILD_KEPT_MS)
    assert await sweep() == MAX_FAILED_BUILDS_PER_OWNER + 1  # everyone's, as at start-up
    assert await world.repository.get_bot(other.id) is None and world.stored_ids() == []


class RacingCatalogue:
    """The repository, but `count_bots` answers 0 as if another upload came in between."""

    def __init__(self, inner: SqlArenaRepository) -> None:
        self._inner = inner

    def __getattr__(self, name: str):
        return getattr(self._inner, name)

    async def count_bots(self, owner: str) -> int:
        return 0


async def test_the_last_check_of_bots_stored_is_atomic_and_leaves_no_files(world: World):
    for n in range(MAX_BOTS_PER_OWNER):
        world.clock.advance(UPLOAD_WINDOW_MS)
        await world.upload(f"b{n}.py")
    before = world.stored_ids()
    world.clock.advance(UPLOAD_WINDOW_MS)
    builds = local_builds(world.builder, world.files, None)
    racing = UploadBot(RacingCatalogue(world.repository), world.files, builds, world.clock, world.rng)  # type: ignore[arg-type]
    with pytest.raises(TooManyBots):
        await racing(UploadBotCommand("late.py", SOURCE, owner_key=KEY_A))
    assert world.stored_ids() == before and len(world.builder.built) == MAX_BOTS_PER_OWNER + 1


async def test_a_builder_that_raises_leaves_nothing_stored(world: World):
    world.builder.error = RuntimeError("the sandbox broke")
    with pytest.raises(BuildUnavailable) as caught:
        await world.upload()
    assert isinstance(caught.value.__cause__, JobFailed)
    assert isinstance(caught.value.__cause__.__cause__, RuntimeError)
    assert world.stored_ids() == [] and await world.repository.bots_of(owner_hash(KEY_A)) == []
    assert not any((world.files.root / "tmp").iterdir())  # the scratch directory is gone too


class RefusingJobs:
    """A build queue that gives no result, the way `error` says."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def submit(self, job_type, payload, line=None):  # type: ignore[no-untyped-def]
        raise self.error


@pytest.mark.parametrize(
    ("error", "answer"),
    [
        (JobNotTaken("no worker took it"), Busy),
        (JobLost("its worker went silent"), Busy),
        (JobError("the queue is unreachable"), Busy),
        (JobFailed("the sandbox broke"), BuildUnavailable),
    ],
)
async def test_a_build_job_without_a_result_is_refused_and_leaves_nothing_stored(
    world: World, error: Exception, answer: type
):
    upload = UploadBot(world.repository, world.files, RefusingJobs(error), world.clock, world.rng)
    with pytest.raises(answer) as caught:
        await upload(UploadBotCommand("bot.py", SOURCE, owner_key=KEY_A))
    assert caught.value.__cause__ is error and ERROR_STATUS[caught.value.code] == 503
    assert world.stored_ids() == [] and await world.repository.bots_of(owner_hash(KEY_A)) == []


class FailingAdd:
    def __init__(self, inner: SqlArenaRepository) -> None:
        self._inner = inner

    def __getattr__(self, name: str):
        return getattr(self._inner, name)

    async def add_bot(self, bot, *, max_bots=None) -> bool:
        raise OSError("the disk is full")


async def test_a_failure_storing_the_record_deletes_the_files_written(world: World):
    builds = local_builds(world.builder, world.files, None)
    failing = UploadBot(FailingAdd(world.repository), world.files, builds, world.clock, world.rng)  # type: ignore[arg-type]
    with pytest.raises(OSError):
        await failing(UploadBotCommand("bot.py", SOURCE, owner_key=KEY_A))
    assert world.builder.built and world.stored_ids() == []


# --- listing, details, source -----------------------------------------------------------


async def test_my_bots_are_mine_only_newest_first(world: World):
    first = (await world.upload("one.py")).bot
    world.clock.advance(UPLOAD_WINDOW_MS)
    second = (await world.upload("two.py")).bot
    await world.upload(key=KEY_B)
    mine = await MyBots(world.repository)(KEY_A)
    assert [b.id for b in mine] == [second.id, first.id] and all(b.mine for b in mine)
    assert await MyBots(world.repository)(None) == []
    with pytest.raises(BadOwnerKey):
        await MyBots(world.repository)("nope")


async def test_details_are_the_owners_and_a_private_bot_of_someone_else_is_not_found(world: World):
    world.builder.messages = "warning: x"
    bot = (await world.upload()).bot
    details = BotDetails(world.repository)
    mine = await details(bot.id, KEY_A)
    assert mine.mine and mine.build_messages == "warning: x" and mine.source_bytes == len(SOURCE)
    for viewer in (KEY_B, None):
        with pytest.raises(BotNotFound):
            await details(bot.id, viewer)
    with pytest.raises(BotNotFound):
        await details("../../etc/passwd", KEY_A)
    await PublishBot(world.repository, MemoryMembers())(PublishBotCommand(bot.id, True, KEY_A))
    theirs = await details(bot.id, KEY_B)
    assert (theirs.mine, theirs.build_messages, theirs.source_bytes, theirs.public) == (False, None, None, True)


async def test_the_source_is_the_owners_alone(world: World):
    bot = (await world.upload("Main.java", b"public class Main {}\n")).bot
    source = BotSource(world.repository, world.files)
    found = await source(bot.id, KEY_A)
    assert (found.data, found.file_name, found.language) == (b"public class Main {}\n", "Main.java", Language.JAVA)
    with pytest.raises(BotNotFound):
        await source(bot.id, KEY_B)
    await PublishBot(world.repository, MemoryMembers())(PublishBotCommand(bot.id, True, KEY_A))
    with pytest.raises(NotOwner):
        await source(bot.id, KEY_B)
    with pytest.raises(NotOwner):
        await source(bot.id, None)


async def test_public_bots_page_newest_first_with_a_cursor(world: World):
    ids = []
    for n in range(5):
        world.clock.advance(UPLOAD_WINDOW_MS)
        bot = (await world.upload(f"p{n}.py")).bot
        await PublishBot(world.repository, MemoryMembers())(PublishBotCommand(bot.id, True, KEY_A))
        ids.append(bot.id)
    await world.upload(key=KEY_B)  # private: never listed
    public = PublicBots(world.repository)
    pages, before = [], None
    while True:
        page = await public(PublicBotsQuery(limit=2, before=before, owner_key=KEY_B))
        pages.append([b.id for b in page.bots])
        assert not any(b.mine for b in page.bots)
        if page.next is None:
            break
        before = page.next
    assert pages == [ids[4:2:-1], ids[2:0:-1], ids[:1]]


# --- publish and delete -----------------------------------------------------------------


async def test_publishing_is_the_owners_and_needs_a_good_build(world: World):
    bot = (await world.upload()).bot
    publish = PublishBot(world.repository, MemoryMembers())
    with pytest.raises(BotNotFound):
        await publish(PublishBotCommand(bot.id, True, KEY_B))
    assert (await publish(PublishBotCommand(bot.id, True, KEY_A))).public
    with pytest.raises(NotOwner):
        await publish(PublishBotCommand(bot.id, False, KEY_B))
    assert not (await publish(PublishBotCommand(bot.id, False, KEY_A))).public
    world.builder.ok = False
    world.clock.advance(UPLOAD_WINDOW_MS)
    broken = (await world.upload("broken.cpp")).bot
    with pytest.raises(BotNotBuilt, match="biên dịch bị lỗi"):
        await publish(PublishBotCommand(broken.id, True, KEY_A))
    assert not (await publish(PublishBotCommand(broken.id, False, KEY_A))).public


def live_match(bot_id: str, owner: str) -> MatchRecord:
    return MatchRecord(
        id="0A1B2C3D", room="ABCDEF", seed=7, turn_limit=200, created_ms=1,
        p1=Seat(SeatKind.UPLOAD, bot_id, "bot", owner), p2=Seat(SeatKind.BUILTIN, "random", "random"),
    )


async def test_delete_is_the_owners_removes_the_files_and_waits_for_a_live_match(world: World):
    bot = (await world.upload()).bot
    delete = DeleteBot(world.repository, world.repository, world.files, MemoryMembers())
    with pytest.raises(BotNotFound):
        await delete(bot.id, KEY_B)
    await world.repository.add_match(live_match(bot.id, owner_hash(KEY_A)))
    with pytest.raises(BotInMatch):
        await delete(bot.id, KEY_A)
    assert world.stored_ids() == [bot.id]
    ended = Result(winner=None, reason=EndReason.TURN_LIMIT, turns=200)
    assert await world.repository.finish_match("0A1B2C3D", ended, world.clock.now, None)
    await delete(bot.id, KEY_A)
    assert world.stored_ids() == [] and await world.repository.get_bot(bot.id) is None
    with pytest.raises(BotNotFound):
        await delete(bot.id, KEY_A)


async def test_a_ranked_bot_stays_public_and_leaves_the_ladder_when_deleted(world: World):
    bot = (await world.upload()).bot
    members = MemoryMembers()
    publish = PublishBot(world.repository, members)
    await RankBot(world.repository, members, MemoryStandings())(RankBotCommand(bot.id, KEY_A))
    with pytest.raises(BotRanked):
        await publish(PublishBotCommand(bot.id, False, KEY_A))
    assert (await world.repository.get_bot(bot.id)).public
    assert (await publish(PublishBotCommand(bot.id, True, KEY_A))).public
    await DeleteBot(world.repository, world.repository, world.files, members)(bot.id, KEY_A)
    assert await members.get(bot.id) is None


# --- the global build queue (spec B10) ----------------------------------------------------


class HeldBuilder(ScriptedBuilder):
    """Builds once the test lets each one go: the builds at once are counted."""

    def __init__(self) -> None:
        super().__init__()
        self.go = asyncio.Event()
        self.at_once = 0
        self.most = 0

    async def build(self, source, language, into, *, shown_as=None):  # type: ignore[no-untyped-def]
        self.at_once += 1
        self.most = max(self.most, self.at_once)
        try:
            await self.go.wait()
            return await super().build(source, language, into, shown_as=shown_as)
        finally:
            self.at_once -= 1


async def test_uploads_build_one_per_place_of_the_queue_and_say_how_long_they_waited(world: World):
    builder = HeldBuilder()
    queue = BuildQueue(1, world.clock)
    use_case = UploadBot(
        world.repository, world.files, local_builds(builder, world.files, queue), world.clock,
        world.rng,
    )
    keys = ["c" * 32, "d" * 32, "e" * 32]
    tasks = [
        asyncio.create_task(use_case(UploadBotCommand(f"b{n}.py", SOURCE, owner_key=key)))
        for n, key in enumerate(keys)
    ]
    async with asyncio.timeout(30):  # the uploads reach the queue (SQL runs in threads)
        while queue.waiting < 2:
            await asyncio.sleep(0.01)
    assert builder.at_once == 1
    world.clock.advance(4_000)
    builder.go.set()
    results = await asyncio.gather(*tasks)
    assert builder.most == 1 and all(result.compiled for result in results)
    assert sorted(result.build_wait_ms for result in results) == [0, 4_000, 4_000]


class SteppedBuilder(ScriptedBuilder):
    """Builds one at a time as the test lets each go, naming what it built in order."""

    def __init__(self) -> None:
        super().__init__()
        self.began: list[bytes] = []
        self.go = asyncio.Semaphore(0)

    async def build(self, source, language, into, *, shown_as=None):  # type: ignore[no-untyped-def]
        self.began.append(source.read_bytes())
        await self.go.acquire()
        return await super().build(source, language, into, shown_as=shown_as)


async def test_one_addresss_flood_of_uploads_builds_after_another_addresss_upload(world: World):
    # The attack, bounded: uploads from one address under fresh keys, each a long
    # compile, hold the one build place and wait behind it; an upload from another
    # address is built next, not last.
    builder = SteppedBuilder()
    queue = BuildQueue(1, world.clock)
    use_case = UploadBot(
        world.repository, world.files, local_builds(builder, world.files, queue), world.clock,
        world.rng,
    )

    def source(name: str) -> bytes:
        return SOURCE + f"# {name}\n".encode()

    async def until_waiting(count: int) -> None:
        async with asyncio.timeout(30):  # the uploads reach the queue (SQL runs in threads)
            while queue.waiting < count or not builder.began:
                await asyncio.sleep(0.01)

    flood = []
    for n in range(3):
        flood.append(asyncio.create_task(use_case(UploadBotCommand(
            f"flood{n}.py", source(f"flood{n}"), owner_key=None, address="10.0.0.66"))))
        # Each in turn: the first holds the build place before the second is sent (an
        # upload's SQL runs in a thread, so two sent at once may reach the queue swapped).
        await until_waiting(n)
    victim = asyncio.create_task(use_case(UploadBotCommand(
        "mine.py", source("mine"), owner_key=KEY_B, address="10.0.0.7")))
    await until_waiting(3)
    for _ in range(4):
        builder.go.release()
    results = await asyncio.gather(*flood, victim)
    assert all(result.compiled for result in results)
    assert [built.rsplit(b"# ", 1)[1] for built in builder.began] == [
        b"flood0\n", b"mine\n", b"flood1\n", b"flood2\n"
    ]
