"""Finding the server's own cgroup: `/proc/self/cgroup` names it, `/proc/self/mountinfo`
says where each hierarchy is mounted, and `find_cgroups` picks the version to use."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from noitu.adapters.arena.cgroups.tree import CONTROLLERS, CgroupError, CgroupTree, read_file, why
from noitu.adapters.arena.cgroups.v1 import CgroupV1Tree
from noitu.adapters.arena.cgroups.v2 import CgroupV2Tree


@dataclass(frozen=True, slots=True)
class _Mount:
    root: str
    point: Path
    fstype: str
    options: frozenset[str]


def _unescape(field: str) -> str:
    for escaped, plain in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(escaped, plain)
    return field


def _mounts(mountinfo: str) -> list[_Mount]:
    found: list[_Mount] = []
    for line in mountinfo.splitlines():
        fields = line.split()
        if "-" not in fields:
            continue
        dash = fields.index("-")
        if len(fields) < dash + 4 or len(fields) < 5:
            continue
        fstype, super_options = fields[dash + 1], fields[dash + 3]
        root, point = _unescape(fields[3]), Path(_unescape(fields[4]))
        found.append(_Mount(root, point, fstype, frozenset(super_options.split(","))))
    return found


def _inside(mount: _Mount, cgroup_path: str) -> Path:
    """The directory of `cgroup_path` (as /proc/self/cgroup names it) in `mount`."""
    root = mount.root.rstrip("/")
    relative = cgroup_path
    if root and (cgroup_path == root or cgroup_path.startswith(root + "/")):
        relative = cgroup_path[len(root) :]
    return mount.point / relative.lstrip("/")


def find_cgroups(proc: Path = Path("/proc"), prefer: str | None = None) -> CgroupTree:
    """The cgroup tree to make per-bot cgroups in, below the server's own cgroup.

    v2 when the server's unified cgroup offers memory, cpu and pids; else v1 when the
    three hierarchies are mounted; CgroupError with one line saying why otherwise.
    `prefer` ("v1" or "v2") restricts the choice (tests)."""
    try:
        membership = read_file(proc / "self" / "cgroup")
        mounts = _mounts(read_file(proc / "self" / "mountinfo"))
    except OSError as error:
        raise CgroupError(f"cannot read {proc}/self/cgroup or mountinfo: {why(error)}") from error
    v1_paths: dict[str, str] = {}
    v2_path: str | None = None
    for line in membership.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        if parts[0] == "0" and parts[1] == "":
            v2_path = parts[2]
        for controller in parts[1].split(","):
            if controller in CONTROLLERS:
                v1_paths[controller] = parts[2]

    reasons: list[str] = []
    if prefer in (None, "v2"):
        unified = next((m for m in mounts if m.fstype == "cgroup2"), None)
        if unified is None or v2_path is None:
            reasons.append("no cgroup v2 hierarchy mounted")
        else:
            base = _inside(unified, v2_path)
            tree = CgroupV2Tree(base, is_root=(v2_path.rstrip("/") == unified.root.rstrip("/")))
            have = tree.available_controllers()
            missing = [c for c in CONTROLLERS if c not in have]
            if not missing:
                return tree
            reasons.append(
                f"cgroup v2 at {base} offers "
                + (" ".join(sorted(have)) if have else "no controllers")
                + f" (needs {' '.join(CONTROLLERS)})"
            )
    if prefer in (None, "v1"):
        parents: dict[str, Path] = {}
        for controller in CONTROLLERS:
            mount = next(
                (m for m in mounts if m.fstype == "cgroup" and controller in m.options), None
            )
            if mount is not None and controller in v1_paths:
                parents[controller] = _inside(mount, v1_paths[controller])
        missing = [c for c in CONTROLLERS if c not in parents]
        if not missing:
            return CgroupV1Tree(parents)
        reasons.append(f"cgroup v1 has no {', '.join(missing)} hierarchy mounted")
    raise CgroupError("no usable cgroups: " + "; ".join(reasons))
