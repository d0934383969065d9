"""A throwaway `redis-server` on a free loopback port: the one launcher of the tests
(the contract tests share one per session; the two-instance test stops and restarts its
own) and of the benchmarks that measure the Redis store."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Self

REDIS_SERVER = shutil.which("redis-server") or (
    "/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server") else None
)
MISSING_REASON = "redis-server is not installed (apt-get install -y redis-server)"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2) as conn:
            conn.sendall(b"PING\r\n")
            conn.settimeout(0.5)
            return conn.recv(64).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    """`redis-server --port P --save '' --appendonly no`, in `directory`.

    `stop(save=True)` writes a snapshot first (SHUTDOWN SAVE), so a `start()` in the same
    directory comes back with the data, like a Redis with persistence would.
    """

    def __init__(self, directory: Path, port: int | None = None) -> None:
        if REDIS_SERVER is None:
            raise RuntimeError(MISSING_REASON)
        self.directory = directory
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.kill()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout_s: float = 10.0) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [
                REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", str(self.directory),
                "--dbfilename", "dump.rdb", "--daemonize", "no", "--loglevel", "warning",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout_s
        while not _ping(self.port):
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.process.returncode}")
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError("redis-server did not answer PING")
            time.sleep(0.02)

    def stop(self, save: bool = False, timeout_s: float = 5.0) -> None:
        process = self.process
        if process is None or process.poll() is not None:
            return
        if save:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as conn:
                    conn.sendall(b"SHUTDOWN SAVE\r\n")
                    process.wait(timeout_s)
                    return
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def pause(self) -> None:
        """Freeze the server: connections stay open, nothing answers."""
        if self.process is not None:
            self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGCONT)

    def kill(self) -> None:
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGCONT)
            process.kill()
            process.wait(5)
        self.process = None
