"""`noitu bench feeds`: what nối từ's group-room live feeds cost a server (spec B10).

Each run starts a fresh `noitu serve` (memory store) on loopback and measures its RSS:

- **spread**: `--feeds` members (rooms of 30, each in its own chat) each open one feed
  (a WebSocket, or with `--sse` an event stream) and wait for its first view. The RSS
  grown per open feed, and what stays per feed once every feed is closed again (after
  a pause for the server to notice), and what the server grew by over 4 more rounds
  of opening and closing them all (memory freed at a close is reused by the next);
- **refused words**: in the first room, with its 30 feeds open, the host starts a game
  and sends a word with the wrong link every 310 ms for `--refusals` words; the bytes
  the room's feeds received for them (B10: a refused word sends nothing on the feed);
- **one credential**: `--feeds` feeds opened on a single member's credential, as the
  attack did: how many are still open at the end (B10: at most 2) and the RSS grown.

Figures are medians over `--runs` runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from typing import Any

from noitu.bench.group_rooms import room_tokens
from noitu.bench.http_load import running_server
from noitu.bench.machine import format_machine, load_average, machine, median, row, rss_mb

ROOM = "/games/noitu/api/room"
ROOM_SIZE = 30  # members per room in the spread phase (a room holds 32)
SETTLE_S = 3.0  # the pause before reading the RSS, for the server to catch up
OPEN_BATCH = 50  # feeds opened at once
CYCLES = 4  # the feeds opened and closed again, after the first time


class Feed:
    """One client's feed: a WebSocket or an event stream, counting what it receives."""

    def __init__(self, http: Any, ws_base: str, credential: str, sse: bool) -> None:
        self._http = http
        self._url = f"{ws_base}{ROOM}/feed?member={credential}"
        self._credential = credential
        self._sse = sse
        self.views = 0
        self.received = 0
        self.last: dict[str, Any] = {}
        self.first = asyncio.get_running_loop().create_future()
        self.closed = asyncio.get_running_loop().create_future()
        self._task = asyncio.ensure_future(self._run())

    def _got(self, text: str) -> None:
        self.received += len(text.encode())
        self.views += 1
        with contextlib.suppress(ValueError):
            self.last = json.loads(text)
        if not self.first.done():
            self.first.set_result(None)

    async def _run(self) -> None:
        try:
            # A feed the server closed or refused ends like one that ran out.
            with contextlib.suppress(Exception):
                if self._sse:
                    await self._events()
                else:
                    await self._socket()
        finally:
            if not self.first.done():
                self.first.set_result(None)
            if not self.closed.done():
                self.closed.set_result(None)

    async def _socket(self) -> None:
        from websockets.asyncio.client import connect

        async with connect(self._url, max_queue=None, open_timeout=30) as socket:
            async for message in socket:
                self._got(message if isinstance(message, str) else message.decode())

    async def _events(self) -> None:
        async with self._http.stream(
            "GET", f"{ROOM}/feed", params={"member": self._credential},
            headers={"Accept": "text/event-stream"},
        ) as answer:
            async for line in answer.aiter_lines():
                if line.startswith("data:"):
                    self._got(line[5:])

    async def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task


async def _open(feeds: list[Feed]) -> None:
    await asyncio.wait_for(asyncio.gather(*(f.first for f in feeds)), 60)


async def _join(http: Any, token: str) -> str:
    answer = await http.post(f"{ROOM}/join", json={"token": token})
    answer.raise_for_status()
    return str(answer.json()["member"])


async def _one_run(feeds: int, refusals: int, sse: bool) -> dict[str, Any]:
    import httpx

    secret = secrets.token_hex(32)
    rooms = -(-feeds // ROOM_SIZE)
    tokens = room_tokens(secret, rooms + 1, ROOM_SIZE)
    with running_server(secret, {"NOITU_MAX_CONNECTIONS": "4000"}) as (server, port):
        base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
        limits = httpx.Limits(max_connections=feeds + 20, max_keepalive_connections=20)
        timeout = httpx.Timeout(30, read=None)
        async with httpx.AsyncClient(base_url=base, limits=limits, timeout=timeout) as http:
            members = [await _join(http, t) for room in tokens[:rooms] for t in room][:feeds]
            await asyncio.sleep(SETTLE_S)
            before = rss_mb(server.pid)
            opened: list[Feed] = []
            for start in range(0, len(members), OPEN_BATCH):
                batch = [Feed(http, ws_base, m, sse) for m in members[start:start + OPEN_BATCH]]
                await _open(batch)
                opened += batch
            await asyncio.sleep(SETTLE_S)
            open_rss = rss_mb(server.pid)
            live = sum(1 for f in opened if not f.closed.done())

            # Refused words in the first room, its feeds open.
            room_feeds = opened[:ROOM_SIZE]
            host = members[0]
            started = await http.post(f"{ROOM}/start", json={"member": host})
            started.raise_for_status()
            await asyncio.sleep(1.0)
            received = sum(f.received for f in room_feeds)
            current = started.json()["current"]
            wrong = "sinh viên" if current != "sinh" else "đầu tiên"
            refused = 0
            for _ in range(refusals):
                answer = await http.post(f"{ROOM}/move", json={"member": host, "word": wrong})
                if answer.status_code == 200 and not answer.json()["result"]["accepted"]:
                    refused += 1
                await asyncio.sleep(0.31)
            await asyncio.sleep(1.0)
            refusal_bytes = sum(f.received for f in room_feeds) - received

            for feed in opened:
                await feed.close()
            await asyncio.sleep(SETTLE_S)
            closed_rss = rss_mb(server.pid)

            # The same feeds opened and closed again: memory freed at a close is reused.
            for _ in range(CYCLES):
                again: list[Feed] = []
                for start in range(0, len(members), OPEN_BATCH):
                    batch = [Feed(http, ws_base, m, sse) for m in members[start:start + OPEN_BATCH]]
                    await _open(batch)
                    again += batch
                for feed in again:
                    await feed.close()
            await asyncio.sleep(SETTLE_S)
            cycled_rss = rss_mb(server.pid)

            # Many feeds on one credential, as the attack did.
            lone = await _join(http, tokens[rooms][0])
            await asyncio.sleep(SETTLE_S)
            lone_before = rss_mb(server.pid)
            crowd: list[Feed] = []
            for start in range(0, feeds, OPEN_BATCH):
                batch = [Feed(http, ws_base, lone, sse) for _ in range(min(OPEN_BATCH, feeds - start))]
                await _open(batch)
                crowd += batch
            await asyncio.sleep(SETTLE_S)
            lone_rss = rss_mb(server.pid)
            still_open = sum(1 for f in crowd if not f.closed.done())
            replaced = sum(1 for f in crowd if f.last.get("replaced") is True)
            for feed in crowd:
                await feed.close()
    return {
        "feeds": len(opened),
        "live_after_open": live,
        "rss_before_mb": round(before, 1),
        "rss_open_mb": round(open_rss, 1),
        "rss_closed_mb": round(closed_rss, 1),
        "kb_per_open_feed": round((open_rss - before) * 1024 / max(len(opened), 1), 1),
        "kb_kept_per_closed_feed": round((closed_rss - before) * 1024 / max(len(opened), 1), 1),
        "rss_after_cycles_mb": round(cycled_rss, 1),
        "mb_grown_over_cycles": round(cycled_rss - closed_rss, 1),
        "refused_words": refused,
        "feed_bytes_per_refused_word": round(refusal_bytes / max(refused, 1)),
        "one_credential_feeds": feeds,
        "one_credential_still_open": still_open,
        "one_credential_told_replaced": replaced,
        "one_credential_rss_grown_mb": round(lone_rss - lone_before, 1),
    }


def bench_room_feeds(runs: int, feeds: int, refusals: int, sse: bool) -> dict[str, Any]:
    results = []
    for _ in range(runs):
        results.append(asyncio.run(_one_run(feeds, refusals, sse)))
    figures = {key: median([r[key] for r in results]) for key in results[0]}
    return {
        "machine": machine(),
        "load": load_average(),
        "runs": runs,
        "transport": "event stream" if sse else "websocket",
        "figures": figures,
        "each_run": results,
        "finished_at": time.strftime("%Y-%m-%d %H:%M:%S"),
    }


def format_room_feeds(report: dict[str, Any]) -> str:
    f = report["figures"]
    lines = [
        format_machine(report["machine"]),
        f"group-room feeds over {report['transport']}, median of {report['runs']} runs",
        row("feeds open (one per member)", f"{f['feeds']:g} ({f['live_after_open']:g} still open)"),
        row("RSS before / open / after close", f"{f['rss_before_mb']:g} / {f['rss_open_mb']:g}"
            f" / {f['rss_closed_mb']:g} MB"),
        row("RSS per open feed", f"{f['kb_per_open_feed']:g} KB"),
        row("RSS kept per closed feed", f"{f['kb_kept_per_closed_feed']:g} KB"),
        row(f"RSS grown over {CYCLES} more open/close rounds", f"{f['mb_grown_over_cycles']:g} MB"),
        row("feed bytes per refused word", f"{f['feed_bytes_per_refused_word']:g} B"
            f" ({f['refused_words']:g} refused, 30 feeds)"),
        row("one credential: feeds opened", f"{f['one_credential_feeds']:g}"),
        row("one credential: still open", f"{f['one_credential_still_open']:g}"
            f" ({f['one_credential_told_replaced']:g} told replaced)"),
        row("one credential: RSS grown", f"{f['one_credential_rss_grown_mb']:g} MB"),
    ]
    return "\n".join(lines)
