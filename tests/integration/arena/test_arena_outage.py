"""Redis or PostgreSQL away under the multi-machine settings (spec B9 "Faults"): the real
app on a real redis-server and a real PostgreSQL (its own, stopped and started again on
the same port: the outage), NOITU_STORE=redis and the files in the database.

- Redis stopped: the arena's calls that need it answer 503 `busy` within 2 s, /healthz
  200; a room's WebSocket sends `busy` and closes 1011; started again: the same calls
  answer, and a socket opened again reads the room's latest snapshot.
- PostgreSQL stopped: the calls that need it answer 503 `busy` within 2 s, /healthz 200;
  started again: they answer 200.
- A bot-against-bot match whose end falls inside a PostgreSQL outage shows its result at
  once and is archived (result, replay, stderr tails) once the database is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from noitu.bench.postgres_server import MISSING_REASON as NO_POSTGRES
from noitu.bench.postgres_server import PG_BIN, PostgresServer
from noitu.bench.redis_server import MISSING_REASON as NO_REDIS
from noitu.bench.redis_server import REDIS_SERVER, RedisServer
from support.arena_bots import BOTS, require
from support.arena_server import ROOMS, Served, build, serving
from support.arena_store import ProbedOnce

KEY = "d" * 32
BUSY_WITHIN_S = 2.0
_databases = itertools.count()


def _missing(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"CI must test the arena's outages: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def postgres_outage() -> Iterator[PostgresServer]:
    """A PostgreSQL of this module's own: its tests stop and start it."""
    if PG_BIN is None:
        _missing(NO_POSTGRES)
    server = PostgresServer()
    server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def redis_outage(tmp_path: Path) -> Iterator[RedisServer]:
    if REDIS_SERVER is None:
        _missing(NO_REDIS)
    with RedisServer(tmp_path / "redis") as server:
        yield server


@pytest.fixture
def settings(postgres_outage: PostgresServer, redis_outage: RedisServer) -> dict[str, str]:
    if not postgres_outage.running:
        postgres_outage.start()
    url = postgres_outage.create_database(f"outage_{next(_databases)}")
    return {
        "NOITU_STORE": "redis",
        "REDIS_URL": redis_outage.url,
        "NOITU_ARENA_DATABASE": url,
        "NOITU_ARENA_FILES": "database",
        "NOITU_ARENA_LADDER": "0",
    }


async def timed(call) -> tuple[float, object]:
    started = time.monotonic()
    answer = await call
    return time.monotonic() - started, answer


async def assert_busy(call) -> None:
    took, answer = await timed(call)
    assert answer.status_code == 503, answer.text
    assert answer.json()["error"] == "busy" and answer.json()["message"]
    assert took < BUSY_WITHIN_S, took


async def healthy(served: Served) -> None:
    assert (await served.http.get("/healthz")).status_code == 200


async def person_room(served: Served) -> str:
    """A person against a built-in bot: in placement for two minutes."""
    created = await served.create(
        {"kind": "person", "name": "Lan"}, {"kind": "builtin", "ref": "random"}, key=KEY
    )
    assert created.status_code == 201, created.text
    return created.json()["room"]["code"]


async def frames_until_closed(served: Served, code: str, on_first=None) -> tuple[list, int]:
    frames: list[dict] = []
    async with connect(f"{served.ws_base}/arena/ws/rooms/{code}") as socket:
        with contextlib.suppress(ConnectionClosed):  # 1011 ends the iteration with it
            async with asyncio.timeout(20):
                async for message in socket:
                    frames.append(json.loads(message))
                    if on_first is not None and len(frames) == 1:
                        await on_first()
        return frames, socket.close_code


async def test_redis_away_is_busy_within_two_seconds_and_play_resumes_when_it_returns(
    settings: dict[str, str], redis_outage: RedisServer, arena_probe: ProbedOnce, tmp_path: Path
) -> None:
    async with serving(build(tmp_path / "data", arena_probe, env=settings)) as served:
        code = await person_room(served)
        first = await served.room(code, KEY)
        assert first["phase"] == "PLACEMENT"

        async def stop_redis() -> None:
            await asyncio.to_thread(redis_outage.stop)

        frames, close_code = await frames_until_closed(served, code, on_first=stop_redis)
        assert frames[0]["type"] == "room"
        assert frames[-1]["type"] == "error" and frames[-1]["error"] == "busy"
        assert close_code == 1011

        await healthy(served)
        body = {"seat": {"kind": "person", "name": "Mai"}, "opponent": {"kind": "builtin", "ref": "random"}}
        await assert_busy(served.http.post(ROOMS, json=body, headers={"X-Owner-Key": "e" * 32}))
        # A room maybe on another instance: only Redis could tell.
        frames, close_code = await frames_until_closed(served, "K7MPAC")
        assert [frame["error"] for frame in frames] == ["busy"] and close_code == 1011
        # The room lives here: it is answered from memory, its clock running.
        assert (await served.room(code, KEY))["phase"] == "PLACEMENT"
        random_placement = {"type": "RANDOM_PLACEMENT"}
        placed = await served.post(code, "placement", random_placement, key=KEY)
        assert placed.status_code == 200, placed.text
        # A socket opened while Redis is away: the room as it is, then busy and 1011.
        frames, close_code = await frames_until_closed(served, code)
        assert frames[-1]["error"] == "busy" and close_code == 1011

        await asyncio.to_thread(redis_outage.start)
        again = await served.http.post(ROOMS, json=body, headers={"X-Owner-Key": "e" * 32})
        assert again.status_code == 201, again.text
        latest = await served.room(code, KEY)

        async with connect(f"{served.ws_base}/arena/ws/rooms/{code}") as socket:
            frame = json.loads(await asyncio.wait_for(socket.recv(), 10))
        assert frame["type"] == "room", frame
        assert frame["room"]["version"] >= latest["version"]
        # What changed during the outage is published once Redis is back (its next try).
        feed = served.container.room_feed()
        async with asyncio.timeout(15):
            while (elsewhere := await feed.latest(code)) is None:
                await asyncio.sleep(0.1)
        assert elsewhere.version >= placed.json()["version"]
        await healthy(served)


async def test_postgresql_away_is_busy_within_two_seconds_and_answers_when_it_returns(
    settings: dict[str, str], postgres_outage: PostgresServer, arena_probe: ProbedOnce,
    tmp_path: Path,
) -> None:
    async with serving(build(tmp_path / "data", arena_probe, env=settings)) as served:
        headers = {"X-Owner-Key": KEY}
        calls = [
            lambda: served.http.get("/arena/api/bots/public"),
            lambda: served.http.get("/arena/api/bots", headers=headers),
            lambda: served.http.get("/arena/api/ladder"),
        ]
        person_and_bot = ({"kind": "person", "name": "Lan"}, {"kind": "builtin", "ref": "random"})
        for call in calls:
            assert (await call()).status_code == 200
        await asyncio.to_thread(postgres_outage.stop)
        try:
            for call in calls:
                await assert_busy(call())
            await healthy(served)
            # A room needs no database until its match is made: its host waits for the
            # database to record the match (an outage under 30 s abandons nothing).
            made = await served.create(*person_and_bot, key=KEY)
            assert made.status_code == 201, made.text
            code = made.json()["room"]["code"]
            assert (await served.room(code, KEY))["matchId"] is None
        finally:
            await asyncio.to_thread(postgres_outage.start)
        for call in calls:
            answer = await call()
            assert answer.status_code == 200, answer.text
        assert (await served.hosted(code, KEY))["phase"] == "PLACEMENT"


async def test_a_match_ending_during_a_postgresql_outage_is_archived_when_it_returns(
    settings: dict[str, str], postgres_outage: PostgresServer, arena_probe: ProbedOnce,
    tmp_path: Path,
) -> None:
    require(arena_probe.status)
    async with serving(build(tmp_path / "data", arena_probe, env=settings)) as served:
        headers = {"X-Owner-Key": KEY}
        source = (BOTS / "takes_its_time.py").read_bytes()
        uploaded = await served.http.post(
            "/arena/api/bots",
            files={"file": ("takes_its_time.py", source, "text/x-python")},
            headers=headers,
        )
        assert uploaded.status_code == 201, uploaded.text
        bot = uploaded.json()["bot"]["id"]
        created = await served.create(
            {"kind": "upload", "ref": bot}, {"kind": "builtin", "ref": "random"}, key=KEY
        )
        assert created.status_code == 201, created.text
        code = created.json()["room"]["code"]
        playing = await served.until(code, lambda r: r["phase"] == "PLAYING" and r["turn"] >= 2)

        await asyncio.to_thread(postgres_outage.stop)
        try:
            gave_up = await served.post(code, "surrender", {}, key=KEY)
            assert gave_up.status_code == 200, gave_up.text
            shown = await served.until(code, lambda r: r["result"] is not None, timeout_s=10)
            assert shown["result"]["reason"] == "SURRENDER" and not shown["replayReady"]
            await assert_busy(served.http.get(f"/arena/api/matches/{playing['matchId']}/replay"))
            await asyncio.sleep(1.5)  # a try or two more while it is away
        finally:
            await asyncio.to_thread(postgres_outage.start)

        done = await served.until(code, lambda r: r["replayReady"], timeout_s=40)
        assert done["result"] == shown["result"]
        replay = await served.http.get(f"/arena/api/matches/{done['matchId']}/replay")
        assert replay.status_code == 200
        events = [json.loads(line) for line in replay.text.splitlines()]
        assert events[0]["event"] == "setup" and events[-1]["event"] == "end"
        assert events[-1]["reason"] == "SURRENDER"
        assert sum(1 for event in events if event["event"] == "applied") >= 2
        record = await served.container.arena_repository().get_match(done["matchId"])
        assert record is not None and record.status.value == "finished"
        assert record.result is not None and record.result.reason.value == "SURRENDER"
