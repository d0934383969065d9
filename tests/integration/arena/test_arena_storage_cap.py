"""The data directory's room for uploaded bots (spec B10): an operator's cap on what
sources and artefacts take, refusing uploads with `storage_full` once it is used up.
On the real SQLite repository and data directory, with a scripted builder."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from noitu.adapters.arena.files import DataDirFiles
from noitu.adapters.arena.local_jobs import local_builds
from noitu.adapters.arena.sql.engine import create_engine, default_url
from noitu.adapters.arena.sql.repository import SqlArenaRepository
from noitu.adapters.http.errors import ERROR_STATUS
from noitu.application.arena.delete_bot import DeleteBot
from noitu.application.arena.errors import StorageFull
from noitu.application.arena.records import owner_hash
from noitu.application.arena.upload_bot import UploadBot, UploadBotCommand
from noitu.entrypoints.settings import SettingsError, load_settings
from support.arena_store import ScriptedBuilder, fresh_data_dir, migrated_template
from support.fakes import FakeClock
from support.ladder import MemoryMembers

KEY = "c" * 32
SOURCE = b"import sys\nfor line in sys.stdin:\n    print('{}', flush=True)\n"
S = len(SOURCE)  # a bot takes 2 S: its source and its artefact (a copy, here)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return migrated_template(tmp_path_factory.mktemp("template"))


@pytest.fixture
async def data(template: Path, tmp_path: Path) -> AsyncIterator[tuple[Path, SqlArenaRepository]]:
    directory = fresh_data_dir(template, tmp_path / "data")
    engine = create_engine(default_url(directory))
    yield directory, SqlArenaRepository(engine)
    await engine.dispose()


async def test_uploads_are_refused_once_the_data_directorys_room_is_used_up(
    data: tuple[Path, SqlArenaRepository], clock: FakeClock
) -> None:
    directory, repository = data
    files = DataDirFiles(directory, uploads_max_bytes=3 * S + S // 2)
    upload = UploadBot(repository, files, local_builds(ScriptedBuilder(), files, None), clock,
                       random.Random(1))

    async def send() -> str:
        result = await upload(UploadBotCommand("bot.py", SOURCE, owner_key=KEY))
        return result.bot.id

    first = await send()
    await send()  # 2 S stored + S fits; its artefact then passes the cap by one artefact
    assert await files.stored_bytes() == 4 * S
    stored = sorted(p.name for p in (directory / "bots").iterdir())
    with pytest.raises(StorageFull):
        await send()
    assert sorted(p.name for p in (directory / "bots").iterdir()) == stored  # nothing written
    assert len(await repository.bots_of(owner_hash(KEY))) == 2

    # A fresh server on the same directory counts what is there.
    with pytest.raises(StorageFull):
        again = DataDirFiles(directory, 3 * S + S // 2)
        await UploadBot(repository, again, local_builds(ScriptedBuilder(), again, None),
                        clock, random.Random(2))(UploadBotCommand("bot.py", SOURCE, owner_key=KEY))

    await DeleteBot(repository, repository, files, MemoryMembers())(first, KEY)
    assert await files.stored_bytes() == 2 * S
    await send()  # room again


def test_the_cap_is_an_operator_setting_with_a_sensible_default_and_its_own_status() -> None:
    assert load_settings({}).arena_uploads_max_bytes == 2 * 1024**3
    assert load_settings({"NOITU_ARENA_UPLOADS_MIB": "10"}).arena_uploads_max_bytes == 10 * 1024**2
    for bad in ("0", "-1", "2G", ""):
        with pytest.raises(SettingsError, match="NOITU_ARENA_UPLOADS_MIB"):
            load_settings({"NOITU_ARENA_UPLOADS_MIB": bad})
    assert ERROR_STATUS[StorageFull.code] == 507
