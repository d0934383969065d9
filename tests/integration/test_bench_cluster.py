"""`noitu.bench.cluster` brings the arena's several-machine layout up on one machine
(spec B9; docs/operating.md, "The arena on several machines"): a real redis-server, a
real PostgreSQL, one `noitu serve` and one `noitu arena worker`. Once it is up the serve
answers /healthz and the arena's API, the worker has logged its start-up line with the
cluster's settings, and on exit nothing it started is left running.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from noitu.bench.cluster import cluster
from noitu.bench.postgres_server import MISSING_REASON as NO_POSTGRES
from noitu.bench.postgres_server import PG_BIN
from noitu.bench.redis_server import MISSING_REASON as NO_REDIS
from noitu.bench.redis_server import REDIS_SERVER
from support.arena_bots import require
from support.arena_store import ProbedOnce
from support.owned import alive, descendants

pytestmark = pytest.mark.redis


def _missing(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"CI must test the arena's cluster: {reason}")
    pytest.skip(reason)


def test_one_serve_and_one_worker_come_up_and_are_all_stopped(
    tmp_path: Path, arena_probe: ProbedOnce
) -> None:
    if REDIS_SERVER is None:
        _missing(NO_REDIS)
    if PG_BIN is None:
        _missing(NO_POSTGRES)
    require(arena_probe.status)  # a worker starts only with a sandbox (bubblewrap)
    before = descendants(os.getpid())

    with cluster(serve=1, workers=1, directory=tmp_path / "cluster") as running:
        started = alive(descendants(os.getpid()) - before)
        assert set(running.pids) <= started and len(started) >= 3  # and redis-server
        assert len(running.serve_urls) == 1 and running.redis_url.startswith("redis://")
        assert running.database_url.startswith("postgresql")
        # Its own Redis and PostgreSQL by pid, so the CPU meter counts no other's.
        assert sorted(running.services.values()) == ["postgres", "redis-server"]
        assert alive(running.services) == set(running.services)

        base = running.serve_urls[0]
        health = httpx.get(f"{base}/healthz", timeout=5)
        assert health.status_code == 200 and health.json() == {"status": "ok"}
        assert httpx.get(running.arena_links[0], timeout=5).status_code == 200
        lobby = httpx.get(f"{base}/arena/api/rooms", timeout=5)
        assert lobby.status_code == 200, lobby.text  # the rooms in Redis, through serve

        (worker,) = running.workers
        line = worker.started
        assert line["event"] == "arena_worker" and line["instance"] == "worker-1"
        assert line["queue"] == "saq" and line["sandbox"] == arena_probe.status.reason
        assert line["data_dir"] == str(tmp_path / "cluster" / "worker-1")
        assert worker.process.poll() is None

    assert all(worker.process.poll() is not None for worker in running.workers)
    assert all(process.poll() is not None for process in running.serve_processes)
    # Not one process of the cluster is left: serve, worker and Redis (our children)...
    assert not alive(started)
    assert not alive(descendants(os.getpid()) - before)
    # ... nor PostgreSQL (pg_ctl detaches it): neither port takes a connection any more.
    for url in (running.redis_url, running.database_url):
        port = urlsplit(url).port
        assert port is not None
        with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            pass
