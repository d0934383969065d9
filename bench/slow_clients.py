"""What slow and oversized requests cost `noitu serve` (issue 30, 3.4; spec B10).

    .venv/bin/python bench/slow_clients.py [--runs 3] [--server-python PATH]

Each run starts a fresh `noitu serve` with its default settings on a free loopback port
(its own data directory, a throwaway one) and measures:

- **Heads**: its RSS before and while 100 connections each hold an unfinished request
  head of 10 MB (one header's value, sent by all of them at once until the server
  stops reading it), and what a finished 20 MB head is answered.
- **Slow bodies**: 1,000 connections (the default cap, `NOITU_MAX_CONNECTIONS`) each
  send a room's head (`POST /arena/api/rooms`, `Content-Length: 4096`) and then a byte
  of its body every 5 s. Once the cap is full (`/healthz` answers 503), the time until
  `/healthz` answers 200 again, asked every 0.1 s on a new connection, for up to
  `--wait` seconds; and how the attackers' connections ended.

- **Cost** (in this process, no server): what the bounds add to each request. A whole
  GET, and a POST with its 40-byte body, are fed to `BoundedHttpToolsProtocol` and to
  the protocol under it (`CoalescingHttpToolsProtocol`: uvicorn's, each answer in one
  write) on a fake transport, answered at once by a bare ASGI app, in alternating
  rounds of 1,000 requests; the figure is this thread's CPU time per request (the
  garbage collector held off), so other processes' turns on the cores do not count.
  `--baseline-protocol` adds another checkout's `server_protocol.py` to the rounds.

`--server-python` runs the server with another interpreter (another checkout's venv,
e.g. the code before a change); `--parts` picks what to measure (heads, bodies, cost;
default all). Prints each run and the medians over the runs, with the machine's cores.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import dataclasses
import functools
import gc
import importlib.util
import json
import secrets
import select
import socket
import sys
import tempfile
import time
from typing import Any

import uvicorn
from uvicorn.server import ServerState

from noitu.adapters.http import server_protocol
from noitu.adapters.http.fast_paths import CoalescingHttpToolsProtocol
from noitu.bench.http_load import running_server
from noitu.bench.machine import format_machine, machine, median, rss_mb
from noitu.entrypoints.settings import Settings

MIB = 1024 * 1024
ROOM_HEAD = (
    b"POST /arena/api/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    b"Content-Type: application/json\r\nContent-Length: 4096\r\n\r\n"
)


async def status_of(port: int, request: bytes, timeout_s: float = 5.0) -> int:
    """The status of the answer to `request` on a new connection (0: none)."""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout_s)
    except (OSError, TimeoutError):
        return 0
    try:
        writer.write(request)
        line = await asyncio.wait_for(reader.readline(), timeout_s)
        return int(line.split()[1]) if line.startswith(b"HTTP/1.1 ") else 0
    except (OSError, TimeoutError, ValueError, IndexError):
        return 0
    finally:
        writer.close()


HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"


def huge_head(port: int, size: int, finish: bool) -> tuple[socket.socket, int]:
    """A connection sending a head with a `size`-byte header (and its end, with
    `finish`) until the server stops reading; the connection and the bytes it took.
    (Plain sockets: asyncio's reader drops what it holds once the server's reset comes.)"""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    piece = b"a" * (256 * 1024)
    sent = 0
    try:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ")
        while sent < size:
            sock.sendall(piece)
            sent += len(piece)
        if finish:
            sock.sendall(b"\r\n\r\n")
    except OSError:
        pass
    return sock, sent


def answer_statuses(socks: list[socket.socket], within_s: float = 10.0) -> list[int]:
    """The status each socket was answered (0: none within `within_s` in all); the
    sockets are closed then."""
    statuses = dict.fromkeys(socks, 0)
    waiting = set(socks)
    deadline = time.monotonic() + within_s
    while waiting and (left := deadline - time.monotonic()) > 0:
        for sock in select.select(list(waiting), [], [], left)[0]:
            waiting.discard(sock)
            with contextlib.suppress(OSError, ValueError, IndexError):
                line = sock.recv(64)
                statuses[sock] = int(line.split()[1]) if line.startswith(b"HTTP/1.1 ") else 0
    for sock in socks:
        sock.close()
    return [statuses[sock] for sock in socks]


def settled_rss_mb(pid: int, within_s: float = 30.0) -> float:
    """The server's RSS once it has stopped growing (what the kernel held for it is
    read by then): the largest of readings every 0.5 s, until two in a row differ by
    less than 1 MB, or `within_s`."""
    deadline = time.monotonic() + within_s
    last = largest = rss_mb(pid)
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = rss_mb(pid)
        largest = max(largest, now)
        if abs(now - last) < 1:
            break
        last = now
    return largest


def heads(pid: int, port: int, connections: int, size: int) -> dict[str, Any]:
    before = rss_mb(pid)
    # All at once, as an attacker would: one after another, the first ones would pass
    # the head timeout (10 s) before the last ones were sent.
    with concurrent.futures.ThreadPoolExecutor(connections) as pool:
        held = [sock for sock, _ in pool.map(lambda _: huge_head(port, size, False), range(connections))]
    during = settled_rss_mb(pid)
    statuses = answer_statuses(held)
    finished, sent = huge_head(port, 2 * size, finish=True)
    return {
        "rss_before_mb": round(before, 1),
        "rss_with_heads_mb": round(during, 1),
        "rss_growth_mb": round(during - before, 1),
        "unfinished_answered_431": sum(s == 431 for s in statuses),
        "finished_head_status": answer_statuses([finished])[0],
        "finished_head_sent_mb": round(sent / MIB, 1),
    }


async def slow_bodies(port: int, attackers: int, drip_s: float, wait_s: float) -> dict[str, Any]:
    ended: dict[str, int] = {"408": 0, "503": 0, "closed": 0, "open": 0}
    stop = asyncio.Event()

    async def attacker(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            writer.write(ROOM_HEAD + b"{")
            while not stop.is_set():
                try:
                    line = await asyncio.wait_for(reader.readline(), drip_s)
                except TimeoutError:
                    writer.write(b" ")  # one byte of the body
                    continue
                status = line.split()[1].decode() if line.startswith(b"HTTP/1.1 ") else "closed"
                ended[status if status in ended else "closed"] += 1
                return
            ended["open"] += 1
        except OSError:
            ended["closed"] += 1
        finally:
            writer.close()

    connections = [await asyncio.open_connection("127.0.0.1", port) for _ in range(attackers)]
    tasks = [asyncio.create_task(attacker(*pair)) for pair in connections]
    opened = time.monotonic()
    full = await status_of(port, HEALTHZ)
    recovered_s: float | None = None
    while time.monotonic() - opened < wait_s:
        if await status_of(port, HEALTHZ, 1.0) == 200:
            recovered_s = time.monotonic() - opened
            break
        await asyncio.sleep(0.1)
    # How the attackers' connections end, within the same wait.
    await asyncio.wait(tasks, timeout=max(0.0, wait_s - (time.monotonic() - opened)))
    stop.set()
    await asyncio.gather(*tasks)
    return {
        "healthz_while_full": full,
        "recovered_s": None if recovered_s is None else round(recovered_s, 2),
        "attackers_ended": ended,
    }


class FakeTransport:
    """Takes every write, closes when asked; the protocol's flow control may pause it."""

    def __init__(self) -> None:
        self.closing = False

    def write(self, data: bytes) -> None:
        pass

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def get_extra_info(self, name: str, default: object = None) -> object:
        return {"peername": ("127.0.0.1", 5000), "sockname": ("127.0.0.1", 8080)}.get(name, default)

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


COST_REQUESTS = {
    "GET": (
        b"GET /games/noitu/api/state?x=1 HTTP/1.1\r\nHost: noitu.example.com\r\n"
        b"User-Agent: Mozilla/5.0 (X11; Linux x86_64)\r\nAccept: */*\r\n"
        b"Accept-Language: vi\r\nReferer: https://noitu.example.com/\r\n\r\n"
    ),
    "POST": (
        b"POST /games/noitu/api/move HTTP/1.1\r\nHost: noitu.example.com\r\n"
        b"User-Agent: Mozilla/5.0 (X11; Linux x86_64)\r\nContent-Type: application/json\r\n"
        b'Content-Length: 40\r\n\r\n{"sessionId":"abcdefgh","word":"con ca"}'
    ),
}


async def answer_at_once(scope: Any, receive: Any, send: Any) -> None:
    if scope["method"] == "POST":
        while (await receive()).get("more_body"):
            pass
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


async def cost_us(protocol: Any, request: bytes, requests: int) -> float:
    """CPU µs per request (this thread's, so other processes' turns on the cores do not
    count) of `requests` requests on one connection: the protocol's callbacks, and the
    app's task with the event loop's turns, the same for both protocols."""
    config = uvicorn.Config(answer_at_once, lifespan="off", log_config=None, access_log=False)
    config.load()
    connection = protocol(config=config, server_state=ServerState(), app_state={})
    connection.connection_made(FakeTransport())

    async def serve(count: int) -> None:
        for _ in range(count):
            connection.data_received(request)
            for _ in range(3):  # the app's task answers
                await asyncio.sleep(0)

    await serve(100)  # warm up
    gc.collect()
    gc.disable()
    try:
        started = time.thread_time_ns()
        await serve(requests)
        spent = time.thread_time_ns() - started
    finally:
        gc.enable()
    connection.connection_lost(None)
    return spent / requests / 1000


def bounded_protocol(module: Any) -> Any:
    """`module`'s BoundedHttpToolsProtocol with `noitu serve`'s default limits (those of
    its ConnectionLimits' fields that it has)."""
    settings = Settings()
    limits = {
        "max_connections": settings.max_connections,
        "head_timeout_s": settings.head_timeout_s,
        "max_head_bytes": settings.max_head_bytes,
        "body_timeout_s": settings.body_timeout_s,
        "body_min_bytes_per_s": settings.body_min_kib_per_s * 1024,
    }
    fields = {field.name for field in dataclasses.fields(module.ConnectionLimits)}
    chosen = module.ConnectionLimits(**{k: v for k, v in limits.items() if k in fields})
    return functools.partial(module.BoundedHttpToolsProtocol, limits=chosen)


def protocol_from(path: str) -> Any:
    """Another checkout's server_protocol.py (e.g. the code before a change)."""
    spec = importlib.util.spec_from_file_location("baseline_server_protocol", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return bounded_protocol(module)


async def cost(rounds: int, baseline: str) -> dict[str, Any]:
    protocols = {"uvicorn": CoalescingHttpToolsProtocol}
    if baseline:
        protocols["baseline"] = protocol_from(baseline)
    protocols["bounded"] = bounded_protocol(server_protocol)
    report: dict[str, Any] = {}
    for method, request in COST_REQUESTS.items():
        means: dict[str, list[float]] = {name: [] for name in protocols}
        for _ in range(rounds):
            for name, protocol in protocols.items():
                means[name].append(await cost_us(protocol, request, 1000))
        report[method] = {
            f"{name}_us": {"median": round(median(values), 2), "min": round(min(values), 2)}
            for name, values in means.items()
        }
    return report


def run(args: argparse.Namespace) -> dict[str, Any]:
    runs = []
    for _ in range(args.runs if args.parts & {"heads", "bodies"} else 0):
        result: dict[str, Any] = {}
        with tempfile.TemporaryDirectory(prefix="noitu-slow-clients-") as data:
            env = {"NOITU_DATA_DIR": data, "NOITU_ARENA_LADDER": "0"}
            if "heads" in args.parts:
                with running_server(secrets.token_hex(32), env, python=args.server_python) as (
                    server, port
                ):
                    result["heads"] = heads(server.pid, port, args.heads, args.head_mb * MIB)
            if "bodies" in args.parts:
                with running_server(secrets.token_hex(32), env, python=args.server_python) as (
                    _, port
                ):
                    result["slow_bodies"] = asyncio.run(
                        slow_bodies(port, args.attackers, args.drip, args.wait)
                    )
        runs.append(result)
        print(json.dumps(result), flush=True)
    medians: dict[str, Any] = {}
    if "heads" in args.parts:
        for key in ("rss_before_mb", "rss_with_heads_mb", "rss_growth_mb"):
            medians[key] = median([r["heads"][key] for r in runs])
    if "bodies" in args.parts:
        recoveries = [r["slow_bodies"]["recovered_s"] for r in runs]
        medians["recovered_s"] = (
            median(recoveries) if None not in recoveries else f"not within {args.wait:g} s"
        )
    if "cost" in args.parts:
        medians["cost"] = asyncio.run(cost(args.cost_rounds, args.baseline_protocol))
    return {"machine": machine(), "runs": runs, "median": medians, "settings": vars(args)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--heads", type=int, default=100, help="connections with an unfinished head")
    parser.add_argument("--head-mb", type=int, default=10, help="each head's size (MiB)")
    parser.add_argument("--attackers", type=int, default=1000, help="slow-body connections")
    parser.add_argument("--drip", type=float, default=5.0, help="seconds between body bytes")
    parser.add_argument("--wait", type=float, default=60.0, help="longest wait for /healthz")
    parser.add_argument("--server-python", default="", help="run the server with this interpreter")
    parser.add_argument(
        "--parts", default="heads,bodies,cost", type=lambda text: set(text.split(",")),
        help="what to measure, separated by commas: heads, bodies, cost (default: all)",
    )
    parser.add_argument("--cost-rounds", type=int, default=100, help="rounds of 1,000 requests")
    parser.add_argument(
        "--baseline-protocol", default="",
        help="cost: also measure this server_protocol.py (another checkout's)",
    )
    args = parser.parse_args()
    report = run(args)
    print(format_machine(report["machine"]))
    print(json.dumps(report["median"]))


if __name__ == "__main__":
    main()
