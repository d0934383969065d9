"""The arena on several machines (spec B9), for real: two `noitu serve` instances that
find no sandbox (their PATH names no program), one or two `noitu arena worker`
processes in the sandbox, a real redis-server and a real PostgreSQL.

A room made on one instance is joined on the other, played by a person through both
(each REST answer is the worker's verdict) and watched over the WebSocket; the web
instances start no bot process; a worker killed with -9 mid-match leaves no bot
process and its match ends ABANDONED within 30 s, told to viewers with a final
snapshot and the end, its replay what was played; a web instance killed loses nothing
(the other answers); Redis or PostgreSQL stopped and started again: calls answer 503
`busy` meanwhile, and a match that ended during a PostgreSQL outage is archived after.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from noitu.bench.postgres_server import PostgresServer
from noitu.bench.redis_server import MISSING_REASON, REDIS_SERVER, RedisServer
from support.arena_bots import BOTS, require
from support.arena_databases import require_postgres
from support.arena_server import ROOMS
from support.arena_store import ProbedOnce
from support.owned import alive, descendants
from support.process import ServerProcess, WorkerProcess

pytestmark = [
    pytest.mark.redis,
    pytest.mark.skipif(REDIS_SERVER is None and not os.environ.get("CI"), reason=MISSING_REASON),
]

PERSON = {"kind": "person", "name": "Lan"}
OTHER = {"kind": "person", "name": "Minh"}
RANDOM = {"kind": "builtin", "ref": "random"}
KEY_A, KEY_B = "a" * 32, "b" * 32


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    with RedisServer(tmp_path / "redis") as server:
        yield server


@pytest.fixture
def env(redis_server: RedisServer, postgres: Any) -> dict[str, str]:
    return {
        "MODULES": "arena",
        "NOITU_ACCESS_LOG": "0",
        "NOITU_LOG_FORMAT": "json",
        "NOITU_STORE": "redis",
        "REDIS_URL": redis_server.url,
        "NOITU_ARENA_DATABASE": postgres.create_database(f"cluster_{os.getpid()}_{time.time_ns()}"),
        "NOITU_ARENA_QUEUE": "saq",
        "NOITU_ARENA_FILES": "database",
        "NOITU_ARENA_LADDER": "0",
    }


@contextlib.contextmanager
def webs(env: dict[str, str], tmp_path: Path) -> Iterator[list[ServerProcess]]:
    started: list[ServerProcess] = []
    try:
        for name in ("a", "b"):
            own = {
                "PATH": "/nonexistent",  # no sandbox, no compiler: nothing can run here
                "NOITU_INSTANCE": f"web-{name}",
                "NOITU_DATA_DIR": str(tmp_path / f"web-{name}"),
            }
            started.append(ServerProcess({**env, **own}, tmp_path / f"web-{name}.log").start())
        yield started
    finally:
        for server in started:
            server.stop()


def worker(env: dict[str, str], tmp_path: Path, name: str) -> WorkerProcess:
    own = {"NOITU_INSTANCE": name, "NOITU_DATA_DIR": str(tmp_path / name)}
    started = WorkerProcess({**env, **own}, tmp_path / f"{name}.log", ("--matches", "2"))
    started.wait_for("arena_worker")
    return started


def post(http: httpx.Client, path: str, body: Any, key: str) -> httpx.Response:
    return http.post(f"{ROOMS}{path}", json=body, headers={"X-Owner-Key": key})


def room(http: httpx.Client, code: str, key: str | None = None) -> dict:
    headers = {} if key is None else {"X-Owner-Key": key}
    answer = http.get(f"{ROOMS}/{code}", headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


def until(http: httpx.Client, code: str, test, key: str | None = None, timeout_s: float = 20) -> dict:
    deadline = time.monotonic() + timeout_s
    while True:
        shown = room(http, code, key)
        if test(shown):
            return shown
        assert time.monotonic() < deadline, shown
        time.sleep(0.05)


def person_against_random(http: httpx.Client, moves: int = 0) -> str:
    """A room of KEY_A's person against the random bot, placed and ready, after the
    person's first `moves` moves (the bot answering each): its code. The person has a
    legal action when it returns."""
    made = post(http, "", {"seat": PERSON, "opponent": RANDOM}, KEY_A)
    assert made.status_code == 201, made.text
    code = made.json()["room"]["code"]
    until(http, code, lambda r: r["placementDeadlineMs"] is not None, KEY_A)
    post(http, f"/{code}/placement", {"type": "RANDOM_PLACEMENT"}, KEY_A)
    post(http, f"/{code}/placement", {"type": "READY"}, KEY_A)
    for move in range(moves):
        mover = until(http, code, lambda r: bool(r["legalActions"]), KEY_A)
        moved = post(http, f"/{code}/actions", mover["legalActions"][0], KEY_A)
        assert moved.status_code == 200, moved.text
        # The bot answers; then it is the person's turn again.
        turn = 2 * (move + 1)
        until(http, code, lambda r, turn=turn: r["turn"] == turn and bool(r["legalActions"]), KEY_A)
    return code


async def frames(base: str, code: str, key: str | None = None, timeout_s: float = 40) -> list:
    """The rooms a WebSocket watcher was sent, once the feed ended (`end`, then 1000)."""
    seen: list[dict] = []
    url = f"{base.replace('http', 'ws', 1)}/arena/ws/rooms/{code}"
    headers = {} if key is None else {"X-Owner-Key": key}
    async with connect(url, additional_headers=headers) as socket:
        with contextlib.suppress(ConnectionClosed):
            async with asyncio.timeout(timeout_s):
                async for message in socket:
                    seen.append(json.loads(message))
        assert socket.close_code == 1000 and seen[-1] == {"type": "end"}, seen[-1:]
    assert all(frame["type"] == "room" for frame in seen[:-1])
    return [frame["room"] for frame in seen[:-1]]


async def test_a_room_made_on_one_instance_is_played_on_the_other_by_a_worker(
    tmp_path: Path, env: dict[str, str], arena_probe: ProbedOnce
) -> None:
    require(arena_probe.status)
    with webs(env, tmp_path) as (a, b):
        line = next(
            json.loads(text) for text in a.output().splitlines()
            if text.startswith("{") and json.loads(text).get("event") == "arena"
        )
        assert line["matches"] == "workers (saq)" and line["sandbox"].startswith("not needed")
        working = worker(env, tmp_path, "worker-1")
        idle = worker(env, tmp_path, "worker-2")
        try:
            with httpx.Client(base_url=a.base, timeout=10) as on_a, httpx.Client(
                base_url=b.base, timeout=10
            ) as on_b:
                made = post(on_a, "", {"seat": PERSON}, KEY_A)
                assert made.status_code == 201, made.text
                code = made.json()["room"]["code"]
                lobby = on_b.get(f"{ROOMS}").json()
                assert code in [summary["code"] for summary in lobby["waiting"]]
                joined = post(on_b, f"/{code}/join", {"seat": OTHER}, KEY_B)
                assert joined.status_code == 200, joined.text
                assert joined.json()["room"]["phase"] == "PLACEMENT"
                watching = asyncio.create_task(frames(a.base, code))
                # Placement through the instance each person did not use; the worker
                # answers (its own placement clock).
                until(on_a, code, lambda r: r["placementDeadlineMs"] is not None, KEY_A)
                for key, web in ((KEY_A, on_b), (KEY_B, on_a)):
                    placed = post(web, f"/{code}/placement", {"type": "RANDOM_PLACEMENT"}, key)
                    assert placed.status_code == 200, placed.text
                    assert {p["ownerId"] for p in placed.json()["board"]["pieces"]} == {
                        placed.json()["mine"][0]
                    }
                    ready = post(web, f"/{code}/placement", {"type": "READY"}, key)
                    assert ready.status_code == 200, ready.text
                mover = until(on_b, code, lambda r: bool(r["legalActions"]), KEY_A)
                assert mover["phase"] == "PLAYING" and mover["currentPlayer"] == "P1"
                refused = post(on_a, f"/{code}/actions", {"type": "PASS"}, KEY_B)
                assert refused.status_code == 409 and refused.json()["error"] == "not_your_turn"
                action = mover["legalActions"][0]
                moved = post(on_a, f"/{code}/actions", action, KEY_A)
                assert moved.status_code == 200, moved.text
                assert moved.json()["lastAction"]["action"] == action
                gave_up = post(on_b, f"/{code}/surrender", None, KEY_B)
                assert gave_up.status_code == 200, gave_up.text
                seen = await asyncio.wait_for(watching, 30)
                assert seen[-1]["phase"] == "FINISHED" and seen[-1]["result"]["winner"] == "P1"
                versions = [frame["version"] for frame in seen]
                assert versions == sorted(set(versions))
                last = until(on_a, code, lambda r: r["replayReady"], KEY_B)
                assert last["mine"] == ["P2"]
                replay = on_b.get(f"/arena/api/matches/{last['matchId']}/replay")
                assert replay.status_code == 200 and '"SURRENDER"' in replay.text
                # Nothing ran on the web instances; the worker ran the match.
                for web in (a, b):
                    assert web.process is not None and not descendants(web.process.pid)
                # One of the two workers ran it, once.
                deadline = time.monotonic() + 10
                while not (jobs := working.events("arena_job") + idle.events("arena_job")):
                    assert time.monotonic() < deadline
                    await asyncio.sleep(0.1)
                assert [(job["kind"], job["outcome"]) for job in jobs] == [("match", "done")]
        finally:
            assert working.stop() == 0, working.output()
            assert idle.stop() == 0, idle.output()


async def test_a_worker_killed_mid_match_leaves_no_bot_and_its_match_is_abandoned(
    tmp_path: Path, env: dict[str, str], arena_probe: ProbedOnce
) -> None:
    require(arena_probe.status)
    with webs(env, tmp_path) as (a, b):
        doomed = worker(env, tmp_path, "worker-doomed")
        try:
            with httpx.Client(base_url=b.base, timeout=10) as on_b:
                code = person_against_random(on_b, moves=1)  # at turn 2
                assert descendants(doomed.process.pid), "the worker runs the built-in bot"
                watching = asyncio.create_task(frames(a.base, code))
                await asyncio.sleep(0.5)
                # Its sandboxes and bots, taken while they are still below it: once it
                # is killed they are nobody's children and only their pids name them.
                bots = descendants(doomed.process.pid)
                killed_at = time.monotonic()
                doomed.kill()
                seen = await asyncio.wait_for(watching, 40)
                took = time.monotonic() - killed_at
                assert seen[-1]["phase"] == "ABANDONED", seen[-1]
                assert seen[-1]["result"] == {
                    "winner": None, "reason": "ABANDONED", "turns": seen[-1]["turn"],
                    "failure": None,
                }
                assert took <= 30, took
                # The replay keeps what was played and ends with that end (B9).
                assert seen[-1]["replayReady"] and seen[-1]["turn"] == 2
                replay = on_b.get(f"/arena/api/matches/{seen[-1]['matchId']}/replay")
                assert replay.status_code == 200, replay.text
                events = [json.loads(line) for line in replay.text.splitlines()]
                assert events[0]["event"] == "setup" and len(events[0]["pieces"]) == 36
                assert [e["turn"] for e in events if e["event"] == "applied"] == [0, 1]
                assert events[-1] == {"event": "end", **seen[-1]["result"]}
                assert alive(bots) == set()
                # A web instance killed loses nothing: the other one answers.
                a.kill()
                shown = room(on_b, code, KEY_A)
                assert shown["phase"] == "ABANDONED" and shown["mine"] == ["P1"]
        finally:
            doomed.kill()


def test_the_ladder_plays_on_the_workers_once_an_upload_is_ranked(
    tmp_path: Path, env: dict[str, str], arena_probe: ProbedOnce
) -> None:
    """The ladder's driver runs on the web instances; its matches, like the rooms', are
    jobs the worker takes (spec B8, B9)."""
    require(arena_probe.status)
    env = {**env, "NOITU_ARENA_LADDER": "1"}
    with webs(env, tmp_path) as (a, b):
        working = worker(env, tmp_path, "worker-1")
        try:
            with httpx.Client(base_url=a.base, timeout=30) as http:
                source = (BOTS / "a5_minimal.py").read_bytes()
                uploaded = http.post(
                    "/arena/api/bots", headers={"X-Owner-Key": KEY_A},
                    files={"file": ("a5_minimal.py", source, "text/x-python")},
                )
                assert uploaded.status_code == 201, uploaded.text
                bot = uploaded.json()["bot"]["id"]
                ranked = http.put(f"/arena/api/ladder/bots/{bot}", headers={"X-Owner-Key": KEY_A})
                assert ranked.status_code == 200, ranked.text
                seen_live, rated, kinds = False, [], []
                deadline = time.monotonic() + 180
                # A pairing's first match is rated on its own (B8), before the worker
                # has necessarily taken the second: wait for both jobs too.
                while time.monotonic() < deadline and not (
                    seen_live and any(row["botId"] == bot for row in rated)
                    and kinds.count("match") >= 2
                ):
                    live = httpx.get(f"{b.base}{ROOMS}").json()["live"]
                    seen_live = seen_live or any(room["ladder"] for room in live)
                    rated = [
                        row for row in http.get("/arena/api/ladder").json()["rows"] if row["games"]
                    ]
                    kinds = [job["kind"] for job in working.events("arena_job")]
                    time.sleep(0.5)
            assert seen_live and any(row["botId"] == bot for row in rated), working.output()
            assert kinds.count("match") >= 2 and "build" in kinds, kinds
            for web in (a, b):
                assert "ladder_pass_failed" not in web.output()
                assert web.process is not None and not descendants(web.process.pid)
        finally:
            assert working.stop() == 0, working.output()


def test_redis_stopped_and_started_again_abandons_nothing_and_play_resumes(
    tmp_path: Path, env: dict[str, str], redis_server: RedisServer, arena_probe: ProbedOnce
) -> None:
    """B9 "Faults": Redis away a few seconds in the middle of a person's match — every
    call that needs it answers 503 `busy` within 2 s, `/healthz` stays 200 — then back
    (with what it saved): the same match goes on, nothing abandoned."""
    require(arena_probe.status)
    with webs(env, tmp_path) as (a, b):
        working = worker(env, tmp_path, "worker-1")
        try:
            with httpx.Client(base_url=a.base, timeout=10) as on_a:
                code = person_against_random(on_a)
                before = until(on_a, code, lambda r: bool(r["legalActions"]), KEY_A)
                redis_server.stop(save=True)
                try:
                    for web in (a, b):
                        began = time.monotonic()
                        action = before["legalActions"][0]
                        refused = httpx.post(
                            f"{web.base}{ROOMS}/{code}/actions", json=action,
                            headers={"X-Owner-Key": KEY_A}, timeout=10,
                        )
                        assert time.monotonic() - began < 2.5
                        assert refused.status_code == 503, refused.text
                        assert refused.json()["error"] == "busy"
                        assert httpx.get(f"{web.base}/healthz").status_code == 200
                    time.sleep(3)
                finally:
                    redis_server.start()
                # Back: the same match, the person's turn, and a move goes through.
                again = until(on_a, code, lambda r: bool(r["legalActions"]), KEY_A)
                assert again["matchId"] == before["matchId"] and again["phase"] == "PLAYING"
                moved = post(on_a, f"/{code}/actions", again["legalActions"][0], KEY_A)
                assert moved.status_code == 200, moved.text
                left = post(on_a, f"/{code}/leave", None, KEY_A)
                assert left.status_code == 200, left.text
                ended = until(on_a, code, lambda r: r["result"] is not None)
                assert ended["result"]["reason"] == "SURRENDER"
            for web in (a, b):
                assert "lost_matches_abandoned" not in web.output()
        finally:
            assert working.stop() == 0, working.output()


@pytest.fixture
def postgres_outage(env: dict[str, str]) -> Iterator[tuple[PostgresServer, dict[str, str]]]:
    """A PostgreSQL of the test's own (it stops and starts it), and the cluster's
    settings on it."""
    require_postgres("the arena's outages")
    server = PostgresServer()
    server.start()
    try:
        yield server, {**env, "NOITU_ARENA_DATABASE": server.create_database("outage")}
    finally:
        server.kill()


def test_a_match_ending_on_a_worker_during_a_postgresql_outage_is_archived_after_it(
    tmp_path: Path, postgres_outage: tuple[PostgresServer, dict[str, str]],
    arena_probe: ProbedOnce,
) -> None:
    """B9 "Faults" on several machines: PostgreSQL away as a person's match ends on a
    worker — the end is told at once, what needs the database answers 503 `busy` within
    2 s on both instances, `/healthz` stays 200 — then back: the worker archives the
    result and the replay, and every instance serves them."""
    require(arena_probe.status)
    server, env = postgres_outage
    with webs(env, tmp_path) as (a, b):
        working = worker(env, tmp_path, "worker-1")
        try:
            with httpx.Client(base_url=a.base, timeout=10) as on_a, httpx.Client(
                base_url=b.base, timeout=10
            ) as on_b:
                code = person_against_random(on_a, moves=1)  # at turn 2
                server.stop()
                try:
                    gave_up = post(on_b, f"/{code}/surrender", None, KEY_A)
                    assert gave_up.status_code == 200, gave_up.text
                    shown = until(on_a, code, lambda r: r["result"] is not None)
                    assert shown["result"]["reason"] == "SURRENDER" and not shown["replayReady"]
                    replay_url = f"/arena/api/matches/{shown['matchId']}/replay"
                    for http in (on_a, on_b):
                        began = time.monotonic()
                        away = http.get(replay_url)
                        assert time.monotonic() - began < 2.5
                        assert away.status_code == 503 and away.json()["error"] == "busy"
                        assert http.get("/healthz").status_code == 200
                    time.sleep(1.5)  # a try or two more while it is away
                finally:
                    server.start()
                done = until(on_b, code, lambda r: r["replayReady"], timeout_s=40)
                assert done["result"] == shown["result"]
                for http in (on_a, on_b):
                    replay = http.get(replay_url)
                    assert replay.status_code == 200, replay.text
                    events = [json.loads(line) for line in replay.text.splitlines()]
                    assert events[0]["event"] == "setup" and events[-1]["reason"] == "SURRENDER"
                    # Served from the archive's record: result and replay in one write.
                    assert [e["turn"] for e in events if e["event"] == "applied"] == [0, 1]
        finally:
            assert working.stop() == 0, working.output()


def test_a_waiting_room_outlives_the_web_instance_that_made_it(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Nothing of a room lives in a web process between two requests (B9): kill -9 the
    instance that made a waiting room, and the other one seats the second person."""
    with webs(env, tmp_path) as (a, b):
        with httpx.Client(base_url=a.base, timeout=10) as on_a:
            made = post(on_a, "", {"seat": PERSON}, KEY_A)
            assert made.status_code == 201, made.text
        code = made.json()["room"]["code"]
        a.kill()
        with httpx.Client(base_url=b.base, timeout=10) as on_b:
            assert room(on_b, code, KEY_A)["mine"] == ["P1"]
            joined = post(on_b, f"/{code}/join", {"seat": OTHER}, KEY_B)
            assert joined.status_code == 200, joined.text
            shown = joined.json()["room"]
            assert shown["phase"] == "PLACEMENT" and shown["queuePlace"] == 1
            assert [seat["name"] for seat in shown["seats"]] == ["Lan", "Minh"]
