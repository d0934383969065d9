"""What the arena's rooms sustain on one `noitu serve`: matches a minute
through the match queue, and the WebSocket's fan-out to many viewers of one match
(latency and the server's memory).

    .venv/bin/python bench/arena_rooms.py [--matches 12] [--pair random:random]
                                          [--rooms 10] [--viewers 100] [--watch random:random]

- Matches a minute: `--matches` rooms are created at once over REST, each between two
  built-in bots (`--pair`), each by a new owner (an owner may have 3 live rooms) from
  its own client address (see "Client addresses" below); the queue runs as many as the
  machine's cores honour (`default_slots`). Reported: the
  wall time from the first create to the last end, matches a minute, and each match's
  wait in the queue and its length. Each room is polled every 0.25 s once it is playing
  or among the next `NEAR_THE_FRONT` of the queue, and once a second before: polling
  all 40 rooms four times a second took about a sixth of a core of this benchmark and
  the server's, from the cores the matches are measured on, to watch rooms that could
  not start yet.
- Fan-out: `--rooms` matches between `--watch` bots are watched by `--viewers`
  WebSocket clients in all (spread evenly). Each frame carries the snapshot's `serverNowMs` (made when the change
  happened, on this machine's clock): a frame's latency is its arrival time minus that.
  Reported: p50 / p99 / max over every frame of every viewer, frames per viewer, and the
  server's RSS before the rooms and viewers, and with all of them connected (the
  matches live or queued).

The server runs as the README starts it (MODULES=arena, a throwaway NOITU_DATA_DIR, the
sandbox when this machine has one), with loopback named a trusted proxy. Prints medians
with the machine's core count.

Client addresses: a room of two built-in bots is a spectacle, one at a time per client
address, and an address opens 12 rooms and makes 10 owner keys a minute (spec B10). The
benchmark is one client playing many visitors, so the server trusts loopback as a
reverse proxy (`TRUSTED_LOOPBACK`) and each room's requests say, in `X-Forwarded-For`,
an address of their own (`room_address`); the limits stay as shipped.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

import httpx

from noitu.bench.http_load import running_server
from noitu.bench.machine import format_machine, machine, median, percentile, rss_mb

API = "/arena/api"
FINISHED = ("FINISHED", "ABANDONED")
#: The settings that let one benchmark client be many visitors (see the module's text).
TRUSTED_LOOPBACK = {"NOITU_TRUSTED_PROXY": "127.0.0.1"}
#: Room addresses are drawn from 10.0.0.0/8 (private: no real visitor has one here).
ADDRESS_SPACE = 1 << 24
#: A queued room this close to the front is polled as often as a playing one.
NEAR_THE_FRONT = 8
#: How often a room further back is polled (its wait is measured to 0.25 s all the same:
#: it comes near the front before it starts).
FAR_BACK_EVERY_S = 1.0


def builtin(name: str) -> dict[str, str]:
    return {"kind": "builtin", "ref": name}


def room_address(index: int) -> str:
    """The client address room number `index` (from 0) is played from: a distinct one
    of 10.0.0.1 … 10.255.255.255 for each of the first 2^24 - 1 rooms."""
    if not 0 <= index < ADDRESS_SPACE - 1:
        raise ValueError(f"room {index}: only {ADDRESS_SPACE - 1} addresses")
    number = index + 1  # 10.0.0.0 is the network's own address
    return f"10.{number >> 16 & 255}.{number >> 8 & 255}.{number & 255}"


def as_visitor(address: str | None) -> dict[str, str]:
    """The headers that make a request come from `address` (through the trusted
    loopback proxy); none for the socket's own address."""
    return {} if address is None else {"X-Forwarded-For": address}


async def create_room(
    client: httpx.AsyncClient, p1: str, p2: str | None, address: str | None = None
) -> str:
    """A room with a built-in bot `p1` seated and, unless None, `p2` opposite; its code."""
    body = {"seat": builtin(p1)} | ({} if p2 is None else {"opponent": builtin(p2)})
    answer = await client.post(f"{API}/rooms", json=body, headers=as_visitor(address))
    if answer.status_code != 201:
        raise RuntimeError(f"creating a room: {answer.status_code} {answer.text[:200]}")
    return answer.json()["room"]["code"]


async def join_room(
    client: httpx.AsyncClient, code: str, bot: str, address: str | None = None
) -> None:
    """Seat the built-in bot `bot` in the room's open seat."""
    joined = await client.post(
        f"{API}/rooms/{code}/join", json={"seat": builtin(bot)}, headers=as_visitor(address)
    )
    if joined.status_code != 200:
        raise RuntimeError(f"joining: {joined.status_code} {joined.text[:200]}")


async def wait_for_end(client: httpx.AsyncClient, code: str, every_s: float = 0.25) -> dict:
    """Poll the room until its match is over (every `every_s`, or `FAR_BACK_EVERY_S`
    while it waits behind `NEAR_THE_FRONT` others); the snapshots seen: when it left the
    queue (first PLAYING) and when it ended."""
    began = time.monotonic()
    playing_at = None
    while True:
        room = (await client.get(f"{API}/rooms/{code}")).json()
        now = time.monotonic()
        if playing_at is None and room["phase"] in ("PLAYING", *FINISHED):
            playing_at = now
        if room["phase"] in FINISHED:
            return {
                "queued_s": (playing_at or now) - began,
                "played_s": now - (playing_at or now),
                "turns": (room.get("result") or {}).get("turns", room.get("turn", 0)),
                "phase": room["phase"],
                "reason": (room.get("result") or {}).get("reason"),
            }
        far_back = (room.get("queuePlace") or 0) > NEAR_THE_FRONT
        await asyncio.sleep(FAR_BACK_EVERY_S if far_back else every_s)


async def matches_a_minute(base: str, count: int, pair: tuple[str, str]) -> dict:
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        began = time.monotonic()
        codes = [await create_room(client, *pair, room_address(i)) for i in range(count)]
        ends = await asyncio.gather(*(wait_for_end(client, code) for code in codes))
        wall = time.monotonic() - began
    finished = [end for end in ends if end["phase"] == "FINISHED"]
    return {
        "matches": count,
        "finished": len(finished),
        "wall_s": wall,
        "per_minute": 60 * len(finished) / wall if wall else 0.0,
        "queued_s_median": median([end["queued_s"] for end in ends]),
        "queued_s_max": max(end["queued_s"] for end in ends),
        "played_s_median": median([end["played_s"] for end in ends]),
        "turns_median": median([end["turns"] for end in ends]),
        "reasons": sorted({str(end["reason"]) for end in ends}),
    }


async def viewer(url: str, latencies: list[float], frames: list[int], ready: asyncio.Event,
                 connected: list[int]) -> None:
    from websockets.asyncio.client import connect

    seen = 0
    async with connect(url, max_size=2**22, open_timeout=30) as socket:
        connected[0] += 1
        async for raw in socket:
            arrived_ms = time.time() * 1000
            frame = json.loads(raw)
            if frame.get("type") == "end":
                break
            if frame.get("type") == "room":
                seen += 1
                if ready.is_set():  # the snapshot sent on connect is not a change
                    latencies.append(arrived_ms - frame["room"]["serverNowMs"])
    frames.append(seen)


async def fan_out(base: str, pid: int, rooms: int, viewers: int, pair: tuple[str, str]) -> dict:
    """`rooms` matches watched by `viewers` sockets in all (spread evenly): frame latency
    and the server's memory with every viewer connected."""
    ws_base = base.replace("http://", "ws://")
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        rss_before = rss_mb(pid)
        # Sit the viewers down before the matches start: a room with one open seat waits.
        codes = [
            await create_room(client, pair[0], None, room_address(i)) for i in range(rooms)
        ]
        latencies: list[float] = []
        frames: list[int] = []
        connected = [0]
        ready = asyncio.Event()
        tasks = [
            asyncio.create_task(viewer(
                f"{ws_base}/arena/ws/rooms/{codes[i % rooms]}", latencies, frames, ready, connected
            ))
            for i in range(viewers)
        ]
        while connected[0] < viewers:
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)  # every socket has had its first snapshot
        ready.set()
        for i, code in enumerate(codes):
            await join_room(client, code, pair[1], room_address(i))
        await asyncio.sleep(1.0)
        rss_viewers = rss_mb(pid)  # every viewer connected, every match live or queued
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=1800)
    latencies.sort()
    return {
        "rooms": rooms,
        "viewers": viewers,
        "frames_per_viewer": median(frames) if frames else 0,
        "latency_ms": {
            "p50": percentile(latencies, 0.50),
            "p99": percentile(latencies, 0.99),
            "max": latencies[-1] if latencies else 0.0,
        },
        "rss_mb_before": rss_before,
        "rss_mb_with_viewers": rss_viewers,
        "kb_per_viewer": 1024 * (rss_viewers - rss_before) / viewers if viewers else 0.0,
    }


@contextlib.contextmanager
def embedded_server() -> Iterator[tuple[subprocess.Popen, str]]:
    """The embedded default: `noitu serve` alone as the README starts it (MODULES=arena,
    a throwaway NOITU_DATA_DIR), loopback trusted as a proxy; its process and base URL."""
    with tempfile.TemporaryDirectory(prefix="noitu-bench-arena-") as data_dir:
        env = {"MODULES": "arena", "NOITU_DATA_DIR": data_dir, **TRUSTED_LOOPBACK}
        with running_server(secrets.token_hex(16), env) as (server, port):
            yield server, f"http://127.0.0.1:{port}"


def run(args: argparse.Namespace) -> dict:
    with embedded_server() as (server, base):
        pair = tuple(args.pair.split(":"))
        watch = tuple(args.watch.split(":"))
        throughput = asyncio.run(matches_a_minute(base, args.matches, pair))  # type: ignore[arg-type]
        print(f"arena rooms: {throughput['finished']}/{args.matches} matches in"
              f" {throughput['wall_s']:.1f} s", file=sys.stderr, flush=True)
        fan = asyncio.run(fan_out(base, server.pid, args.rooms, args.viewers, watch))  # type: ignore[arg-type]
    return {"machine": machine(), "pair": args.pair, "watch": args.watch,
            "throughput": throughput, "fan_out": fan}


def format_report(report: dict) -> str:
    t, f = report["throughput"], report["fan_out"]
    latency = f["latency_ms"]
    return "\n".join([
        format_machine(report["machine"]),
        (f"matches a minute ({report['pair']}, {t['matches']} rooms at once):"
        f" {t['per_minute']:.1f} ({t['finished']} finished in {t['wall_s']:.1f} s);"
        f" wait in the queue median {t['queued_s_median']:.1f} s, max {t['queued_s_max']:.1f} s;"
        f" a match median {t['played_s_median']:.1f} s, {t['turns_median']:.0f} turns;"
        f" ends {', '.join(t['reasons'])}"),
        (f"fan-out ({report['watch']}, {f['viewers']} WebSocket viewers of {f['rooms']} matches):"
        f" frame latency p50 {latency['p50']:.1f} / p99 {latency['p99']:.1f} /"
        f" max {latency['max']:.1f} ms over {f['frames_per_viewer']:.0f} frames a viewer;"
        f" server RSS {f['rss_mb_before']:.0f} MB → {f['rss_mb_with_viewers']:.0f} MB"
        f" ({f['kb_per_viewer']:.0f} KB a viewer)"),
    ])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=12)
    parser.add_argument("--pair", default="random:random", help="the built-in bots, P1:P2")
    parser.add_argument("--rooms", type=int, default=10, help="matches the viewers watch")
    parser.add_argument("--viewers", type=int, default=100, help="in all, spread over the rooms")
    parser.add_argument("--watch", default="random:random")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = run(args)
    print(json.dumps(report) if args.json else format_report(report))


if __name__ == "__main__":
    main()
