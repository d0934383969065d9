"""The arena's rooms through the real app and a real server (spec B4–B6,
docs/arena-api.md): a bot-against-bot match watched over WebSockets, a person's whole
match through REST, surrenders and leaving, the replay download, the owner's failure
details, every room error code with its status, and sockets that go away."""

from __future__ import annotations

import asyncio
import gzip
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import zstandard
from dependency_injector import providers
from websockets.asyncio.client import connect

from noitu.application.arena.admission import AddressLimits
from noitu.application.arena.limits import MAX_LIVE_MATCHES_PER_OWNER
from noitu.application.arena.match_queue import MatchQueue
from noitu.bench.redis_server import MISSING_REASON, REDIS_SERVER, RedisServer
from support.arena_bots import BOTS, require
from support.arena_server import ROOMS, Served, build, serving, watch
from support.arena_store import NoSandbox, ProbedOnce
from support.fakes import FakeClock

KEY_A = "a" * 32
KEY_B = "b" * 32
PERSON = {"kind": "person", "name": "Lan"}


def builtin(name: str) -> dict:
    return {"kind": "builtin", "ref": name}


@pytest.fixture
async def served(arena_data_dir: Path, arena_probe: ProbedOnce) -> AsyncIterator[Served]:
    """The server with this machine's runner (the sandbox when there is one)."""
    async with serving(build(arena_data_dir, arena_probe)) as running:
        yield running


@pytest.fixture
async def people(arena_data_dir: Path, clock: FakeClock) -> AsyncIterator[Served]:
    """A server on the fake clock, for matches between people (no bot runs)."""
    async with serving(build(arena_data_dir, NoSandbox(), clock)) as running:
        yield running


async def upload(served: Served, name: str, key: str) -> str:
    files = {"file": (f"{name}.py", (BOTS / f"{name}.py").read_bytes(), "text/x-python")}
    answer = await served.http.post("/arena/api/bots", files=files, headers={"X-Owner-Key": key})
    assert answer.status_code == 201, answer.text
    assert answer.json()["bot"]["build"] == "ok"
    return answer.json()["bot"]["id"]


def replay_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def finished(room: dict) -> bool:
    return room["replayReady"]


# --- bots against bots, watched --------------------------------------------------------


async def _replay_codings(served: Served, match_id: str, lines: bytes) -> None:
    """Spec B14: the replay goes out as stored (zstd) to a client that takes zstd,
    gzipped to one that takes only gzip, plain to the rest; the same lines each way."""
    url = f"/arena/api/matches/{match_id}/replay"
    for accept, coding in [
        ("zstd", "zstd"), ("gzip, deflate, br, zstd", "zstd"), ("zstd;q=0, gzip", "gzip"),
        ("gzip", "gzip"), ("identity", None), ("br;q=1.0, zstd;q=0.5", "zstd"),
    ]:
        request = served.http.build_request("GET", url, headers={"Accept-Encoding": accept})
        answer = await served.http.send(request, stream=True)
        raw = b"".join([chunk async for chunk in answer.aiter_raw()])
        await answer.aclose()
        assert answer.status_code == 200 and answer.headers.get("content-encoding") == coding
        assert "accept-encoding" in answer.headers["vary"].lower()
        if coding == "zstd":
            raw = zstandard.ZstdDecompressor().decompressobj().decompress(raw)
        elif coding == "gzip":
            raw = gzip.decompress(raw)
        assert raw == lines, accept


async def test_a_bot_match_watched_by_two_sockets_and_a_late_joiner_ends_alike(
    served: Served,
) -> None:
    created = await served.create(builtin("random"), builtin("tactical"))
    assert created.status_code == 201, created.text
    body = created.json()
    code, key = body["room"]["code"], body["ownerKey"]
    assert len(key) == 32 and int(key, 16) >= 0
    assert body["room"]["seats"][0]["builtin"] == "random"
    first = asyncio.Event()
    early = [asyncio.create_task(watch(served, code, first)) for _ in range(2)]
    await first.wait()
    await served.until(code, lambda room: room["turn"] >= 6 or finished(room))
    late = await watch(served, code)
    seen = [*(await asyncio.gather(*early)), late]
    last = seen[0].rooms[-1]
    assert last["phase"] == "FINISHED" and last["result"] is not None and last["replayReady"]
    for watched in seen:
        assert watched.frames[-1] == {"type": "end"}
        assert watched.close_code == 1000
        assert watched.rooms[-1] == last
        versions = [room["version"] for room in watched.rooms]
        assert versions == sorted(set(versions))
        assert all(room["mine"] == [] and room["legalActions"] == [] for room in watched.rooms)
        assert watched.headers["x-content-type-options"] == "nosniff"
    assert len(seen[0].rooms) > 6  # one per change: placement, play, each move, the end
    # The replay: B4's JSON Lines, ending as the room did.
    replay = await served.http.get(f"/arena/api/matches/{last['matchId']}/replay")
    assert replay.status_code == 200
    assert replay.headers["content-type"].startswith("application/x-ndjson")
    assert f'filename="match-{last["matchId"]}.jsonl"' in replay.headers["content-disposition"]
    events = replay_lines(replay.text)
    assert events[0]["event"] == "setup" and events[0]["matchId"] == last["matchId"]
    assert [p["kind"] for p in events[0]["players"]] == ["builtin", "builtin"]
    assert len(events[0]["pieces"]) == 36
    end = events[-1]
    result = last["result"]
    assert (end["event"], end["winner"], end["reason"], end["turns"]) == (
        "end", result["winner"], result["reason"], result["turns"]
    )
    kinds = {event["event"] for event in events}
    assert {"sent", "received", "applied"} <= kinds
    applied = [event for event in events if event["event"] == "applied"]
    assert [event["turn"] for event in applied] == list(range(len(applied)))
    await _replay_codings(served, last["matchId"], replay.content)
    # A finished room still shows itself; the socket of a finished room ends at once.
    again = await watch(served, code)
    [shown] = again.rooms
    assert {**shown, "serverNowMs": 0} == {**last, "serverNowMs": 0}
    assert again.frames[-1] == {"type": "end"} and again.close_code == 1000


async def test_an_unknown_room_closes_the_socket_with_4404(served: Served) -> None:
    seen = await watch(served, "XXXXXX")
    assert seen.frames == [
        {"type": "error", "error": "room_not_found", "message": seen.frames[0]["message"]}
    ]
    assert seen.close_code == 4404


async def test_a_socket_that_goes_away_ends_its_subscription(served: Served) -> None:
    created = await served.create(PERSON, builtin("random"), key=KEY_A)
    code = created.json()["room"]["code"]  # in placement for 120 s: nothing ends it
    feed = served.container.room_feed()
    for leaving in ("close", "abort"):
        socket = await connect(f"{served.ws_base}/arena/ws/rooms/{code}")
        frame = json.loads(await socket.recv())
        assert frame["type"] == "room" and frame["room"]["phase"] == "PLACEMENT"
        await asyncio.sleep(0.05)
        assert feed.subscribers(code) == 1
        if leaving == "close":
            await socket.close()
        else:
            socket.transport.abort()
        for _ in range(200):
            if feed.subscribers(code) == 0:
                break
            await asyncio.sleep(0.01)
        assert feed.subscribers(code) == 0, leaving


async def test_the_server_shuts_down_cleanly_with_sockets_open(
    arena_data_dir: Path, arena_probe: ProbedOnce
) -> None:
    async with serving(build(arena_data_dir, arena_probe)) as running:
        created = await running.create(PERSON, builtin("random"), key=KEY_A)
        code = created.json()["room"]["code"]
        first = asyncio.Event()
        watching = asyncio.create_task(watch(running, code, first))
        await first.wait()
        await running.stop()
        seen = await asyncio.wait_for(watching, 10)
    assert seen.close_code is not None
    assert seen.rooms[0]["phase"] == "PLACEMENT"


# --- a person against a bot --------------------------------------------------------------


async def test_a_persons_whole_match_against_random_through_rest(served: Served) -> None:
    created = await served.create(PERSON, builtin("random"))
    assert created.status_code == 201, created.text
    key = created.json()["ownerKey"]
    room = created.json()["room"]
    code = room["code"]
    assert room["phase"] == "PLACEMENT" and room["mine"] == ["P1"]
    room = await served.hosted(code, key)  # its host makes the match: placement begins
    assert room["phase"] == "PLACEMENT" and room["mine"] == ["P1"]
    assert room["placementDeadlineMs"] is not None
    # In placement a person sees only their own pieces.
    assert {piece["ownerId"] for piece in room["board"]["pieces"]} <= {"P1"}
    placed = await served.post(code, "placement", {"type": "RANDOM_PLACEMENT"}, key)
    assert placed.status_code == 200, placed.text
    assert len(placed.json()["board"]["pieces"]) == 18
    ready = await served.post(code, "placement", {"type": "READY"}, key)
    assert ready.status_code == 200, ready.text
    moves = 0
    while True:
        room = await served.until(
            code, lambda r: finished(r) or (r["currentPlayer"] == "P1" and r["legalActions"]), key
        )
        if finished(room):
            break
        assert room["deadlineMs"] is not None and room["thinking"] is None
        legal = room["legalActions"]
        attacks = [a for a in legal if a["type"] == "MOVE" and _occupied(room, a["to"])]
        action = (attacks or legal)[0]
        answer = await served.post(code, "actions", action, key)
        assert answer.status_code == 200, answer.text
        assert answer.json()["lastAction"]["action"] == action
        moves += 1
        if moves == 40:
            gave_up = await served.post(code, "surrender", None, key)
            assert gave_up.status_code == 200, gave_up.text
    result = room["result"]
    assert moves > 0 and result is not None
    if result["reason"] == "SURRENDER":
        assert result["winner"] == "P2"
    events = replay_lines((await served.http.get(f"/arena/api/matches/{room['matchId']}/replay")).text)
    assert [p["kind"] for p in events[0]["players"]] == ["person", "builtin"]
    person_moves = [e for e in events if e["event"] == "applied" and e["player"] == "P1"]
    assert len(person_moves) == moves


def _occupied(room: dict, square: dict) -> bool:
    return any(
        piece["position"] == square and piece["ownerId"] == "P2" for piece in room["board"]["pieces"]
    )


async def test_leaving_a_made_match_is_a_surrender(served: Served) -> None:
    created = await served.create(PERSON, builtin("random"), key=KEY_A)
    code = created.json()["room"]["code"]
    await served.hosted(code)
    left = await served.post(code, "leave", None, KEY_A)
    assert left.status_code == 200, left.text
    room = await served.until(code, finished)
    assert room["result"]["reason"] == "SURRENDER" and room["result"]["winner"] == "P2"


async def test_an_owner_surrenders_while_the_slow_bot_thinks(
    served: Served, arena_probe: ProbedOnce
) -> None:
    require(arena_probe.status)
    bot = await upload(served, "slow", KEY_A)
    created = await served.create({"kind": "upload", "ref": bot}, builtin("random"), key=KEY_A)
    assert created.status_code == 201, created.text
    code = created.json()["room"]["code"]
    await served.until(code, lambda room: room["thinking"] == "P1")
    gave_up = await served.post(code, "surrender", {"side": "P1"}, KEY_A)
    assert gave_up.status_code == 200, gave_up.text
    room = await served.until(code, finished, timeout_s=10)
    assert room["result"] == {"winner": "P2", "reason": "SURRENDER", "turns": 0, "failure": None}
    events = replay_lines((await served.http.get(f"/arena/api/matches/{room['matchId']}/replay")).text)
    assert [e["event"] for e in events] == ["setup", "sent", "end"]  # the reply never came
    # Someone else may not surrender for the bot, nor see its details.
    other = await served.post(code, "surrender", None, KEY_B)
    assert (other.status_code, other.json()["error"]) == (403, "not_seated")


async def test_failure_details_are_the_bots_owners_alone(
    served: Served, arena_probe: ProbedOnce
) -> None:
    require(arena_probe.status)
    bot = await upload(served, "exit_at_once", KEY_A)
    created = await served.create({"kind": "upload", "ref": bot}, builtin("random"), key=KEY_A)
    code = created.json()["room"]["code"]
    room = await served.until(code, finished)
    assert room["result"]["reason"] == "BOT_FAILED"
    assert room["result"]["failure"]["player"] == "P1" and room["result"]["failure"]["code"]
    url = f"/arena/api/matches/{room['matchId']}/failure"
    mine = await served.http.get(url, headers={"X-Owner-Key": KEY_A})
    assert mine.status_code == 200, mine.text
    details = mine.json()
    assert details["matchId"] == room["matchId"]
    [own] = details["bots"]
    assert own["player"] == "P1" and own["botId"] == bot
    assert own["failureCode"] == room["result"]["failure"]["code"] and own["detail"]
    assert isinstance(own["stderr"], str)
    # The code and the one-line detail are public like the winner (B3): a keyless viewer
    # reads them in the result; the stderr stays the owner's.
    public = await served.room(code)
    assert public["result"]["failure"] == {"player": "P1", "code": own["failureCode"], "detail": own["detail"]}
    assert "stderr" not in json.dumps(public)
    other = await served.http.get(url, headers={"X-Owner-Key": KEY_B})
    assert (other.status_code, other.json()["error"]) == (403, "not_owner")
    nobody = await served.http.get(url)
    assert (nobody.status_code, nobody.json()["error"]) == (400, "bad_owner_key")


async def test_the_stderr_is_there_with_the_result_and_after_a_restart(
    arena_data_dir: Path, arena_probe: ProbedOnce
) -> None:
    require(arena_probe.status)
    async with serving(build(arena_data_dir, arena_probe)) as served:
        bot = await upload(served, "crash_with_trace", KEY_A)
        created = await served.create({"kind": "upload", "ref": bot}, builtin("random"), key=KEY_A)
        code = created.json()["room"]["code"]
        room = await served.until(code, lambda r: r["phase"] == "FINISHED")
        url = f"/arena/api/matches/{room['matchId']}/failure"
        # As soon as the result shows, whether or not the bots are closed yet.
        [own] = (await served.http.get(url, headers={"X-Owner-Key": KEY_A})).json()["bots"]
        assert own["failureCode"] == "EXITED"
        assert "suy nghĩ về lượt đầu" in own["stderr"]
        assert own["stderr"].rstrip().endswith("ValueError: lỗi thử nghiệm")
        await served.until(code, finished)
    async with serving(build(arena_data_dir, arena_probe)) as again:
        answer = await again.http.get(url, headers={"X-Owner-Key": KEY_A})
        assert answer.status_code == 200, answer.text
        [kept] = answer.json()["bots"]
        assert kept == own


# --- every error code ------------------------------------------------------------------------


async def _error(answer: Any) -> tuple[int, str]:
    return answer.status_code, answer.json()["error"]


async def test_every_room_error_answers_its_status(people: Served, clock: FakeClock) -> None:
    http = people.http
    assert await _error(await http.get(f"{ROOMS}/XXXXXX")) == (404, "room_not_found")
    assert await _error(await people.post("XXXXXX", "leave", None, KEY_A)) == (404, "room_not_found")
    assert await _error(await http.get(f"{ROOMS}/XXXXXX", headers={"X-Owner-Key": "nope"})) == (
        400, "bad_owner_key"
    )
    assert await _error(await people.post("XXXXXX", "leave")) == (400, "bad_owner_key")
    assert await _error(await people.create({"kind": "alien"})) == (400, "bad_request")
    assert await _error(await http.get("/arena/api/matches/FFFFFFFF/replay")) == (
        404, "match_not_found"
    )
    waiting = (await people.create(PERSON, key=KEY_A)).json()["room"]
    code = waiting["code"]
    assert waiting["phase"] == "WAITING"
    assert await _error(await people.post(code, "join", {"seat": PERSON}, KEY_A)) == (
        409, "already_seated"
    )
    assert await _error(await people.post(code, "join", {"seat": PERSON, "side": "P1"}, KEY_B)) == (
        409, "seat_taken"
    )
    assert await _error(await people.post(code, "leave", None, KEY_B)) == (403, "not_seated")
    assert await _error(await people.post(code, "surrender", None, KEY_A)) == (409, "wrong_phase")
    for _ in range(MAX_LIVE_MATCHES_PER_OWNER - 1):
        assert (await people.create(PERSON, key=KEY_A)).status_code == 201
    assert await _error(await people.create(PERSON, key=KEY_A)) == (429, "too_many_matches")
    # B joins: two people, a match with no bot.
    joined = await people.post(code, "join", {"seat": {"kind": "person", "name": "Minh"}}, KEY_B)
    assert joined.status_code == 200, joined.text
    assert joined.json()["room"]["mine"] == ["P2"] and joined.json()["ownerKey"] == KEY_B
    assert await _error(await people.post(code, "join", {"seat": PERSON}, "c" * 32)) == (
        409, "room_full"
    )
    await people.hosted(code)
    on_diagonal = {"type": "PLACE", "pieceId": "P1-ROCK-1", "to": {"row": 4, "col": 4}}
    assert await _error(await people.post(code, "placement", on_diagonal, KEY_A)) == (
        422, "placement_refused"
    )
    move = {"type": "PASS"}
    assert await _error(await people.post(code, "actions", move, KEY_A)) == (409, "wrong_phase")
    for key in (KEY_A, KEY_B):
        assert (await people.post(code, "placement", {"type": "RANDOM_PLACEMENT"}, key)).status_code == 200
        assert (await people.post(code, "placement", {"type": "READY"}, key)).status_code == 200
    room = await people.until(code, lambda r: r["phase"] == "PLAYING" and r["currentPlayer"] == "P1", KEY_A)
    match_id = room["matchId"]
    assert await _error(await http.get(f"/arena/api/matches/{match_id}/replay")) == (
        409, "replay_not_ready"
    )
    assert await _error(
        await http.get(f"/arena/api/matches/{match_id}/failure", headers={"X-Owner-Key": KEY_A})
    ) == (403, "not_owner")
    legal = room["legalActions"][0]
    assert await _error(await people.post(code, "actions", legal, KEY_B)) == (409, "not_your_turn")
    too_far = {**legal, "to": {"row": legal["from"]["row"] - 2, "col": legal["from"]["col"]}}
    if not 0 <= too_far["to"]["row"] < 9:
        too_far["to"]["row"] = legal["from"]["row"] + 2
    assert await _error(await people.post(code, "actions", too_far, KEY_A)) == (
        422, "illegal_action"
    )
    assert await _error(await people.post(code, "actions", {"type": "PASS"}, KEY_A)) == (
        422, "illegal_action"
    )
    clock.advance(60_001)
    assert await _error(await people.post(code, "actions", legal, KEY_A)) == (409, "time_up")
    room = await people.until(code, finished)
    assert room["result"]["reason"] == "TIME_UP" and room["result"]["winner"] == "P2"


async def test_the_lobby_lists_waiting_and_live_rooms(people: Served) -> None:
    waiting = (await people.create(PERSON, key=KEY_A)).json()["room"]["code"]
    live = (await people.create(PERSON, builtin("random"), key=KEY_B)).json()["room"]["code"]
    lobby = (await people.http.get(ROOMS)).json()
    assert [room["code"] for room in lobby["waiting"]] == [waiting]
    assert [room["code"] for room in lobby["live"]] == [live]
    assert lobby["live"][0]["phase"] == "PLACEMENT"
    # A bot waiting for an opponent comes after a person waiting, but its owner (the
    # key in the header) finds their own room first.
    answer = (await people.create(builtin("random"))).json()
    mine, key = answer["room"]["code"], answer["ownerKey"]
    lobby = (await people.http.get(ROOMS)).json()
    assert [room["code"] for room in lobby["waiting"]] == [waiting, mine]
    lobby = (await people.http.get(ROOMS, headers={"X-Owner-Key": key})).json()
    assert [room["code"] for room in lobby["waiting"]] == [mine, waiting]
    refused = await people.http.get(ROOMS, headers={"X-Owner-Key": "not a key"})
    assert await _error(refused) == (400, "bad_owner_key")


# --- two instances on one Redis ----------------------------------------------------------


@pytest.mark.redis
@pytest.mark.skipif(REDIS_SERVER is None and not os.environ.get("CI"), reason=MISSING_REASON)
async def test_a_viewer_on_another_instance_sees_the_match_through_redis(
    arena_data_dir: Path, arena_probe: ProbedOnce, tmp_path: Path
) -> None:
    with RedisServer(tmp_path / "redis") as redis_server:
        env = {"NOITU_STORE": "redis", "REDIS_URL": redis_server.url}
        async with serving(build(arena_data_dir, arena_probe, env=env)) as first, serving(
            build(arena_data_dir, arena_probe, env=env)
        ) as second:
            created = await first.create(builtin("random"), builtin("random"), key=KEY_A)
            code = created.json()["room"]["code"]
            assert (await second.http.get(f"{ROOMS}/{code}")).status_code == 404  # REST: local
            elsewhere = await watch(second, code)
            here = await watch(first, code)
            last = here.rooms[-1]
            assert last["phase"] == "FINISHED" and last["replayReady"]
            assert elsewhere.rooms[-1]["version"] == last["version"]
            assert elsewhere.rooms[-1]["result"] == last["result"]
            assert elsewhere.frames[-1] == {"type": "end"} and elsewhere.close_code == 1000
            versions = [room["version"] for room in elsewhere.rooms]
            assert versions == sorted(set(versions))
            # A viewer that comes after the end still gets the last snapshot at once.
            after = await watch(second, code)
            assert [room["version"] for room in after.rooms] == [last["version"]]
            assert after.close_code == 1000
            assert (await watch(second, "XXXXXX")).close_code == 4404


# --- per client address, and the fair queue (spec B10) -----------------------------------


def fresh_key(n: int) -> str:
    return f"{n:032x}"


async def test_rooms_opened_from_one_address_are_limited_whatever_the_keys(
    people: Served, clock: FakeClock
) -> None:
    for n in range(AddressLimits().rooms):
        answer = await people.create(PERSON, key=fresh_key(n))
        assert answer.status_code == 201, answer.text
        clock.advance(1_000)
    refused = await people.create(PERSON, key=fresh_key(99))
    assert await _error(refused) == (429, "address_too_many_rooms")
    assert refused.headers["retry-after"] == str(60 - AddressLimits().rooms)
    keyless = await people.create(PERSON)  # a key is made, counted, then the room refused
    assert await _error(keyless) == (429, "address_too_many_rooms")
    clock.advance(60_000)
    assert (await people.create(PERSON, key=fresh_key(99))).status_code == 201


@pytest.fixture
async def one_slot(arena_data_dir: Path, clock: FakeClock) -> AsyncIterator[Served]:
    """People on the fake clock, and a match queue of one slot."""
    container = build(arena_data_dir, NoSandbox(), clock)
    container.match_queue.override(providers.Singleton(MatchQueue, 1))
    async with serving(container) as running:
        yield running


async def ready(served: Served, code: str, key: str) -> None:
    for step in ({"type": "RANDOM_PLACEMENT"}, {"type": "READY"}):
        answer = await served.post(code, "placement", step, key)
        assert answer.status_code == 200, answer.text


async def test_a_spectacle_is_one_per_address_and_waits_behind_peoples_matches(
    one_slot: Served,
) -> None:
    served = one_slot
    # Two people play: the only slot is taken (the fake clock never runs their turns out).
    playing = (await served.create(PERSON, key=KEY_A)).json()["room"]["code"]
    joined = await served.post(playing, "join", {"seat": {"kind": "person", "name": "B"}}, KEY_B)
    assert joined.status_code == 200, joined.text
    await served.hosted(playing)
    for key in (KEY_A, KEY_B):
        await ready(served, playing, key)
    await served.until(playing, lambda r: r["phase"] == "PLAYING")
    # A spectacle waits for the slot; a second one from the same address is refused.
    show = await served.create(builtin("random"), builtin("random"), key=fresh_key(1))
    assert show.status_code == 201, show.text
    spectacle = show.json()["room"]["code"]
    await served.until(spectacle, lambda r: r["queuePlace"] == 1)
    again = await served.create(builtin("random"), builtin("tactical"), key=fresh_key(2))
    assert await _error(again) == (429, "one_spectacle")
    assert again.headers["retry-after"] == "10"
    # A person's match that comes later goes ahead of it (its person places once it
    # has the slot, B9).
    person = (await served.create(PERSON, builtin("random"), key=fresh_key(3))).json()["room"]
    assert person["queuePlace"] == 1
    assert (await served.room(spectacle))["queuePlace"] == 2
    # The slot frees: the person's match is made and plays, the spectacle still waits.
    assert (await served.post(playing, "surrender", None, KEY_A)).status_code == 200
    await served.hosted(person["code"])
    await ready(served, person["code"], fresh_key(3))
    await served.until(person["code"], lambda r: r["phase"] == "PLAYING")
    await served.until(spectacle, lambda r: r["queuePlace"] == 1)  # the board's next pass
    assert (await served.post(person["code"], "surrender", None, fresh_key(3))).status_code == 200
    await served.until(spectacle, lambda r: r["queuePlace"] is None and r["phase"] != "PLACEMENT")
