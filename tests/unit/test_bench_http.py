"""The pieces of `noitu bench http` that decide what is measured: the real mix's player
(common words, the start limit per user), the server's CPU per route and the figures
made from it (no timing asserted)."""

from __future__ import annotations

import asyncio
import json
import random
import time

import pytest

from noitu.bench.http_players import (
    STARTS_PER_MINUTE,
    StartWindow,
    common_words_by_syllable,
    cpu_by_route,
    gc_passes,
    pick_common,
)
from noitu.bench.server_cpu import CPU_PATH, SAMPLE_EVERY, CpuByRoute, route_of
from noitu.domain.noitu.chain import Chain, Side
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.rules import COMMON_TIER


def test_the_real_player_knows_only_common_words(little: Lexicon) -> None:
    common = common_words_by_syllable(little)
    for syllable, words in enumerate(common):
        assert set(words) == {
            w for w in little.starting_with[syllable] if little.tiers[w] <= COMMON_TIER
        }
    chain = Chain(little)
    chain.append(little.word_ids["mở đầu"], Side.BOT, 0)
    rng = random.Random(1)
    picked = {pick_common(common[chain.current], chain.used, rng) for _ in range(200)}
    assert {little.words[w] for w in picked} == {"đầu tiên", "đầu óc", "đầu bếp"}  # not "đầu mối"
    every = set(common[chain.current])
    assert pick_common(common[chain.current], every, rng) is None  # the player gives up


def test_a_user_starts_at_most_ten_games_a_minute() -> None:
    window = StartWindow()
    for i in range(STARTS_PER_MINUTE):
        assert window.wait_s(100.0 + i) == 0.0
        window.record(100.0 + i)
    assert window.wait_s(110.0) == pytest.approx(50.05)
    assert window.wait_s(160.0) == 0.0  # the first start has left the minute


def test_cpu_per_route_adds_an_even_share_of_the_work_outside_the_app() -> None:
    # Routes: [requests, timed requests, their seconds].
    before = {"routes": {"move": [100, 25, 0.25]}, "gc": {"0": [5, 0.010, 0.004]}, "process_s": 2.0}
    after = {
        "routes": {"move": [400, 100, 0.325], "start": [100, 25, 0.0125], "state": [0, 0, 0.0]},
        "gc": {"0": [8, 0.016, 0.003], "2": [1, 0.050, 0.050]},
        "process_s": 2.45,
    }
    # 400 requests in between and 0.45 s of server CPU; moves take 1 ms in the app and
    # starts 0.5 ms, by the timed ones: 0.35 s in the app.
    figures, outside_ms = cpu_by_route(before, after)
    assert outside_ms == pytest.approx(0.25)
    assert figures["move"]["requests"] == 300
    assert figures["move"]["app_cpu_ms"] == pytest.approx(1.0)
    assert figures["move"]["cpu_ms"] == pytest.approx(1.25)
    assert figures["start"]["app_cpu_ms"] == pytest.approx(0.5) and "state" not in figures
    assert cpu_by_route(None, after) == ({}, 0.0)
    passes = gc_passes(before, after)
    assert passes["gen0"] == {"collections": 3, "total_ms": pytest.approx(6.0), "longest_ms": 3.0}
    assert passes["gen2"]["collections"] == 1


def test_routes_are_named_by_the_last_part_of_the_api_path() -> None:
    assert route_of("/games/noitu/api/give-up") == "give-up"
    assert route_of("/games/noitu/api/start") == "start"
    assert route_of("/healthz") == "other"


async def test_the_server_counts_the_cpu_of_each_request_and_answers_the_totals() -> None:
    async def app(scope, receive, send):
        if scope["path"].endswith("/fail"):
            raise RuntimeError("boom")
        deadline = time.thread_time() + 0.002
        while time.thread_time() < deadline:  # 2 ms of CPU in this request's own steps
            pass
        await asyncio.sleep(0.02)  # waiting is not counted
        await send({"type": "http.response.start", "status": 200, "headers": []})

    counted = CpuByRoute(app)
    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request"}

    def scope(path, method="POST"):
        return {"type": "http", "path": path, "method": method}

    moves = 3 * SAMPLE_EVERY
    await asyncio.gather(
        *(counted(scope("/games/noitu/api/move"), receive, send) for _ in range(moves))
    )
    for _ in range(SAMPLE_EVERY):
        with pytest.raises(RuntimeError):
            await counted(scope("/games/noitu/api/fail"), receive, send)
    sent.clear()
    await counted(scope(CPU_PATH, "GET"), receive, send)
    totals = json.loads(sent[-1]["body"])
    requests, timed, seconds = totals["routes"]["move"]
    assert (requests, timed) == (moves, 3) and 0.006 <= seconds < 0.03
    assert set(totals["routes"]) == {"move", "fail"}  # the totals' own request is not counted
    assert totals["routes"]["fail"][:2] == [SAMPLE_EVERY, 1]


def test_a_players_pause_is_the_move_interval_plus_its_own_jitter() -> None:
    from noitu.bench.http_players import MOVE_INTERVAL_S, LoadState

    exact = LoadState(0.0, 1.0)
    rng = random.Random(5)
    assert {exact.pause_s(rng) for _ in range(10)} == {MOVE_INTERVAL_S}
    jittered = LoadState(0.0, 1.0, jitter_s=0.016)
    pauses = [jittered.pause_s(random.Random(5)) for _ in range(3)]
    assert pauses[0] == pauses[1] == pauses[2]  # seeded: the same player, the same pauses
    spread = [jittered.pause_s(rng) for _ in range(2000)]
    assert MOVE_INTERVAL_S <= min(spread) and max(spread) < MOVE_INTERVAL_S + 0.016
    assert abs(sum(spread) / len(spread) - (MOVE_INTERVAL_S + 0.008)) < 0.001


def test_the_floor_app_answers_the_real_mix_requests_the_floor_players_send() -> None:
    """The floor comparison loads the hello-world app with bodies shaped like the real
    mix's, on the same paths: each must be decoded and answered 200 (a refusal would
    make the floor a measure of errors)."""
    from litestar.testing import TestClient

    from noitu.adapters.http.paths import NOITU_API_PATH
    from noitu.bench.floor_app import create_floor_app
    from noitu.bench.http_players import FLOOR_CYCLE

    with TestClient(create_floor_app()) as client:
        assert {route for route, _ in FLOOR_CYCLE} == {"start", "move", "give-up"}
        for route, body in FLOOR_CYCLE:
            answer = client.post(f"{NOITU_API_PATH}/{route}", json=body)
            assert answer.status_code == 200, (route, answer.text)
            assert answer.json()["ok"] is True
        assert client.get("/healthz").status_code == 200
