"""`noitu bench arena-cluster`: the two figures of spec B9's "Capacity, measured", on
this machine.

    noitu bench arena-cluster [--matches 40] [--runs 3] [--latency-matches 20] [--json]

- Capacity: `--matches` matches of `builtin:random` against itself are created at once
  over REST on one `noitu serve` of a cluster (`cluster.cluster`: Redis, PostgreSQL,
  NOITU_ARENA_QUEUE=saq), and played (a) by ONE `noitu arena worker` pinned to core 0
  (`taskset -c 0`, `--matches 2`), (b) by TWO, pinned to cores 0 and 1 (each
  `--matches 2`). Each is `arena_rooms.matches_a_minute`: the wall time from the first
  create to the last end, and matches a minute. Reported per run and as medians over
  `--runs` (a fresh cluster each time): matches a minute of (a) and (b) and the ratio
  (b)/(a), with the CPU the serve, the workers and the whole machine used meanwhile.
  Target on a 2-core host that also runs the serve, Redis and PostgreSQL: ≥ 1.5×.
- Start latency: with an idle worker, from the REST request that makes a match startable
  to the match's first bot request. Measured the same way on the embedded default (`noitu
  serve` alone, `arena_rooms.embedded_server`) and on a cluster of one serve and one
  worker (unpinned, its default slots): a room is created with one built-in bot, its
  WebSocket (`/arena/ws/rooms/{code}`) is opened, then the second bot joins; the figure
  is the `serverNowMs` of the first snapshot whose `thinking` is not null (stamped when
  that change happened, on this machine's wall clock) minus the wall-clock time the join
  was sent. One match after another, each after the previous one's `end` frame and a
  short rest; one first match warms the server and the worker up and is not counted.
  Reported: p50 and p99 of each, and the p50 difference. Target: ≤ 20 ms.

Rooms of two built-in bots are one at a time per client address (B10): every room is
played from an address of its own through loopback as a trusted proxy, as
`arena_rooms` does (`TRUSTED_LOOPBACK`, `room_address`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx

from noitu.bench.arena_rooms import (
    TRUSTED_LOOPBACK,
    create_room,
    embedded_server,
    join_room,
    matches_a_minute,
    room_address,
)
from noitu.bench.cluster import cluster
from noitu.bench.machine import (
    format_machine,
    load_average,
    machine,
    median,
    median_dict,
    percentile,
)

PAIR = ("random", "random")
#: Each capacity worker's matches at once (B9: 2 per core; each is pinned to one core).
SLOTS_PER_WORKER = 2
RATIO_TARGET = 1.5  # a 2-core host that also runs the serve, Redis and PostgreSQL (B9)
LATENCY_TARGET_MS = 20.0
#: The rest between two latency matches, so the next one meets an idle worker.
REST_S = 0.3
MATCH_TIMEOUT_S = 120.0
RETRY_NOT_FOUND_S = 2.0


# --- the machine's CPU ------------------------------------------------------------------


def busy_and_total(stat_text: str) -> tuple[int, int]:
    """Jiffies all CPUs spent busy, and in all, from the `cpu` line of /proc/stat
    (idle and iowait are not busy; guest time is already inside user and nice)."""
    for line in stat_text.splitlines():
        fields = line.split()
        if fields and fields[0] == "cpu":
            values = [int(value) for value in fields[1:9]]  # user … steal
            idle = values[3] + values[4]  # idle, iowait
            total = sum(values)
            return total - idle, total
    raise ValueError("no `cpu` line in /proc/stat")


def machine_jiffies() -> tuple[int, int]:
    try:
        return busy_and_total(Path("/proc/stat").read_text())
    except (OSError, ValueError):
        return 0, 0


Process = tuple[str, int, int, int]  # name, parent's pid, own ticks, reaped children's


def parse_process_stat(text: str) -> Process:
    """A /proc/PID/stat line: the command's name, its parent's pid, the ticks it ran
    (utime + stime) and those of its children it reaped (cutime + cstime)."""
    name = text[text.index("(") + 1 : text.rindex(")")]
    fields = text[text.rindex(")") + 2 :].split()
    ticks = [int(field) for field in fields[11:15]]
    return name, int(fields[1]), ticks[0] + ticks[1], ticks[2] + ticks[3]


def processes() -> dict[int, Process]:
    """Every process on the machine now, by pid."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError):
                found[int(entry.name)] = parse_process_stat((entry / "stat").read_text())
    return found


def role_of(pid: int, table: dict[int, Process], roles: dict[int, str]) -> str:
    """Who a process works for: the named role of its nearest ancestor (itself
    included), else `other`. Only the cluster's own processes have roles: another
    PostgreSQL or Redis on the machine (a test suite's) is `other`, whatever its name."""
    for _ in range(64):
        if pid in roles:
            return roles[pid]
        if pid not in table:
            break
        pid = table[pid][1]
    return "other"


def cpu_by_role(
    before: dict[int, Process], after: dict[int, Process], roles: dict[int, str]
) -> dict[str, float]:
    """CPU seconds each role used between two readings of `processes()`. Inside a named
    role a process that ended meanwhile (a bot) counts through the children's time of
    the parent that reaped it; elsewhere only the processes still running count."""
    ticks: dict[str, int] = {}
    for pid, (name, _, own, children) in after.items():
        was = before.get(pid)
        role = role_of(pid, after, roles)
        now = own + children if role in roles.values() else own
        earlier = 0
        if was is not None and was[0] == name:
            earlier = was[2] + was[3] if role in roles.values() else was[2]
        ticks[role] = ticks.get(role, 0) + max(now - earlier, 0)
    per_second = os.sysconf("SC_CLK_TCK")
    return {role: count / per_second for role, count in sorted(ticks.items())}


@contextlib.contextmanager
def cpu_meter(roles: dict[int, str]) -> Iterator[dict]:
    """Inside the block: the CPU seconds of every process on the machine by role (a
    process works for its nearest ancestor in `roles`), the wall time, and the machine's
    busy cores on average; filled in on exit."""
    used: dict = {}
    table = processes()
    busy0, total0 = machine_jiffies()
    began = time.monotonic()
    yield used
    wall = time.monotonic() - began
    busy1, total1 = machine_jiffies()
    used["cpu_s"] = cpu_by_role(table, processes(), roles)
    share = (busy1 - busy0) / (total1 - total0) if total1 > total0 else 0.0
    used["machine_busy_cores"] = share * (os.cpu_count() or 1)
    used["metered_s"] = wall


# --- capacity -----------------------------------------------------------------------------


def capacity(matches: int, workers: int) -> dict:
    """`matches` random-vs-random matches created at once on a cluster of one serve and
    `workers` workers, worker i pinned to core i with SLOTS_PER_WORKER slots."""
    cpus = [str(core) for core in range(workers)]
    slots = ["--matches", str(SLOTS_PER_WORKER)]
    with cluster(
        serve=1, workers=workers, cpus=cpus, worker_args=slots, env=TRUSTED_LOOPBACK
    ) as running:
        roles = {os.getpid(): "benchmark client"}
        roles |= {process.pid: "serve" for process in running.serve_processes}
        roles |= {worker.process.pid: "workers and bots" for worker in running.workers}
        roles |= running.services
        with cpu_meter(roles) as used:
            played = asyncio.run(matches_a_minute(running.serve_urls[0], matches, PAIR))
    return {**played, **used, "workers": workers, "cpus": cpus}


def capacity_runs(matches: int, runs: int) -> dict:
    one, two, ratios = [], [], []
    for run in range(1, runs + 1):
        a = capacity(matches, 1)
        b = capacity(matches, 2)
        ratio = b["per_minute"] / a["per_minute"] if a["per_minute"] else 0.0
        one.append(a)
        two.append(b)
        ratios.append(ratio)
        print(
            f"arena-cluster: run {run}/{runs}: 1 worker {a['per_minute']:.0f}/min"
            f" ({a['finished']}/{matches} in {a['wall_s']:.1f} s), 2 workers"
            f" {b['per_minute']:.0f}/min ({b['finished']}/{matches} in {b['wall_s']:.1f} s),"
            f" ratio {ratio:.2f}", file=sys.stderr, flush=True,
        )
    return {
        "matches": matches,
        "runs": runs,
        "one_worker": summarize(one),
        "two_workers": summarize(two),
        "ratios": ratios,
        "ratio_median": median(ratios),
        "ratio_target": RATIO_TARGET,
    }


def summarize(results: Sequence[dict]) -> dict:
    """The medians of a setting's runs, with every run's matches a minute; the CPU as
    the cores each role kept busy on average while the matches were played."""
    keys = ("wall_s", "per_minute", "finished", "queued_s_max", "played_s_median",
            "machine_busy_cores")
    summary: dict = {key: median([result[key] for result in results]) for key in keys}
    summary["per_minute_runs"] = [result["per_minute"] for result in results]
    summary["reasons"] = sorted({reason for result in results for reason in result["reasons"]})
    summary["cpus"] = results[0]["cpus"]
    summary["cores_by_role"] = median_dict([
        {role: seconds / result["metered_s"] for role, seconds in result["cpu_s"].items()}
        for result in results
    ])
    return summary


# --- start latency ------------------------------------------------------------------------


async def one_start(
    client: httpx.AsyncClient, ws_base: str, address: str, not_found: list[int]
) -> float:
    """One match on an idle server: ms from the join that makes it startable to the
    change that put its first bot to thinking (both on this machine's wall clock)."""
    code = await create_room(client, PAIR[0], None, address)
    started_ms: int | None = None
    async with contextlib.AsyncExitStack() as stack:
        socket = await watch(stack, f"{ws_base}/arena/ws/rooms/{code}", not_found)
        sent_ms = time.time() * 1000
        await join_room(client, code, PAIR[1], address)
        async with asyncio.timeout(MATCH_TIMEOUT_S):
            async for raw in socket:
                frame = json.loads(raw)
                if frame.get("type") == "end":
                    break
                if frame.get("type") == "error":
                    raise RuntimeError(f"room {code}: {frame}")
                room = frame.get("room") or {}
                if started_ms is None and room.get("thinking") is not None:
                    started_ms = room["serverNowMs"]
    if started_ms is None:
        raise RuntimeError(f"room {code}: its match ended without a bot thinking")
    return started_ms - sent_ms


async def watch(stack: contextlib.AsyncExitStack, url: str, not_found: list[int]) -> Any:
    """The room's WebSocket, open, its first snapshot read (the room waits for its second
    seat). On several machines a room just created may not be found for a moment: its
    first snapshot reaches Redis after the create's answer. Such a refusal is counted in
    `not_found[0]` and the socket opened again (for up to RETRY_NOT_FOUND_S)."""
    from websockets.asyncio.client import connect

    deadline = time.monotonic() + RETRY_NOT_FOUND_S
    while True:
        socket = await stack.enter_async_context(connect(url, open_timeout=30))
        first = json.loads(await socket.recv())
        if first.get("type") == "room":
            return socket
        if first.get("error") != "room_not_found" or time.monotonic() > deadline:
            raise RuntimeError(f"{url}: {first}")
        not_found[0] += 1
        await socket.close()
        await asyncio.sleep(0.02)


async def start_latencies(base: str, count: int) -> tuple[list[float], int]:
    """`count` matches one after another (plus one warm-up, not counted): their start
    latencies in ms, sorted, and how often a new room's socket was refused at first."""
    ws_base = base.replace("http://", "ws://")
    samples, not_found = [], [0]
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        for i in range(count + 1):
            latency = await one_start(client, ws_base, room_address(i), not_found)
            if i:
                samples.append(latency)
            await asyncio.sleep(REST_S)
    return sorted(samples), not_found[0]


def latency_figures(samples: Sequence[float], not_found: int) -> dict:
    return {
        "matches": len(samples),
        "sockets_refused_at_first": not_found,
        "p50_ms": percentile(samples, 0.50),
        "p99_ms": percentile(samples, 0.99),
        "min_ms": samples[0] if samples else 0.0,
        "max_ms": samples[-1] if samples else 0.0,
        "samples_ms": [round(sample, 1) for sample in samples],
    }


def start_latency(count: int) -> dict:
    with embedded_server() as (_, base):
        embedded = latency_figures(*asyncio.run(start_latencies(base, count)))
    print(f"arena-cluster: start latency, embedded: p50 {embedded['p50_ms']:.1f} ms",
          file=sys.stderr, flush=True)
    with cluster(serve=1, workers=1, env=TRUSTED_LOOPBACK) as running:
        clustered = latency_figures(*asyncio.run(start_latencies(running.serve_urls[0], count)))
    print(f"arena-cluster: start latency, cluster: p50 {clustered['p50_ms']:.1f} ms",
          file=sys.stderr, flush=True)
    figures = {"embedded": embedded, "cluster": clustered}
    figures["p50_difference_ms"] = figures["cluster"]["p50_ms"] - figures["embedded"]["p50_ms"]
    figures["target_ms"] = LATENCY_TARGET_MS
    return figures


# --- the benchmark ------------------------------------------------------------------------


def bench_arena_cluster(matches: int, runs: int, latency_matches: int) -> dict:
    info = machine()
    if info["usable_cores"] < 2:
        raise SystemExit(
            "noitu bench arena-cluster: needs 2 usable cores (workers on cores 0 and 1)"
        )
    report = {"machine": info, "capacity": capacity_runs(matches, runs)}
    report["start_latency"] = start_latency(latency_matches)
    info["load_average_after"] = load_average()
    return report


def format_arena_cluster(report: dict) -> str:
    c, s = report["capacity"], report["start_latency"]

    def setting(name: str, figures: dict) -> str:
        return (
            f"  {name:<34} {figures['per_minute']:6.1f} matches a minute"
            f" ({figures['finished']:.0f}/{c['matches']} in {figures['wall_s']:.1f} s;"
            f" runs {', '.join(f'{x:.0f}' for x in figures['per_minute_runs'])});"
            f"\n      cores busy: machine {figures['machine_busy_cores']:.2f} = "
            + ", ".join(
                f"{role} {cores:.2f}" for role, cores in sorted(
                    figures["cores_by_role"].items(), key=lambda item: -item[1]
                )
            )
        )

    def cores(figures: dict) -> str:
        return ",".join(figures["cpus"])

    ratio_ok = c["ratio_median"] >= c["ratio_target"]
    difference_ok = s["p50_difference_ms"] <= s["target_ms"]

    def latency(name: str, figures: dict) -> str:
        return (f"  {name:<10} p50 {figures['p50_ms']:6.1f} ms, p99 {figures['p99_ms']:6.1f} ms"
                f" (min {figures['min_ms']:.1f}, max {figures['max_ms']:.1f};"
                f" {figures['matches']} matches; a new room's socket refused at first"
                f" {figures['sockets_refused_at_first']}×)")

    return "\n".join([
        format_machine(report["machine"]),
        (f"capacity: {c['matches']} matches of random against random created at once on one"
         f" serve; medians of {c['runs']} runs"),
        setting(f"1 worker (core {cores(c['one_worker'])}, --matches {SLOTS_PER_WORKER})",
                c["one_worker"]),
        setting(f"2 workers (cores {cores(c['two_workers'])}, --matches {SLOTS_PER_WORKER} each)",
                c["two_workers"]),
        (f"  ratio (2 workers / 1): {c['ratio_median']:.2f}× (runs"
         f" {', '.join(f'{r:.2f}' for r in c['ratios'])}); target ≥ {c['ratio_target']:g}×:"
         f" {'ok' if ratio_ok else 'MISSED'}"),
        ("start latency, idle worker: the join that makes a match startable → its first bot"
         " thinking"),
        latency("embedded", s["embedded"]),
        latency("cluster", s["cluster"]),
        (f"  p50 difference {s['p50_difference_ms']:+.1f} ms; target ≤ {s['target_ms']:g} ms:"
         f" {'ok' if difference_ok else 'MISSED'}"),
    ])
