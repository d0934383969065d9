"""Per-bot cgroups: one interface (`tree`), a cgroup v1 (`v1`) and a cgroup v2 (`v2`)
implementation, found by reading the mounts (`mounts.find_cgroups`); the caps in `limits`.

Each bot process (and each compile) gets its own cgroup, created below the server's
OWN cgroup as `/proc/self/cgroup` names it, with a memory cap, a CPU quota and a pids
cap. A process joins it by writing its pid to every file of `procs_files` before the
untrusted program runs (the launchers do that in a tiny `/bin/sh` exec wrapper, never in
`preexec_fn`). A memory kill is told by the cgroup's OOM-kill counter. After the bot
ended, `kill_all()` and `remove()`.

- v1 (this project's CI machines): the memory, cpu and pids hierarchies are mounted
  separately; limits `memory.limit_in_bytes` (+ `memory.memsw.limit_in_bytes` when swap
  accounting exists), `cpu.cfs_period_us`/`cpu.cfs_quota_us`, `pids.max`; OOM kills in
  `memory.oom_control`'s `oom_kill` line; no `cgroup.kill`, so processes are killed one
  by one through pidfds (the PID namespace of the sandbox already kills them too).
- v2 (most production hosts): `memory.max` (+ `memory.swap.max` 0, `memory.oom.group`
  1), `cpu.max`, `pids.max`, `memory.events`' `oom_kill`, `cgroup.kill`. The server's
  cgroup must be delegated to it (writable). Because of v2's "no internal processes"
  rule, when the controllers cannot be enabled for children of a cgroup that still holds
  processes, those processes are moved into a leaf `noitu-server` first (what systemd's
  `Delegate=yes` expects).
"""
