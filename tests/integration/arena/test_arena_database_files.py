"""The arena's files in its database (NOITU_ARENA_FILES=database, spec B9) through the
real app, the real sandbox and a database on SQLite and on PostgreSQL: a bot uploaded
on one "machine" plays there, and a second machine with an empty data directory on the
same database serves the first one's replay and plays the bot too. Also: an artefact
tampered with in the database is refused, with nothing left in the cache.

What every files store must do is the contract in tests/contract/test_arena_file_stores.py.
"""

from __future__ import annotations

import io
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import update

from noitu.adapters.arena.sql import migrations
from noitu.adapters.arena.sql.engine import create_engine
from noitu.adapters.arena.sql.files import DatabaseFiles
from noitu.adapters.arena.sql.models import files
from support.arena_bots import BOTS, require
from support.arena_server import Served, build, serving
from support.arena_store import ProbedOnce
from support.fakes import FakeClock

KEY = "c" * 32
BOT = "0123456789abcdef"


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> str:
    return request.param


def on(url: str) -> dict[str, str]:
    return {"NOITU_ARENA_FILES": "database", "NOITU_ARENA_DATABASE": url}


async def play_against_random(served: Served, bot: str) -> dict:
    created = await served.create({"kind": "upload", "ref": bot}, {"kind": "builtin", "ref": "random"}, key=KEY)
    assert created.status_code == 201, created.text
    room = await served.until(created.json()["room"]["code"], lambda r: r["replayReady"], timeout_s=120)
    assert room["result"]["reason"] != "ABANDONED", room["result"]
    assert room["result"]["failure"] is None, room["result"]
    return room


async def test_a_bot_uploaded_on_one_machine_plays_on_another_with_an_empty_data_dir(
    new_url: Callable[[bool], str], arena_probe: ProbedOnce, tmp_path: Path
) -> None:
    require(arena_probe.status)
    url = new_url(True)
    source = (BOTS / "a5_minimal.py").read_bytes()
    async with serving(build(tmp_path / "machine-a", arena_probe, env=on(url))) as first:
        assert isinstance(first.container.arena_files(), DatabaseFiles)
        answer = await first.http.post(
            "/arena/api/bots",
            files={"file": ("a5_minimal.py", source, "text/x-python")},
            headers={"X-Owner-Key": KEY},
        )
        assert answer.status_code == 201, answer.text
        bot = answer.json()["bot"]["id"]
        assert answer.json()["bot"]["build"] == "ok"
        room = await play_against_random(first, bot)
        replay = await first.http.get(f"/arena/api/matches/{room['matchId']}/replay")
        assert replay.status_code == 200
    # Nothing of the match stays on machine A's disk: the replay is in the database.
    assert not list((tmp_path / "machine-a").rglob("*.jsonl"))

    second_dir = tmp_path / "machine-b"
    assert not second_dir.exists()
    async with serving(build(second_dir, arena_probe, env=on(url))) as second:
        again = await second.http.get(f"/arena/api/matches/{room['matchId']}/replay")
        assert again.status_code == 200 and again.content == replay.content
        mine = await second.http.get(f"/arena/api/bots/{bot}/source", headers={"X-Owner-Key": KEY})
        assert mine.status_code == 200 and mine.content == source
        await play_against_random(second, bot)
    fetched = list((second_dir / "cache" / "bots" / bot).glob("artefact.*/bot.py"))
    assert [path.read_bytes() for path in fetched] == [source]


async def test_a_tampered_artefact_is_refused_and_leaves_nothing_in_the_cache(
    new_url: Callable[[bool], str], engines: list, tmp_path: Path, clock: FakeClock
) -> None:
    engine = create_engine(new_url(True))
    engines.append(engine)
    await migrations.upgrade(engine)
    store = DatabaseFiles(engine, tmp_path / "a", clock)
    async with store.scratch() as scratch:
        (scratch / "bot.py").write_text("print()\n")
        name = await store.put_artefact(BOT, scratch)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        escape = tarfile.TarInfo("../../escaped.py")
        escape.size = 3
        archive.addfile(escape, io.BytesIO(b"bad"))
    async with engine.begin() as connection:
        await connection.execute(
            update(files).where(files.c.name == name).values(data=buffer.getvalue(), digest="f" * 64)
        )
    other = DatabaseFiles(engine, tmp_path / "b", clock)
    with pytest.raises(ValueError):
        await other.local_artefact(name)
    assert not list(tmp_path.rglob("escaped.py"))
    assert [p for p in (tmp_path / "b").rglob("*") if p.is_file()] == []
