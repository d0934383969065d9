"""`noitu bench rooms`: nối từ's group rooms (spec B10) under load — 200 rooms of 4
players by default, on one `noitu serve` (memory store) or on two over one Redis.

Every member holds the room's live feed (a WebSocket) on its instance; in two-instance
runs the members of a room alternate between the instances, so every change crosses
Redis's pub/sub. The player on turn sends a legal unused word (chosen here from the
shipped dictionary, never a closing word, so games go on) after a random think time.

Figures:

- live-update latency: from the moment a move's answer arrives to the moment each
  member of the room (the mover included) receives the view with that word — one sample
  per member per move; a view that came before the answer counts as 0;
- the servers' CPU per move: their whole CPU time (from /proc) over the playing phase
  divided by the moves played (joins, starts and the feed's sends included, since they
  are the cost of a room);
- moves per second, and any error answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import secrets
import time
from typing import Any

from noitu.bench.http_load import running_server, store_env
from noitu.bench.machine import format_machine, load_average, machine, percentile, row

ROOM = "/games/noitu/api/room"
UPDATE_TIMEOUT_S = 10.0


def room_tokens(secret: str, rooms: int, players: int) -> list[list[str]]:
    """Room links: room r is card (chat -(r+1), message 1); its members are users
    r·players + 1 …, named "P<seat>"."""
    from noitu.adapters.noitu.token_signer import HmacTokenSigner
    from noitu.application.noitu.session import GameMessage, Ticket
    from noitu.domain.noitu.rules import TOKEN_LIFETIME_S
    from noitu.entrypoints.containers.support import signing_key
    from noitu.entrypoints.settings import load_settings

    signer = HmacTokenSigner(signing_key(load_settings({"NOITU_GAME_SECRET": secret})))
    expires = int(time.time()) + TOKEN_LIFETIME_S
    return [
        [
            signer.issue(Ticket(r * players + m + 1, f"P{m + 1}",
                                GameMessage(chat_id=-(r + 1), message_id=1), expires, room=True))
            for m in range(players)
        ]
        for r in range(rooms)
    ]


def process_cpu_s(pid: int) -> float:
    """utime + stime of a process, in seconds."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Member:
    def __init__(self, base: str, ws_base: str) -> None:
        self.base = base
        self.ws_base = ws_base
        self.credential = ""
        self.seen: dict[int, float] = {}  # chain length -> when first seen
        self.waiters: dict[int, asyncio.Future[None]] = {}
        self.reader: asyncio.Task[None] | None = None
        self.reconnects = 0

    async def follow(self) -> None:
        """The member's feed; reconnected after a second when it closes, as the page
        does (the first view after a reconnect is the full state)."""
        from websockets.asyncio.client import connect
        from websockets.exceptions import WebSocketException

        while True:
            with contextlib.suppress(WebSocketException, OSError):
                await self._follow_once(connect)
            self.reconnects += 1
            await asyncio.sleep(1.0)

    async def _follow_once(self, connect: Any) -> None:
        async with connect(f"{self.ws_base}{ROOM}/feed?member={self.credential}",
                           max_queue=None) as socket:
            async for message in socket:
                arrived = time.perf_counter()
                view = json.loads(message)
                length = len(view.get("chain", []))
                if length not in self.seen:
                    self.seen[length] = arrived
                    waiter = self.waiters.pop(length, None)
                    if waiter is not None and not waiter.done():
                        waiter.set_result(None)

    async def seen_at(self, length: int) -> float:
        if length not in self.seen:
            waiter = self.waiters.setdefault(length, asyncio.get_running_loop().create_future())
            await asyncio.wait_for(waiter, UPDATE_TIMEOUT_S)
        return self.seen[length]


async def post_retrying(client: Any, url: str, body: dict[str, Any]) -> Any:
    """A POST, sent again once when a kept-alive connection the server had just closed
    breaks under it (the server's keep-alive time-out races the next request)."""
    import httpx

    try:
        return await client.post(url, json=body)
    except httpx.TransportError:
        return await client.post(url, json=body)


async def play_room(
    http: list[Any], members: list[Member], lexicon: Any, moves: int, think_s: float,
    rng: random.Random, samples: list[float], errors: list[str], counted: list[int],
) -> None:
    words = lexicon.words
    starting_with, last = lexicon.starting_with, lexicon.last
    host = members[0]
    answer = await http[0 if host.base == members[0].base else 1].post(
        f"{host.base}{ROOM}/start", json={"member": host.credential})
    if answer.status_code != 200:
        errors.append(f"start {answer.status_code}")
        return
    view = answer.json()
    for _ in range(moves):
        await asyncio.sleep(rng.uniform(0, 2 * think_s))
        if view["status"] != "playing":
            return
        mover = members[view["turn"] - 1]
        used = {link["word"] for link in view["chain"]}
        syllable = lexicon.syllable_id(view["current"])
        candidates = [
            w for w in (starting_with[syllable] if syllable is not None else ())
            if words[w] not in used
            and any(words[x] not in used and x != w for x in starting_with[last[w]])
        ]
        if not candidates:
            return
        word = words[rng.choice(candidates)]
        client = http[members.index(mover) % len(http)]
        answer = await post_retrying(client, f"{mover.base}{ROOM}/move",
                                     {"member": mover.credential, "word": word})
        answered = time.perf_counter()
        if answer.status_code != 200:
            errors.append(f"move {answer.status_code}: {answer.text[:80]}")
            return
        body = answer.json()
        if not body["result"]["accepted"]:
            errors.append(f"refused {body['result']['reason']}")
            return
        view = body["state"]
        counted[0] += 1
        length = len(view["chain"])
        for member in members:
            try:
                seen = await member.seen_at(length)
            except TimeoutError:
                errors.append("no update within 10 s")
                continue
            samples.append(max(seen - answered, 0.0))


async def run_rooms(
    bases: list[tuple[str, str]], tokens: list[list[str]], moves: int, think_s: float,
    pids: list[int], seed: int,
) -> dict[str, Any]:
    import httpx

    from noitu.adapters.noitu.dictionary_file import load_lexicon

    lexicon = load_lexicon(None)
    limits = httpx.Limits(max_connections=200, max_keepalive_connections=200)
    clients = [httpx.AsyncClient(timeout=30, limits=limits) for _ in bases]
    rng = random.Random(seed)
    rooms: list[list[Member]] = []
    errors: list[str] = []
    try:
        for room_tokens_ in tokens:
            members = []
            for index, token in enumerate(room_tokens_):
                base, ws_base = bases[index % len(bases)]
                member = Member(base, ws_base)
                answer = await clients[index % len(bases)].post(f"{base}{ROOM}/join",
                                                                json={"token": token})
                answer.raise_for_status()
                member.credential = answer.json()["member"]
                member.reader = asyncio.ensure_future(member.follow())
                members.append(member)
            rooms.append(members)
        await asyncio.sleep(1.0)  # every feed connected and its first view received
        samples: list[float] = []
        counted = [0]
        cpu_before = sum(process_cpu_s(pid) for pid in pids)
        began = time.perf_counter()
        await asyncio.gather(*(
            play_room(clients, members, lexicon, moves, think_s, random.Random(rng.random()),
                      samples, errors, counted)
            for members in rooms
        ))
        elapsed = time.perf_counter() - began
        cpu = sum(process_cpu_s(pid) for pid in pids) - cpu_before
    finally:
        for members in rooms:
            for member in members:
                if member.reader is not None:
                    member.reader.cancel()
        for members in rooms:
            for member in members:
                if member.reader is not None:
                    with contextlib.suppress(BaseException):
                        await member.reader
        for client in clients:
            await client.aclose()
    samples.sort()
    moves_played = counted[0]
    return {
        "moves": moves_played,
        "updates": len(samples),
        "seconds": round(elapsed, 2),
        "moves_per_s": round(moves_played / elapsed, 1) if elapsed else 0.0,
        "latency_ms": {
            "p50": round(1000 * percentile(samples, 0.5), 1),
            "p99": round(1000 * percentile(samples, 0.99), 1),
            "max": round(1000 * samples[-1], 1) if samples else 0.0,
        },
        "server_cpu_ms_per_move": round(1000 * cpu / moves_played, 2) if moves_played else 0.0,
        "feed_reconnects": sum(m.reconnects for members in rooms for m in members),
        "errors": errors[:10],
        "error_count": len(errors),
    }


def bench_group_rooms(
    rooms: int, players: int, moves: int, think_s: float, store: str, instances: int, seed: int,
) -> dict[str, Any]:
    secret = secrets.token_hex(32)
    tokens = room_tokens(secret, rooms, players)
    info = machine()
    info["load_average"] = load_average()
    with store_env(store) as env, contextlib.ExitStack() as stack:
        servers = [
            stack.enter_context(running_server(secret, {**env, "MODULES": "noitu"}))
            for _ in range(instances)
        ]
        bases = [(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}") for _, port in servers]
        pids = [server.pid for server, _ in servers]
        result = asyncio.run(run_rooms(bases, tokens, moves, think_s, pids, seed))
    info["load_average_after"] = load_average()
    return {
        "bench": "rooms", "rooms": rooms, "players": players, "moves_per_room": moves,
        "think_s": think_s, "store": store, "instances": instances, "machine": info, **result,
    }


def format_group_rooms(report: dict[str, Any]) -> str:
    latency = report["latency_ms"]
    lines = [
        (f"noitu bench rooms: {report['rooms']} rooms of {report['players']} players,"
        f" {report['instances']} instance(s), {report['store']} store"),
        format_machine(report["machine"]),
        row("moves played", f"{report['moves']} in {report['seconds']} s"
            f" ({report['moves_per_s']}/s)"),
        row("live updates measured", str(report["updates"])),
        row("update latency p50", f"{latency['p50']} ms"),
        row("update latency p99", f"{latency['p99']} ms", "≤ 300 ms",
            "ok" if latency["p99"] <= 300 else "over"),
        row("update latency max", f"{latency['max']} ms"),
        row("server CPU per move", f"{report['server_cpu_ms_per_move']} ms"),
        row("feed reconnects", str(report["feed_reconnects"])),
        row("errors", str(report["error_count"])),
        *(f"    {error}" for error in report["errors"][:3]),
    ]
    return "\n".join(lines)
