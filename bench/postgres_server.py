"""A throwaway PostgreSQL server on a free loopback port, for the arena's storage
contract tests (one per test session) and for benchmarks of the PostgreSQL store.

Debian's `postgresql` package puts `initdb` and `pg_ctl` in
`/usr/lib/postgresql/<version>/bin/` (not on PATH); `NOITU_PG_BIN` may name another
folder. `initdb` refuses to run as root, so as root both run as the `postgres` user
(`runuser -u postgres --`) on a temporary directory that user owns. The cluster trusts
local connections, listens on 127.0.0.1 only, keeps its socket in its own directory,
and trades durability for speed (fsync off): it is for tests.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Self

MISSING_REASON = "PostgreSQL is not installed (apt-get install -y postgresql)"
USER = "postgres"


def _version(folder: str) -> int:
    name = Path(folder).parent.name
    return int(name) if name.isdigit() else 0


def _find_bin() -> Path | None:
    configured = os.environ.get("NOITU_PG_BIN")
    if configured:
        candidates = [configured]
    else:
        # The newest of Debian's versions first, then whatever PATH has.
        candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version, reverse=True)
        initdb = shutil.which("initdb")
        if initdb:
            candidates.append(str(Path(initdb).resolve().parent))
    for candidate in filter(None, candidates):
        folder = Path(candidate)
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    return None


PG_BIN = _find_bin()
RUNUSER = shutil.which("runuser") or shutil.which("runuser", path="/usr/sbin:/sbin")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _as_root() -> bool:
    return os.geteuid() == 0


class PostgresServer:
    """`initdb` + `pg_ctl start` in a fresh temporary directory; `kill()` stops the
    server and removes the directory. Use as a context manager or call start/kill."""

    def __init__(self, port: int | None = None) -> None:
        if PG_BIN is None:
            raise RuntimeError(MISSING_REASON)
        self.bin = PG_BIN
        self.port = port or free_port()
        self.directory: Path | None = None
        self.running = False

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.kill()

    @property
    def data(self) -> Path:
        assert self.directory is not None, "start() first"
        return self.directory / "data"

    @property
    def pid(self) -> int | None:
        """The postmaster's process id (pg_ctl detaches it: it is nobody's child here),
        from its `postmaster.pid`; None when it is not running."""
        try:
            return int((self.data / "postmaster.pid").read_text().split("\n", 1)[0])
        except (AssertionError, OSError, ValueError):
            return None

    def url(self, database: str = "postgres") -> str:
        """The SQLAlchemy URL of `database` (asyncpg)."""
        return f"postgresql+asyncpg://{USER}@127.0.0.1:{self.port}/{database}"

    def _run(self, *command: str, timeout_s: float = 60.0) -> subprocess.CompletedProcess[str]:
        prefix = [RUNUSER or "runuser", "-u", USER, "--"] if _as_root() else []
        return subprocess.run(
            [*prefix, *command],
            cwd=self.directory,
            env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C", "LANG": "C"},
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )

    def _check(self, what: str, done: subprocess.CompletedProcess[str]) -> None:
        if done.returncode != 0:
            log = self.directory / "server.log" if self.directory else None
            tail = log.read_text(errors="replace")[-2000:] if log and log.exists() else ""
            raise RuntimeError(
                f"{what} failed ({done.returncode}): {done.stderr.strip()[-2000:]}\n{tail}"
            )

    def start(self, timeout_s: float = 30.0) -> None:
        """Create the cluster (first time) and start it; on a failure nothing is left."""
        try:
            self._start(timeout_s)
        except BaseException:
            self.kill()
            raise

    def _start(self, timeout_s: float) -> None:
        if self.directory is None:
            self.directory = Path(tempfile.mkdtemp(prefix="noitu-postgres-"))
            if _as_root():
                account = pwd.getpwnam(USER)
                os.chown(self.directory, account.pw_uid, account.pw_gid)
            self._check(
                "initdb",
                self._run(
                    str(self.bin / "initdb"), "-D", str(self.data), "-U", USER, "-A", "trust",
                    "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions",
                ),
            )
        options = " ".join(
            [
                f"-p {self.port}", f"-k {self.directory}", "-c listen_addresses=127.0.0.1",
                "-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off",
                "-c max_connections=200",
            ]
        )
        self.running = True  # from here on, a failure stops whatever did start
        self._check(
            "pg_ctl start",
            self._run(
                str(self.bin / "pg_ctl"), "-D", str(self.data), "-l",
                str(self.directory / "server.log"), "-o", options, "-w", "-t",
                str(int(timeout_s)), "start",
                timeout_s=timeout_s + 10,
            ),
        )

    def stop(self, mode: str = "fast") -> None:
        """Stop the server, keeping its directory (a later `start()` comes back)."""
        if self.running and self.directory is not None:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")
            self.running = False

    def kill(self) -> None:
        """Stop at once and remove everything."""
        self.stop(mode="immediate")
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None

    def psql(self, sql: str, database: str = "postgres") -> str:
        """Run `sql` (autocommit, so CREATE DATABASE works) and return its output."""
        done = subprocess.run(
            [
                str(self.bin / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", USER,
                "-d", database, "-v", "ON_ERROR_STOP=1", "-qAt", "-c", sql,
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        self._check("psql", done)
        return done.stdout

    def create_database(self, name: str) -> str:
        """A new empty database; its URL."""
        if not name.isidentifier():
            raise ValueError(f"not a plain database name: {name!r}")
        self.psql(f'CREATE DATABASE "{name}"')
        return self.url(name)
