"""The load generator of `noitu bench http`: simulated players against a running server.

Each player has one keep-alive connection and plays game after game, keeping its own
copy of the chain as the page keeps it. Two mixes of requests:

- `real` (what real games make): a request every 300 ms after the previous answer —
  a start, moves, a give-up where the player knows no word, and the next start. The
  player plays like a person who knows the common words (a random legal word of tier
  ≤ 2), so games are short and a good share of the requests are starts and give-ups.
  Real people play a few games and leave while others arrive, so each player slot
  plays as one user after another (`REAL_USERS_PER_PLAYER`, in turn), and no user
  starts more than 10 games in a minute (the start limit).
- `long`: one user per player who plays to last (`SurvivorPolicy`), a move every 300 ms
  after each answer, and starts the next game at once after a give-up, at most 10
  starts a minute: almost every request is a move.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import random
import time
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, Self

from noitu.adapters.http.paths import NOITU_API_PATH
from noitu.bench.machine import cpu_seconds, percentile, rss_mb
from noitu.bench.positions import SurvivorPolicy
from noitu.domain.noitu.bots import BotIndex
from noitu.domain.noitu.chain import Chain, Side
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.rules import COMMON_TIER, SessionLimits

# 2 ms over the limit: uvloop's timers count whole milliseconds and may wake a little early.
MOVE_INTERVAL_S = (SessionLimits().move_interval_ms + 2) / 1000
STARTS_PER_MINUTE = SessionLimits().starts_per_window
API = NOITU_API_PATH
# Users one player slot of the real mix plays as, in turn. A game of the real mix is at
# least a start, a move and a give-up, 300 ms apart: at most ~65 starts a minute, so
# ten users keep each under the limit of 10 a minute.
REAL_USERS_PER_PLAYER = 10


class Sample(NamedTuple):
    """One answered request, as a small tuple of plain values (tens of thousands are
    kept per run)."""

    route: str
    started: float
    latency: float
    status: int
    error: str = ""


class GeneratorPauses:
    """The load generator's own garbage collections while it runs (a pause of the
    generator delays the answers it is timing, as a pause of the server would)."""

    def __init__(self) -> None:
        self.passes = 0
        self.total_s = 0.0
        self.longest_s = 0.0
        self._since = 0.0

    def __enter__(self) -> Self:
        gc.callbacks.append(self._on_gc)
        return self

    def __exit__(self, *_: object) -> None:
        gc.callbacks.remove(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        now = time.perf_counter()
        if phase == "start":
            self._since = now
            return
        pause = now - self._since
        self.passes += 1
        self.total_s += pause
        self.longest_s = max(self.longest_s, pause)


@dataclass
class LoadState:
    window_start: float
    window_end: float
    samples: list[Sample] = field(default_factory=list)
    rejected: Counter = field(default_factory=Counter)
    games: int = 0
    stop: bool = False
    # Each player's pause after an answer is MOVE_INTERVAL_S plus a uniform share of
    # this (its own seeded draw): people never keep one exact cadence, and players that
    # all wait exactly as long fall into step after any stall and stay so, arriving in
    # trains (with 0 the cadence is exact, as before).
    jitter_s: float = 0.0

    def pause_s(self, rng: random.Random) -> float:
        return MOVE_INTERVAL_S + (self.jitter_s * rng.random() if self.jitter_s else 0.0)


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


class Caller:
    """Posts one player's requests on its connection and records those that complete
    in the measured window."""

    def __init__(self, connection: Connection, state: LoadState) -> None:
        import msgspec

        self.connection = connection
        self.state = state
        self.encode = msgspec.json.encode
        self.decoder = msgspec.json.Decoder()
        self.decode_error = msgspec.DecodeError

    async def __call__(self, route: str, body: dict) -> tuple[int, Any]:
        payload = self.encode(body)
        clock = time.perf_counter
        started = clock()
        try:
            status, data = await self.connection.post(f"{API}/{route}", payload)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            status, data = 0, b""  # counted as "0 connection"
        done = clock()
        try:
            answer = self.decoder.decode(data) if data else None
        except self.decode_error:
            answer = None
        error = ""
        if status == 0:
            error = "connection"
        elif status != 200:
            error = answer.get("error", "") if isinstance(answer, dict) else "not JSON"
        state = self.state
        if state.window_start <= done <= state.window_end:
            state.samples.append(Sample(route, started, done - started, status, error))
        return status, answer


class StartWindow:
    """The starts of one user in the last minute, as the server's start limit counts."""

    def __init__(self) -> None:
        self.starts: deque[float] = deque()

    def wait_s(self, now: float) -> float:
        """0 when this user may start now, else the seconds until it may."""
        starts = self.starts
        while starts and now - starts[0] >= 60.0:
            starts.popleft()
        return 0.0 if len(starts) < STARTS_PER_MINUTE else 60.0 - (now - starts[0]) + 0.05

    def record(self, now: float) -> None:
        self.starts.append(now)


def chain_of(view: dict, lexicon: Lexicon) -> Chain:
    """The player's copy of a new game's chain (the bot's opening)."""
    chain = Chain(lexicon)
    for link in view["chain"]:
        chain.append(lexicon.word_ids[link["word"]], Side.BOT, 0)
    return chain


def common_words_by_syllable(lexicon: Lexicon) -> list[tuple[int, ...]]:
    """Syllable -> the common words (tier ≤ COMMON_TIER) starting with it."""
    tiers = lexicon.tiers
    return [
        tuple(w for w in words if tiers[w] <= COMMON_TIER) for words in lexicon.starting_with
    ]


def pick_common(common: Sequence[int], used: set[int], rng: random.Random) -> int | None:
    """A random unused word of `common` (uniform), or None when all are used."""
    for _ in range(4):
        if not common:
            return None
        word = common[rng.randrange(len(common))]
        if word not in used:
            return word
    unused = [w for w in common if w not in used]
    return unused[rng.randrange(len(unused))] if unused else None


async def play_moves(
    call: Caller, view: dict, chain: Chain, lexicon: Lexicon, state: LoadState,
    choose: Any, rng: random.Random,
) -> None:
    """Play one game from its start view: a word every 300 ms after each answer, a
    give-up where `choose` knows no word, until the game ends."""
    word_ids = lexicon.word_ids
    session = view["session"]
    playing = view["status"] == "playing"
    while playing and not state.stop:
        await asyncio.sleep(state.pause_s(rng))
        word = choose(chain, rng)
        if word is None:
            # A dead end for this player: it gives up, as the page's "Chịu thua" does.
            await call("give-up", {"session": session})
            return
        status, answer = await call("move", {"session": session, "word": lexicon.words[word]})
        if status == 429:
            continue
        if status != 200:
            return
        result = answer["result"]
        if not result["accepted"]:
            state.rejected[result["reason"]] += 1
            return
        chain.append(word, Side.PLAYER, 0)
        if result["bot_word"]:
            chain.append(word_ids[result["bot_word"]], Side.BOT, 0)
        playing = answer["state"]["status"] == "playing"


async def long_player(
    number: int,
    token: str,
    difficulty: str,
    lexicon: Lexicon,
    index: BotIndex,
    connection: Connection,
    state: LoadState,
    delay: float,
) -> None:
    """The long mix: start a game, play it to last with `SurvivorPolicy`, a word every
    300 ms after the previous answer, and start the next at once; at most 10 starts in
    any minute."""
    rng = random.Random(number)
    survivor = SurvivorPolicy(index)
    call = Caller(connection, state)
    window = StartWindow()
    await asyncio.sleep(delay)
    while not state.stop:
        now = time.perf_counter()
        wait = window.wait_s(now)
        if wait:
            await asyncio.sleep(wait)
            continue
        window.record(now)
        status, view = await call("start", {"token": token, "difficulty": difficulty})
        if status != 200:
            await asyncio.sleep(1.0)
            continue
        state.games += 1
        await play_moves(call, view, chain_of(view, lexicon), lexicon, state, survivor.choose, rng)


async def real_player(
    number: int,
    tokens: Sequence[str],
    difficulty: str,
    lexicon: Lexicon,
    common: Sequence[tuple[int, ...]],
    connection: Connection,
    state: LoadState,
    delay: float,
) -> None:
    """The real mix: a request every 300 ms after the previous answer — a start, a
    random legal common word per turn, a give-up when no common word is left, and the
    next start — as one user after another of `tokens`, each under the start limit."""
    rng = random.Random(number)
    call = Caller(connection, state)
    windows = [StartWindow() for _ in tokens]
    turn = 0

    def choose(chain: Chain, rng: random.Random) -> int | None:
        return pick_common(common[chain.current], chain.used, rng)

    await asyncio.sleep(delay)
    while not state.stop:
        now = time.perf_counter()
        waits = [windows[(turn + k) % len(tokens)].wait_s(now) for k in range(len(tokens))]
        free = [k for k, wait in enumerate(waits) if not wait]
        if not free:
            await asyncio.sleep(min(waits))
            continue
        user = (turn + free[0]) % len(tokens)
        turn = user + 1
        windows[user].record(now)
        status, view = await call("start", {"token": tokens[user], "difficulty": difficulty})
        if status == 200:
            state.games += 1
            await play_moves(call, view, chain_of(view, lexicon), lexicon, state, choose, rng)
            await asyncio.sleep(state.pause_s(rng))
        else:
            await asyncio.sleep(1.0)


# The floor's players cycle through bodies shaped like the real mix's: a start, two
# moves and a give-up, with a token, a session id and a word of the real lengths.
FLOOR_CYCLE = (
    ("start", {"token": "t" * 120, "difficulty": "medium"}),
    ("move", {"session": "s" * 22, "word": "đầu tiên"}),
    ("move", {"session": "s" * 22, "word": "tiên sinh"}),
    ("give-up", {"session": "s" * 22}),
)


async def floor_player(connection: Connection, state: LoadState, delay: float) -> None:
    """The floor's load (`floor_app`): the real mix's requests back to back, without
    the game's 300 ms between moves (the floor has no such rule), so that as many
    connections as the real mix's players keep it saturated."""
    call = Caller(connection, state)
    await asyncio.sleep(delay)
    while not state.stop:
        for route, body in FLOOR_CYCLE:
            status, _ = await call(route, body)
            if status == 0:
                await asyncio.sleep(0.1)


def server_cpu_by_route(port: int) -> dict | None:
    """The server's CPU per route so far (NOITU_BENCH_CPU=1, `server_cpu`), or None."""
    import json
    import urllib.request

    from noitu.bench.server_cpu import CPU_PATH

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{CPU_PATH}", timeout=30) as answer:
            return json.loads(answer.read())
    except (OSError, ValueError):
        return None


def latency_figures(samples: Sequence[Sample], duration: float) -> dict[str, float]:
    latencies = sorted(s.latency * 1000 for s in samples)
    ok = sum(s.status == 200 for s in samples)
    return {
        "requests": len(samples),
        "per_s": len(samples) / duration,
        "ok_per_s": ok / duration,
        "p50_ms": percentile(latencies, 0.50),
        "p99_ms": percentile(latencies, 0.99),
        "max_ms": latencies[-1] if latencies else 0.0,
    }


def cpu_by_route(before: dict | None, after: dict | None) -> tuple[dict[str, dict], float]:
    """Per route, between two answers of the server's counters (`server_cpu`): requests,
    the app's CPU ms per request, and the whole server CPU per request: the app's, plus
    an even share of what the server did outside the app (parsing, the event loop,
    background work), which is also returned (ms per request). Everything comes from the
    server's own counters, so the figures hold however late the counters were read."""
    if before is None or after is None:
        return {}, 0.0
    spent: dict[str, tuple[int, float]] = {}  # route -> (requests, app CPU s per request)
    for route, (count, timed, seconds) in after["routes"].items():
        count0, timed0, seconds0 = before["routes"].get(route, (0, 0, 0.0))
        if count > count0 and timed > timed0:
            spent[route] = (count - count0, (seconds - seconds0) / (timed - timed0))
    requests = sum(count for count, _ in spent.values())
    if not requests:
        return {}, 0.0
    in_app = sum(count * each for count, each in spent.values())
    process = after["process_s"] - before["process_s"]
    outside_ms = 1000 * max(process - in_app, 0.0) / requests
    figures = {
        route: {"requests": count, "app_cpu_ms": 1000 * each, "cpu_ms": 1000 * each + outside_ms}
        for route, (count, each) in sorted(spent.items())
    }
    return figures, outside_ms


def gc_passes(before: dict | None, after: dict | None) -> dict[str, dict]:
    """Per generation: the server's collections in the window, their total and longest
    pause (ms)."""
    if before is None or after is None:
        return {}
    passes = {}
    for generation, (count, seconds, longest) in sorted(after.get("gc", {}).items()):
        count0, seconds0, _ = before.get("gc", {}).get(generation, (0, 0.0, 0.0))
        passes[f"gen{generation}"] = {
            "collections": count - count0,
            "total_ms": 1000 * (seconds - seconds0),
            "longest_ms": 1000 * longest if count > count0 else 0.0,
        }
    return passes


async def run_load(
    port: int, pid: int, tokens: Sequence[Sequence[str]], difficulty: str, lexicon: Lexicon,
    index: BotIndex, warmup: float, duration: float, ramp: float, client: str,
    mix: str = "long", jitter_ms: float = 0.0,
) -> dict:
    """Every player (one per entry of `tokens`: the users it plays as) against the server
    on `port` (process `pid`) in the given mix: figures of the `duration` seconds after
    `warmup`, overall and per route, and the server's CPU (per route too, when it counts
    it: NOITU_BENCH_CPU=1) and memory."""
    # No collector passes in the generator while it runs: a pause of the generator would
    # be counted as the server's latency (a real player's browser is another machine).
    # A run makes a few tens of MB of cyclic garbage at most, collected afterwards;
    # `generator_gc` shows that no pass ran.
    gc.collect()
    gc.disable()
    try:
        with GeneratorPauses() as pauses:
            report = await _run_load(
                port, pid, tokens, difficulty, lexicon, index, warmup, duration, ramp, client,
                mix, jitter_ms, pauses,
            )
    finally:
        gc.enable()
        gc.collect()
    return report


async def _run_load(
    port: int, pid: int, tokens: Sequence[Sequence[str]], difficulty: str, lexicon: Lexicon,
    index: BotIndex, warmup: float, duration: float, ramp: float, client: str,
    mix: str, jitter_ms: float, pauses: GeneratorPauses,
) -> dict:
    players = len(tokens)
    begin = time.perf_counter()
    state = LoadState(begin + warmup, begin + warmup + duration, jitter_s=jitter_ms / 1000)
    make = RawConnection if client == "raw" else HttpxConnection
    connections: list[Connection] = [make("127.0.0.1", port) for _ in range(players)]
    common = common_words_by_syllable(lexicon) if mix == "real" else []
    tasks = [
        asyncio.create_task(
            real_player(i + 1, tokens[i], difficulty, lexicon, common, connections[i], state,
                        ramp * i / players)
            if mix == "real" else
            long_player(i + 1, tokens[i][0], difficulty, lexicon, index, connections[i], state,
                        ramp * i / players)
            if mix == "long" else
            floor_player(connections[i], state, ramp * i / players)
        )
        for i in range(players)
    ]
    await asyncio.sleep(max(0.0, state.window_start - time.perf_counter()))
    cpu_server, cpu_self, wall = cpu_seconds(pid), time.process_time(), time.perf_counter()
    paused = (pauses.passes, pauses.total_s)
    rss_start = rss_mb(pid)
    # Read after the CPU: the server answers it after the requests before it in line.
    routes_before = await asyncio.to_thread(server_cpu_by_route, port)
    await asyncio.sleep(max(0.0, state.window_end - time.perf_counter()))
    cpu_server = cpu_seconds(pid) - cpu_server
    cpu_self = time.process_time() - cpu_self
    paused = (pauses.passes - paused[0], pauses.total_s - paused[1])
    wall = time.perf_counter() - wall
    rss_end = rss_mb(pid)
    routes_after = await asyncio.to_thread(server_cpu_by_route, port)
    state.stop = True
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for connection in connections:
        with contextlib.suppress(Exception):
            await connection.close()

    by_route: dict[str, list[Sample]] = {}
    for sample in state.samples:
        by_route.setdefault(sample.route, []).append(sample)
    errors = Counter(f"{s.status} {s.error}".strip() for s in state.samples if s.status != 200)
    routes = {
        route: latency_figures(samples, duration) for route, samples in sorted(by_route.items())
    }
    answered = len(state.samples)
    moves = len(by_route.get("move", ()))
    # The server's CPU rate over its reading's own interval, per request of the window:
    # the two intervals differ a little when the generator wakes late.
    cpu_per_request = (cpu_server / wall) / (answered / duration) if answered and wall else 0.0
    route_cpu, outside_ms = cpu_by_route(routes_before, routes_after)
    collections = gc_passes(routes_before, routes_after)
    return {
        "mix": mix,
        "jitter_ms": jitter_ms,
        "players": players,
        "users_per_player": len(tokens[0]) if tokens else 0,
        "difficulty": difficulty,
        "client": client,
        # CPU time the server spent per answered request, and what one core given to it
        # alone would then sustain in moves per second (with this mix of routes): a
        # figure that holds when other processes share the machine.
        "server_cpu_ms_per_request": 1000 * cpu_per_request,
        "one_core_moves_per_s": (moves / answered) / cpu_per_request if cpu_per_request else 0.0,
        "one_core_requests_per_s": 1 / cpu_per_request if cpu_per_request else 0.0,
        # Per route: the app's CPU per request as the server counted it, and with the
        # even share of the server's work outside the app (`outside_app_cpu_ms`).
        "route_cpu": route_cpu,
        "outside_app_cpu_ms": outside_ms,
        # The server's garbage collections in the window, per generation.
        "server_gc": collections,
        "window_s": duration,
        "overall": latency_figures(state.samples, duration),
        "routes": routes,
        "errors": dict(errors),
        "errors_5xx": sum(n for key, n in errors.items() if key.startswith("5")),
        "rejected_moves": dict(state.rejected),
        "games_started": state.games,
        "server_cpu_percent": 100 * cpu_server / wall if wall else 0.0,
        "server_rss_mb": rss_end,
        "server_rss_start_mb": rss_start,
        "generator_cpu_percent": 100 * cpu_self / wall if wall else 0.0,
        # The generator's own collections in the window, and its longest of the run.
        "generator_gc": {
            "collections": paused[0], "total_ms": 1000 * paused[1],
            "longest_ms": 1000 * pauses.longest_s,
        },
    }
