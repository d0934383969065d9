"""`noitu serve` with NOITU_ARENA_QUEUE=saq builds nothing itself (spec B9): uploads
are built by a `noitu arena worker` process, through a real redis-server, with the
arena's database on a real PostgreSQL.

The web process runs with PATH naming no program, so it finds no sandbox (its start-up
line says so): an upload it answers with a built bot was built elsewhere, and the
worker's log names the job. With no worker running, an upload answers 503 `busy` once
the take-within time (shortened here) has passed. The worker stops cleanly on SIGTERM.
With the files in the data directory the two processes share it; with
NOITU_ARENA_FILES=database each has its own (a cache) and the files travel through
PostgreSQL.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from noitu.bench.redis_server import MISSING_REASON, REDIS_SERVER, RedisServer
from support.arena_bots import require
from support.arena_store import ProbedOnce
from support.process import ServerProcess, WorkerProcess

pytestmark = [
    pytest.mark.redis,
    pytest.mark.skipif(REDIS_SERVER is None and not os.environ.get("CI"), reason=MISSING_REASON),
]

BOTS = "/arena/api/bots/"
TAKE_S = 2
PYTHON_BOT = b"import sys\nfor line in sys.stdin:\n    print('PASS', flush=True)\n"
BROKEN_CPP = b"#include <iostream>\nint main() { std::cout << \"PASS\" << std::endl }\n"


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    with RedisServer(tmp_path / "redis") as server:
        yield server


@pytest.fixture(params=["directory", "database"])
def files(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def env(tmp_path: Path, redis_server: RedisServer, postgres: Any, files: str) -> dict[str, str]:
    return {
        "MODULES": "arena",
        "NOITU_ACCESS_LOG": "0",
        "NOITU_LOG_FORMAT": "json",
        "NOITU_STORE": "redis",
        "REDIS_URL": redis_server.url,
        "NOITU_ARENA_DATABASE": postgres.create_database(f"worker_{os.getpid()}_{time.time_ns()}"),
        "NOITU_ARENA_QUEUE": "saq",
        "NOITU_ARENA_JOB_TAKE_SECONDS": str(TAKE_S),
        "NOITU_ARENA_FILES": files,
        "NOITU_DATA_DIR": str(tmp_path / "data"),
    }


def upload(http: httpx.Client, name: str, data: bytes) -> httpx.Response:
    return http.post(BOTS, files={"file": (name, data, "application/octet-stream")})


def test_uploads_are_built_by_the_worker_and_busy_without_one(
    tmp_path: Path, env: dict[str, str], files: str, postgres: Any, arena_probe: ProbedOnce
) -> None:
    require(arena_probe.status)
    server = ServerProcess({**env, "PATH": "/nonexistent"}, tmp_path / "serve.log").start()
    try:
        arena_line = next(
            json.loads(line) for line in server.output().splitlines()
            if line.startswith("{") and json.loads(line).get("event") == "arena"
        )
        assert arena_line["uploads"] == "on" and arena_line["builds"] == "workers (saq)"
        assert arena_line["matches"] == "workers (saq)"
        assert arena_line["sandbox"].startswith("not needed")  # none probed here
        with httpx.Client(base_url=server.base, timeout=60) as http:
            # No worker yet: the build is not taken in time.
            began = time.monotonic()
            refused = upload(http, "cho.py", PYTHON_BOT)
            assert refused.status_code == 503 and refused.json()["error"] == "busy"
            assert TAKE_S <= time.monotonic() - began < TAKE_S + 5
            # The operator reads one warning with the reason, not an error's traceback.
            logged = [
                json.loads(line) for line in server.output().splitlines() if line.startswith("{")
            ]
            busy = [entry for entry in logged if entry.get("event") == "upload_busy"]
            assert busy and busy[0]["level"] == "warning" and busy[0]["reason"], server.output()
            assert not any(entry.get("event") == "upload_failed" for entry in logged)
            assert "Traceback" not in server.output()

            # The database keeps the files: the worker's data directory is its own cache.
            own = {"NOITU_DATA_DIR": str(tmp_path / "worker-data")} if files == "database" else {}
            worker = WorkerProcess({**env, **own}, tmp_path / "worker.log", ("--builds", "1"))
            try:
                started = worker.wait_for("arena_worker")
                assert started["builds"] == 1 and started["queue"] == "saq"
                assert started["sandbox"] == arena_probe.status.reason
                assert started["instance"].endswith(f":{worker.process.pid}")

                built = upload(http, "hello.py", PYTHON_BOT)
                assert built.status_code == 201, built.text
                assert built.json()["bot"]["build"] == "ok"
                broken = upload(http, "hỏng.cpp", BROKEN_CPP)
                assert broken.status_code == 201, broken.text
                assert broken.json()["bot"]["build"] == "failed"
                assert "hỏng.cpp" in broken.json()["bot"]["buildMessages"]
                jobs = worker.events("arena_job")
                assert [(job["kind"], job["outcome"]) for job in jobs] == [("build", "done")] * 2
                mine = http.get(BOTS, headers={"X-Owner-Key": built.json()["ownerKey"]}).json()
                assert [bot["build"] for bot in mine["bots"]] == ["ok"]
                if files == "database":  # the worker's artefact reached the database
                    bot_id = built.json()["bot"]["id"]
                    stored = postgres.psql(
                        f"SELECT name FROM arena_files WHERE bot_id = '{bot_id}' ORDER BY name",
                        database=env["NOITU_ARENA_DATABASE"].rsplit("/", 1)[1],
                    ).split()
                    assert stored == [f"bots/{bot_id}/artefact", f"bots/{bot_id}/source.py"]
                    assert not (tmp_path / "data" / "bots" / bot_id / "artefact").exists()
            finally:
                assert worker.stop() == 0, worker.output()
            assert worker.events("arena_worker_stopped"), worker.output()
    finally:
        server.stop()
