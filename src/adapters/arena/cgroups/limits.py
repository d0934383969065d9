"""The caps each per-bot cgroup gets (spec B2)."""

from __future__ import annotations

from dataclasses import dataclass

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class CgroupLimits:
    memory_bytes: int
    cpu_quota_us: int
    cpu_period_us: int
    pids_max: int


#: Per bot process and everything it starts (B2): 384 MB, 0.5 CPU, 64 pids.
BOT_LIMITS = CgroupLimits(
    memory_bytes=384 * MIB, cpu_quota_us=50_000, cpu_period_us=100_000, pids_max=64
)
#: Per compile (B2): 1 GiB, 1 CPU, 64 pids (the 60 s wall limit is the builder's).
BUILD_LIMITS = CgroupLimits(
    memory_bytes=1024 * MIB, cpu_quota_us=100_000, cpu_period_us=100_000, pids_max=64
)
