"""The default sandbox (spec B2): bubblewrap plus a cgroup per bot, as `Sandbox` starts
it (the launcher and the probe are in `bubblewrap.py`, the builder in `build.py`).

A sandboxed program is started as

    /bin/sh -c '<join>' noitu-join <cgroup.procs files> -- \
        [setpriv --reuid=U --regid=G --clear-groups --] \
        bwrap --unshare-all --unshare-user --disable-userns --die-with-parent \
              --new-session --hostname bot --clearenv --setenv PATH /usr/bin:/bin \
              --setenv HOME /tmp --setenv LANG C.UTF-8 --cap-drop ALL \
              --ro-bind /usr /usr --symlink usr/bin /bin ... [--ro-bind /etc/java-17-openjdk ...] \
              --proc /proc --dev /dev --size 67108864 --tmpfs /tmp \
              --ro-bind <staged artefact> /bot --remount-ro /dev --remount-ro / \
              --chdir /bot --info-fd 3 --seccomp 4 -- <command>

- the shell writes its own pid into the bot's cgroups and execs the rest, so the
  untrusted program starts inside them (no preexec_fn);
- when the server runs as root, `setpriv` drops to an unprivileged uid before bwrap, so
  even the sandbox's "root" is nobody on the host: each running bot and compile has a
  uid of its own from a range no account uses (`SandboxUsers`), so none shares it with
  another program or a `nobody` service; the artefact is copied to a staging directory
  only that uid may enter (0700), which bwrap mounts through a descriptor
  (`--ro-bind-fd`), so its path shows in no process list;
- bwrap's root and /dev are tmpfs mounts it creates: both are remounted read-only, so
  the only writable place is the 64 MiB /tmp;
- new user, network, PID, IPC, UTS, mount and cgroup namespaces; the sandbox's PID 1 is
  bwrap's init: when the bot's main process exits, or the outer bwrap is killed
  (--die-with-parent), the kernel kills everything in the PID namespace, `setsid` and
  double-forked grandchildren included; the cgroup is killed and removed after that;
- `--info-fd` tells the launcher that the sandbox is set up (else START_FAILED);
- `--seccomp` installs the filter of `seccomp.py` (compiled once by the probe) just
  before the program starts, for bots and compilers alike.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from noitu.adapters.arena.cgroups.limits import MIB
from noitu.adapters.arena.cgroups.tree import BotCgroup, CgroupTree
from noitu.adapters.arena.process_tree import joined
from noitu.adapters.arena.seccomp import filter_descriptor

NOBODY = (65534, 65534)
BOT_TMP_BYTES = 64 * MIB
#: Where the artefact is mounted, and the bot's working directory.
BOT_DIR = "/bot"
#: The environment of every sandboxed program, and nothing else.
SANDBOX_ENV = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8"}
#: The environment of the wrapper (sh, setpriv, bwrap) on the host side.
HOST_ENV = {"PATH": "/usr/bin:/bin"}
_TOP_LEVEL = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")


def default_run_as() -> tuple[int, int] | None:
    return NOBODY if os.geteuid() == 0 else None


#: The host uids sandboxed programs run as by default (root only): unused by accounts on
#: Debian (regular users end at 59999, nobody is 65534, subordinate ranges of user
#: namespaces usually start at 100000 and are per user: pick another range if the host
#: hands those out).
DEFAULT_USER_RANGE = range(200_000, 201_000)


class NoFreeUser(Exception):
    """Every uid of the range runs a program: one more would have to share."""


class SandboxUsers:
    """The host uids sandboxed programs run as: one per running bot or compile.

    A uid is leased for a directory (the bot's stage, the build's work folder) and is
    free again once that directory is gone, which happens only after the programs that
    ran as it are dead (`ProcessTree.release`, the builder's clean-up). Several servers
    on one host need ranges of their own."""

    def __init__(self, uids: range = DEFAULT_USER_RANGE) -> None:
        if not uids:
            raise ValueError("an empty range of uids")
        self.uids = uids
        self._held: dict[int, Path] = {}
        self._random = secrets.SystemRandom()

    def lease(self, holder: Path) -> tuple[int, int]:
        """A free (uid, gid) for the programs `holder` serves; NoFreeUser when none."""
        for uid, directory in list(self._held.items()):
            if not os.path.lexists(directory):
                del self._held[uid]
        if len(self._held) >= len(self.uids):
            raise NoFreeUser(f"all {len(self.uids)} sandbox uids are in use")
        while True:
            uid = self.uids[self._random.randrange(len(self.uids))]
            if uid not in self._held:
                self._held[uid] = holder
                return uid, uid


def jdk_etc_dirs(java: str | None) -> tuple[str, ...]:
    """The JDK's directories under /etc (Debian links its conf/ files there)."""
    if not java:
        return ()
    home = Path(os.path.realpath(java)).parent.parent
    found: set[str] = set()
    for root, dirs, files in os.walk(home):
        for name in dirs + files:
            path = os.path.join(root, name)
            if os.path.islink(path):
                target = os.path.realpath(path)
                parts = Path(target).parts
                if len(parts) >= 3 and parts[1] == "etc" and parts[2].startswith("java"):
                    found.add(f"/etc/{parts[2]}")
    return tuple(sorted(found))


@dataclass
class SandboxTools:
    """Paths of the programs the sandbox uses, found on `path` (default: PATH)."""

    bwrap: str | None
    setpriv: str | None
    shell: str = "/bin/sh"
    python: str = "/usr/bin/python3"
    java: str | None = None
    javac: str | None = None
    gxx: str | None = None
    java_etc: tuple[str, ...] = ()
    bwrap_help: str = ""
    bwrap_version: str = ""

    @classmethod
    def find(cls, path: str | None = None) -> SandboxTools:
        def real(name: str) -> str | None:
            found = shutil.which(name, path=path)
            return os.path.realpath(found) if found else None

        java = real("java")
        return cls(
            bwrap=shutil.which("bwrap", path=path),
            setpriv=shutil.which("setpriv", path=path),
            java=java,
            javac=real("javac"),
            gxx=shutil.which("g++", path=path),
            java_etc=jdk_etc_dirs(java),
        )


@dataclass
class Sandbox:
    """Everything needed to run one program in the sandbox."""

    tools: SandboxTools
    cgroups: CgroupTree
    run_as: tuple[int, int] | None = field(default_factory=default_run_as)
    stage_root: Path | None = None
    #: The compiled seccomp filter every sandboxed program runs under (`seccomp.py`).
    seccomp_program: bytes | None = None
    #: When `run_as` is set: a uid of its own for each running program.
    users: SandboxUsers | None = None

    def __post_init__(self) -> None:
        self._own_stage_root = self.stage_root is None
        if self.stage_root is None:
            self.stage_root = Path(tempfile.mkdtemp(prefix="noitu-arena-"))
        self.stage_root.mkdir(parents=True, exist_ok=True)
        os.chmod(self.stage_root, 0o711)
        help_text = self.tools.bwrap_help
        self._disable_userns = not help_text or "--disable-userns" in help_text

    def close(self) -> None:
        """Remove the staging root when this object made it."""
        if self._own_stage_root and self.stage_root is not None:
            shutil.rmtree(self.stage_root, ignore_errors=True)

    def new_stage(self) -> Path:
        """A new private directory under the stage root (0700, the server's until
        `lease_user` hands it over)."""
        assert self.stage_root is not None
        stage = self.stage_root / secrets.token_hex(8)
        stage.mkdir(mode=0o700)
        os.chmod(stage, 0o700)
        return stage

    def lease_user(self, holder: Path) -> tuple[int, int] | None:
        """The identity the programs of `holder` (a stage or work directory) run as:
        a uid of their own from `users`, else `run_as` (None: the server's own)."""
        if self.run_as is None:
            return None
        if self.users is None:
            return self.run_as
        return self.users.lease(holder)

    def bwrap_args(
        self,
        command: Sequence[str],
        *,
        read_only: Sequence[tuple[str | Path | int, str]] = (),
        writable: Sequence[tuple[str | Path | int, str]] = (),
        chdir: str = "/tmp",
        tmp_bytes: int = BOT_TMP_BYTES,
        info_fd: int | None = None,
        seccomp_fd: int | None = None,
        java: bool = False,
    ) -> list[str]:
        """bwrap's arguments for `command`; `java`: also the JDK's /etc directories."""
        if not self.tools.bwrap:
            raise RuntimeError("bubblewrap is not installed")
        args = [self.tools.bwrap, "--unshare-all", "--unshare-user"]
        if self._disable_userns:
            args.append("--disable-userns")
        args += ["--die-with-parent", "--new-session", "--hostname", "bot", "--clearenv"]
        for name, value in SANDBOX_ENV.items():
            args += ["--setenv", name, value]
        args += ["--cap-drop", "ALL", "--ro-bind", "/usr", "/usr"]
        for name in _TOP_LEVEL:
            host = Path("/") / name
            if host.is_symlink():
                args += ["--symlink", os.readlink(host), f"/{name}"]
            elif host.is_dir():
                args += ["--ro-bind", str(host), f"/{name}"]
        for directory in self.tools.java_etc if java else ():
            args += ["--ro-bind", directory, directory]
        args += ["--proc", "/proc", "--dev", "/dev", "--size", str(tmp_bytes), "--tmpfs", "/tmp"]
        # A source given as a descriptor (an int) is mounted through it: its path then
        # shows in no process list.
        for source, dest in read_only:
            flag = "--ro-bind-fd" if isinstance(source, int) else "--ro-bind"
            args += [flag, str(source), dest]
        for source, dest in writable:
            flag = "--bind-fd" if isinstance(source, int) else "--bind"
            args += [flag, str(source), dest]
        args += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", chdir]
        if info_fd is not None:
            args += ["--info-fd", str(info_fd)]
        if seccomp_fd is not None:
            args += ["--seccomp", str(seccomp_fd)]
        return [*args, "--", *command]

    def argv(
        self,
        cgroup: BotCgroup | None,
        bwrap_args: Sequence[str],
        user: tuple[int, int] | None | str = "default",
    ) -> list[str]:
        """The host command: join `cgroup`, drop to `user` (default `run_as`), exec bwrap."""
        command = list(bwrap_args)
        identity = self.run_as if user == "default" else user
        if identity is not None:
            if not self.tools.setpriv:
                raise RuntimeError("setpriv is missing")
            uid, gid = identity  # type: ignore[misc]
            drop = [self.tools.setpriv, f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--"]
            command = [*drop, *command]
        procs = cgroup.procs_files if cgroup is not None else ()
        return joined(procs, command, shell=self.tools.shell)

    @contextlib.contextmanager
    def kernel_filter(self) -> Iterator[int | None]:
        """A descriptor of the seccomp filter for one bwrap start (None without a
        filter); pass it to `bwrap_args(seccomp_fd=...)` and to the child's fds."""
        if self.seccomp_program is None:
            yield None
            return
        descriptor = filter_descriptor(self.seccomp_program)
        try:
            yield descriptor
        finally:
            os.close(descriptor)

    def give_to_run_as(self, path: Path, user: tuple[int, int] | None | str = "default") -> None:
        identity = self.run_as if user == "default" else user
        if identity is not None:
            os.chown(path, *identity)  # type: ignore[misc]



async def start_on_host(argv: Sequence[str], pass_fds: Sequence[int] = ()) -> asyncio.subprocess.Process:
    """A host-side program (a sandbox's wrapper, a compile's driver) with no input, its
    output and errors on one pipe, in a session of its own."""
    return await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env=dict(HOST_ENV),
        cwd="/",
        start_new_session=True,
        pass_fds=tuple(pass_fds),
    )
