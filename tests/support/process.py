"""Start a real `noitu serve` or `noitu arena worker` process for tests, and stop it for
sure."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from noitu.bench.processes import terminate

NOITU = str(Path(sys.executable).with_name("noitu"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ServerProcess:
    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.port = int(env.get("NOITU_PORT") or free_port())
        # Never the user's own data directory (~/.local/share/noitu): a test's server keeps
        # its arena next to its log unless the test names one.
        data_dir = str(log_path.parent / "noitu-data")
        self.env = {**os.environ, "NOITU_DATA_DIR": data_dir, "NOITU_PORT": str(self.port), **env}
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 60.0) -> ServerProcess:
        self._log = open(self.log_path, "ab")  # noqa: SIM115 - closed by stop()
        self.process = subprocess.Popen(
            [NOITU, "serve"], env=self.env, stdout=self._log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"noitu serve exited: {self.output()}")
            try:
                if httpx.get(f"{self.base}/healthz", timeout=0.5).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"noitu serve did not answer in time: {self.output()}")

    def output(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def stop(self, timeout_s: float = 10.0) -> None:
        if self.process is None:
            return
        terminate(self.process, timeout_s)
        self._log.close()
        self.process = None

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)
        self.stop()


class WorkerProcess:
    """`noitu arena worker` (spec B9) with `args`, its JSON log read back."""

    def __init__(self, env: dict[str, str], log_path: Path, args: tuple[str, ...] = ()) -> None:
        self.log_path = log_path
        self._log = open(log_path, "ab")  # noqa: SIM115 - closed by stop()
        self.process = subprocess.Popen(
            [NOITU, "arena", "worker", *args],
            env={**os.environ, **env}, stdout=self._log, stderr=subprocess.STDOUT,
        )

    def output(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def events(self, name: str) -> list[dict[str, Any]]:
        found = []
        for line in self.output().splitlines():
            if line.startswith("{"):
                event = json.loads(line)
                if event.get("event") == name:
                    found.append(event)
        return found

    def wait_for(self, name: str, timeout_s: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if events := self.events(name):
                return events[0]
            assert self.process.poll() is None, self.output()
            time.sleep(0.1)
        raise AssertionError(f"no {name} in the worker's log: {self.output()}")

    def stop(self, timeout_s: float = 30.0) -> int:
        returncode = terminate(self.process, timeout_s)
        self._log.close()
        return returncode

    def kill(self) -> None:
        """`kill -9`: no chance to tidy anything."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)
        self._log.close()
