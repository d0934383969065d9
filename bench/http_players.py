"""The load generator of `noitu bench http`: simulated players against a running server.

Each player has one keep-alive connection, starts a game, plays it to the end with a
word every 300 ms after each answer (chosen by `SurvivorPolicy` from its own copy of
the chain, as the page keeps it), and starts the next, at most 10 starts a minute.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any, Protocol

from noitu.adapters.http.paths import NOITU_API_PATH
from noitu.bench.machine import cpu_seconds, percentile, rss_mb
from noitu.bench.positions import SurvivorPolicy
from noitu.domain.noitu.bots import BotIndex
from noitu.domain.noitu.chain import Chain, Side
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.rules import SessionLimits

MOVE_INTERVAL_S = SessionLimits().move_interval_ms / 1000
STARTS_PER_MINUTE = SessionLimits().starts_per_window
API = NOITU_API_PATH


@dataclass
class Sample:
    route: str
    started: float
    latency: float
    status: int
    error: str = ""


@dataclass
class LoadState:
    window_start: float
    window_end: float
    samples: list[Sample] = field(default_factory=list)
    rejected: Counter = field(default_factory=Counter)
    games: int = 0
    stop: bool = False


class Connection(Protocol):
    async def post(self, path: str, body: bytes) -> tuple[int, bytes]: ...

    async def close(self) -> None: ...


class RawConnection:
    """A minimal HTTP/1.1 keep-alive client for one player: requests go one at a time,
    so reading a response is a header block and a Content-Length (or chunked) body."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        for attempt in (1, 2):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
            assert self.reader is not None
            try:
                self.writer.write(
                    b"POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
                    b"Content-Length: %d\r\n\r\n%s"
                    % (path.encode(), self.host.encode(), self.port, len(body), body)
                )
                head = await self.reader.readuntil(b"\r\n\r\n")
                status = int(head[9:12])
                length = 0
                close = chunked = False
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    name = name.strip().lower()
                    if name == b"content-length":
                        length = int(value)
                    elif name == b"connection" and value.strip().lower() == b"close":
                        close = True
                    elif name == b"transfer-encoding" and b"chunked" in value.lower():
                        chunked = True
                if chunked:
                    data = await self._read_chunks(self.reader)
                else:
                    data = await self.reader.readexactly(length) if length else b""
                if close:
                    await self.close()
                return status, data
            except (ConnectionError, asyncio.IncompleteReadError):
                await self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    @staticmethod
    async def _read_chunks(reader: asyncio.StreamReader) -> bytes:
        parts: list[bytes] = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if not size:
                while await reader.readuntil(b"\r\n") != b"\r\n":
                    pass  # trailers
                return b"".join(parts)
            parts.append(await reader.readexactly(size))
            await reader.readexactly(2)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()
        self.reader = self.writer = None


class HttpxConnection:
    """The same with httpx (the test extra), to compare against a full client."""

    def __init__(self, host: str, port: int) -> None:
        import httpx

        self.client = httpx.AsyncClient(
            base_url=f"http://{host}:{port}", timeout=30.0,
            limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
        )

    async def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        response = await self.client.post(
            path, content=body, headers={"Content-Type": "application/json"}
        )
        return response.status_code, response.content

    async def close(self) -> None:
        await self.client.aclose()


async def player(
    number: int,
    token: str,
    difficulty: str,
    lexicon: Lexicon,
    index: BotIndex,
    connection: Connection,
    state: LoadState,
    delay: float,
) -> None:
    """One simulated player: start a game, play it to the end with a word every 300 ms
    (after the previous answer), start the next; at most 10 starts in any minute."""
    import msgspec

    decoder = msgspec.json.Decoder()
    rng = random.Random(number)
    survivor = SurvivorPolicy(index)
    starts: deque[float] = deque()
    word_ids = lexicon.word_ids
    clock = time.perf_counter
    await asyncio.sleep(delay)

    async def call(route: str, body: dict) -> tuple[int, Any]:
        payload = msgspec.json.encode(body)
        started = clock()
        try:
            status, data = await connection.post(f"{API}/{route}", payload)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            status, data = 0, b""  # counted as "0 connection"
        done = clock()
        try:
            answer = decoder.decode(data) if data else None
        except msgspec.DecodeError:
            answer = None
        error = ""
        if status == 0:
            error = "connection"
        elif status != 200:
            error = answer.get("error", "") if isinstance(answer, dict) else "not JSON"
        if state.window_start <= done <= state.window_end:
            state.samples.append(Sample(route, started, done - started, status, error))
        return status, answer

    while not state.stop:
        now = clock()
        while starts and now - starts[0] >= 60.0:
            starts.popleft()
        if len(starts) >= STARTS_PER_MINUTE:
            await asyncio.sleep(60.0 - (now - starts[0]) + 0.05)
            continue
        starts.append(now)
        status, view = await call("start", {"token": token, "difficulty": difficulty})
        if status != 200:
            await asyncio.sleep(1.0)
            continue
        state.games += 1
        chain = Chain(lexicon)
        for link in view["chain"]:
            chain.append(word_ids[link["word"]], Side.BOT, 0)
        session = view["session"]
        playing = view["status"] == "playing"
        while playing and not state.stop:
            await asyncio.sleep(MOVE_INTERVAL_S)
            word = survivor.choose(chain, rng)
            if word is None:
                # A dead end: the player gives up, as the page's "Chịu thua" does.
                await call("give-up", {"session": session})
                break
            status, answer = await call("move", {"session": session, "word": lexicon.words[word]})
            if status == 429:
                continue
            if status != 200:
                break
            result = answer["result"]
            if not result["accepted"]:
                state.rejected[result["reason"]] += 1
                break
            chain.append(word, Side.PLAYER, 0)
            if result["bot_word"]:
                chain.append(word_ids[result["bot_word"]], Side.BOT, 0)
            playing = answer["state"]["status"] == "playing"


async def run_load(
    port: int, pid: int, tokens: list[str], difficulty: str, lexicon: Lexicon, index: BotIndex,
    warmup: float, duration: float, ramp: float, client: str,
) -> dict:
    """Every player against the server on `port` (process `pid`): figures of the
    `duration` seconds after `warmup`, per route, and the server's CPU and memory."""
    players = len(tokens)
    begin = time.perf_counter()
    state = LoadState(begin + warmup, begin + warmup + duration)
    make = RawConnection if client == "raw" else HttpxConnection
    connections: list[Connection] = [make("127.0.0.1", port) for _ in range(players)]
    tasks = [
        asyncio.create_task(
            player(i + 1, tokens[i], difficulty, lexicon, index, connections[i], state,
                   ramp * i / players)
        )
        for i in range(players)
    ]
    await asyncio.sleep(max(0.0, state.window_start - time.perf_counter()))
    cpu_server, cpu_self, wall = cpu_seconds(pid), time.process_time(), time.perf_counter()
    rss_start = rss_mb(pid)
    await asyncio.sleep(max(0.0, state.window_end - time.perf_counter()))
    cpu_server = cpu_seconds(pid) - cpu_server
    cpu_self = time.process_time() - cpu_self
    wall = time.perf_counter() - wall
    rss_end = rss_mb(pid)
    state.stop = True
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for connection in connections:
        with contextlib.suppress(Exception):
            await connection.close()

    routes: dict[str, dict] = {}
    by_route: dict[str, list[Sample]] = {}
    for sample in state.samples:
        by_route.setdefault(sample.route, []).append(sample)
    errors = Counter(f"{s.status} {s.error}".strip() for s in state.samples if s.status != 200)
    for route, samples in sorted(by_route.items()):
        latencies = sorted(s.latency * 1000 for s in samples)
        ok = sum(s.status == 200 for s in samples)
        routes[route] = {
            "requests": len(samples),
            "per_s": len(samples) / duration,
            "ok_per_s": ok / duration,
            "p50_ms": percentile(latencies, 0.50),
            "p99_ms": percentile(latencies, 0.99),
            "max_ms": latencies[-1],
        }
    answered = len(state.samples)
    moves = len(by_route.get("move", ()))
    cpu_per_request = cpu_server / answered if answered else 0.0
    return {
        "players": players,
        "difficulty": difficulty,
        "client": client,
        # CPU time the server spent per answered request, and what one core given to it
        # alone would then sustain in moves per second (with this mix of routes): a
        # figure that holds when other processes share the machine.
        "server_cpu_ms_per_request": 1000 * cpu_per_request,
        "one_core_moves_per_s": (moves / answered) / cpu_per_request if cpu_per_request else 0.0,
        "window_s": duration,
        "routes": routes,
        "errors": dict(errors),
        "errors_5xx": sum(n for key, n in errors.items() if key.startswith("5")),
        "rejected_moves": dict(state.rejected),
        "games_started": state.games,
        "server_cpu_percent": 100 * cpu_server / wall if wall else 0.0,
        "server_rss_mb": rss_end,
        "server_rss_start_mb": rss_start,
        "generator_cpu_percent": 100 * cpu_self / wall if wall else 0.0,
    }
