"""`noitu bench cluster`: the arena on several machines (spec B9), on ONE machine, for
trying it and for benchmarks.

    noitu bench cluster [--serve 2] [--workers 2] [--cpus 1 --cpus 2] [--matches N]
                        [--builds N] [--dir PATH]

Brings up a throwaway `redis-server` (`redis_server`) and PostgreSQL (`postgres_server`),
then M `noitu arena worker` processes and N `noitu serve` processes on free loopback
ports, all with the cluster's settings (NOITU_ARENA_QUEUE=saq, NOITU_STORE=redis,
NOITU_ARENA_DATABASE on the PostgreSQL, NOITU_ARENA_FILES=database), each with its own
NOITU_INSTANCE and NOITU_DATA_DIR under one directory, where each also writes its log
(JSON lines). A worker may be pinned with `taskset -c LIST`. Ready when every serve
answers /healthz and every worker has logged its start-up line (`arena_worker`); on
exit everything is stopped (SIGTERM, then SIGKILL) and the databases are removed.

    with cluster(serve=2, workers=2) as running:
        running.serve_urls, running.redis_url, running.database_url

The CLI prints each serve's /arena/ page and runs until Ctrl-C (or SIGTERM).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from noitu.bench.http_load import noitu_executable, running_server
from noitu.bench.postgres_server import PostgresServer
from noitu.bench.processes import terminate
from noitu.bench.redis_server import RedisServer

#: The event of a worker's start-up line (entrypoints/cli/arena_worker.py).
WORKER_STARTED = "arena_worker"
WORKER_START_S = 60.0
#: How long a worker may wind down after SIGTERM (it lets running jobs end) before SIGKILL.
WORKER_STOP_S = 30.0


class ClusterError(RuntimeError):
    """A part of the cluster did not come up; the message says which and why."""


@dataclass
class Worker:
    """One `noitu arena worker` process and its log."""

    instance: str
    log_path: Path
    process: subprocess.Popen[bytes]
    started: dict[str, object] = field(default_factory=dict)

    def output(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def started_line(self) -> dict[str, object] | None:
        """The worker's start-up line, once it has logged it."""
        for line in self.output().splitlines():
            if not line.startswith("{"):
                continue
            with contextlib.suppress(ValueError):
                event = json.loads(line)
                if event.get("event") == WORKER_STARTED:
                    return event
        return None

    def wait_started(self, timeout_s: float) -> dict[str, object]:
        deadline = time.monotonic() + timeout_s
        while (line := self.started_line()) is None:
            if self.process.poll() is not None:
                raise ClusterError(
                    f"worker {self.instance} exited with {self.process.returncode}:"
                    f" {self.output()[-2000:]}"
                )
            if time.monotonic() > deadline:
                raise ClusterError(
                    f"worker {self.instance} logged no start-up line within {timeout_s:g} s"
                    f" (its log: {self.log_path})"
                )
            time.sleep(0.1)
        self.started = line
        return line

    def stop(self, timeout_s: float = WORKER_STOP_S) -> None:
        terminate(self.process, timeout_s)


@dataclass
class Cluster:
    """What `cluster()` brought up."""

    directory: Path
    redis_url: str
    database_url: str
    env: dict[str, str]
    serve_urls: list[str] = field(default_factory=list)
    serve_processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    workers: list[Worker] = field(default_factory=list)
    #: Redis's and PostgreSQL's process ids: by name, "redis-server" and "postgres".
    services: dict[int, str] = field(default_factory=dict)

    @property
    def arena_links(self) -> list[str]:
        return [f"{url}/arena/" for url in self.serve_urls]

    @property
    def pids(self) -> list[int]:
        """The process ids of every serve and worker (not Redis's nor PostgreSQL's)."""
        return [p.pid for p in self.serve_processes] + [w.process.pid for w in self.workers]


def cluster_env(redis_url: str, database_url: str) -> dict[str, str]:
    """The settings every serve and worker of the cluster share (docs/operating.md, "The
    arena on several machines")."""
    return {
        "MODULES": "arena",
        "NOITU_STORE": "redis",
        "REDIS_URL": redis_url,
        "NOITU_ARENA_QUEUE": "saq",
        "NOITU_ARENA_DATABASE": database_url,
        "NOITU_ARENA_FILES": "database",
        "NOITU_LOG_FORMAT": "json",
        "NOITU_LOG_LEVEL": "INFO",
        "NOITU_ACCESS_LOG": "0",
    }


def worker_command(cpus: str | None, worker_args: Sequence[str]) -> list[str]:
    """`noitu arena worker ARGS`, under `taskset -c CPUS` when given."""
    command = [noitu_executable(), "arena", "worker", *worker_args]
    if cpus is None:
        return command
    taskset = shutil.which("taskset")
    if taskset is None:
        raise ClusterError("taskset is not installed (apt-get install -y util-linux)")
    return [taskset, "-c", cpus, *command]


@contextlib.contextmanager
def cluster(
    serve: int = 2,
    workers: int = 2,
    cpus: Sequence[str | None] = (),
    worker_args: Sequence[str] = (),
    directory: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Iterator[Cluster]:
    """Redis, PostgreSQL, `workers` workers and `serve` web instances, ready; all stopped
    on exit. `cpus[i]` (a `taskset -c` list, or None) pins worker i; `worker_args` go to
    every worker (e.g. `["--matches", "2"]`); `env` adds to or overrides the settings.
    Without `directory` the logs and data directories go to a temporary one, removed on
    exit."""
    if serve < 1 or workers < 0:
        raise ValueError("a cluster needs at least one serve and no negative number of workers")
    if len(cpus) > workers:
        raise ValueError(f"{len(cpus)} CPU lists for {workers} workers")
    with contextlib.ExitStack() as stack:
        if directory is None:
            directory = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="noitu-cluster-")))
        directory.mkdir(parents=True, exist_ok=True)
        redis = stack.enter_context(RedisServer(directory / "redis"))
        postgres = stack.enter_context(PostgresServer())
        database_url = postgres.create_database("noitu")
        shared = {**cluster_env(redis.url, database_url), **(env or {})}
        running = Cluster(directory, redis.url, database_url, shared)
        if redis.process is not None:
            running.services[redis.process.pid] = "redis-server"
        if postgres.pid is not None:
            running.services[postgres.pid] = "postgres"

        pinned = [*cpus, *[None] * (workers - len(cpus))]
        for index, cpu_list in enumerate(pinned, start=1):
            instance = f"worker-{index}"
            log_path = directory / f"{instance}.log"
            with open(log_path, "wb") as log:
                process = subprocess.Popen(
                    worker_command(cpu_list, worker_args),
                    env={
                        **os.environ, **shared, "NOITU_INSTANCE": instance,
                        "NOITU_DATA_DIR": str(directory / instance),
                    },
                    stdout=log, stderr=subprocess.STDOUT,
                )
            worker = Worker(instance, log_path, process)
            stack.callback(worker.stop)
            running.workers.append(worker)

        secret = secrets.token_hex(16)  # one game secret for every instance (operating.md)
        for index in range(1, serve + 1):
            instance = f"serve-{index}"
            try:
                process, port = stack.enter_context(running_server(
                    secret,
                    {**shared, "NOITU_INSTANCE": instance, "NOITU_DATA_DIR": str(directory / instance)},
                    log_path=str(directory / f"{instance}.log"),
                ))
            except RuntimeError as error:
                raise ClusterError(f"{instance}: {error}") from None
            running.serve_processes.append(process)
            running.serve_urls.append(f"http://127.0.0.1:{port}")

        for worker in running.workers:
            worker.wait_started(WORKER_START_S)
        yield running


def worker_arguments(args: argparse.Namespace) -> list[str]:
    found = []
    for flag, value in (("--matches", args.matches), ("--builds", args.builds)):
        if value is not None:
            if value < 1:
                raise SystemExit(f"noitu bench: {flag} must be at least 1")
            found += [flag, str(value)]
    return found


def run(args: argparse.Namespace) -> None:
    if args.serve < 1 or args.workers < 0:
        raise SystemExit("noitu bench: --serve must be at least 1 and --workers at least 0")
    if len(args.cpus) > args.workers:
        raise SystemExit(f"noitu bench: {len(args.cpus)} --cpus for {args.workers} workers")
    # SIGTERM stops it as Ctrl-C does: everything started so far is stopped on the way out.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        with cluster(
            args.serve, args.workers, args.cpus, worker_arguments(args),
            Path(args.dir).absolute() if args.dir else None,
        ) as running:
            print(describe(running), flush=True)
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        print("noitu bench cluster: stopped", flush=True)
    except ClusterError as error:
        raise SystemExit(f"noitu bench cluster: {error}") from None


def describe(running: Cluster) -> str:
    lines = [f"Redis       {running.redis_url}", f"PostgreSQL  {running.database_url}"]
    for worker in running.workers:
        slots = ", ".join(
            f"{key} {worker.started[key]}" for key in ("matches", "builds") if key in worker.started
        )
        lines.append(
            f"{worker.instance:<11} pid {worker.process.pid}, {slots},"
            f" sandbox: {worker.started.get('sandbox')}"
        )
    lines.append(f"logs        {running.directory}")
    lines += [f"arena       {link}" for link in running.arena_links]
    lines.append("Ctrl-C stops everything.")
    return "\n".join(lines)
