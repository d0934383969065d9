"""The rooms' REST and WebSocket edge through the real app and a real server: a person's
legalActions go to that person only (docs/arena-api.md "Rooms"), and every room body is
decoded strictly — a wrong JSON type is `bad_request` and changes nothing (spec B3:
"3" and true are not integers, 1 is not a boolean)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from noitu.application.arena.limits import MAX_LIVE_MATCHES_PER_OWNER
from support.arena_server import ROOMS, Served, build, serving
from support.arena_store import NoSandbox
from support.fakes import FakeClock

KEY_A = "a" * 32
KEY_B = "b" * 32
LAN = {"kind": "person", "name": "Lan"}
MINH = {"kind": "person", "name": "Minh"}


@pytest.fixture
async def people(arena_data_dir: Path, clock: FakeClock) -> AsyncIterator[Served]:
    """A server on the fake clock, for matches between people (no bot runs)."""
    async with serving(build(arena_data_dir, NoSandbox(), clock)) as running:
        yield running


async def placing(people: Served) -> str:
    """Lan (KEY_A, P1) and Minh (KEY_B, P2) in a room, both placing."""
    created = await people.create(LAN, key=KEY_A)
    code = created.json()["room"]["code"]
    joined = await people.post(code, "join", {"seat": MINH}, KEY_B)
    assert joined.status_code == 200, joined.text
    await people.hosted(code)
    return code


async def playing(people: Served) -> str:
    """As `placing`, then both placed and ready: P1 (Lan) is to move."""
    code = await placing(people)
    for key in (KEY_A, KEY_B):
        for kind in ("RANDOM_PLACEMENT", "READY"):
            answer = await people.post(code, "placement", {"type": kind}, key)
            assert answer.status_code == 200, answer.text
    await people.until(code, lambda r: r["currentPlayer"] == "P1", KEY_A)
    return code


async def first_frame(people: Served, code: str) -> dict:
    async with connect(f"{people.ws_base}/arena/ws/rooms/{code}") as socket:
        frame = json.loads(await socket.recv())
    assert frame["type"] == "room"
    return frame["room"]


# --- who sees the legal actions ------------------------------------------------------------


async def test_legal_actions_go_to_the_person_to_move_only(people: Served) -> None:
    code = await playing(people)
    mover = await people.room(code, KEY_A)
    assert mover["mine"] == ["P1"] and len(mover["legalActions"]) > 0
    keyless = await people.room(code)
    other = await people.room(code, KEY_B)
    stranger = await people.room(code, "c" * 32)
    socket = await first_frame(people, code)
    for seen in (keyless, other, stranger, socket):
        assert seen["currentPlayer"] == "P1" and seen["legalActions"] == []
    assert other["mine"] == ["P2"]
    # The mover's own move answers with the room as they see it: now P2's turn, and P1
    # has nothing to choose from; P2 gets theirs on asking with their key.
    moved = await people.post(code, "actions", mover["legalActions"][0], KEY_A)
    assert moved.status_code == 200, moved.text
    assert moved.json()["currentPlayer"] == "P2" and moved.json()["legalActions"] == []
    assert (await people.room(code, KEY_B))["legalActions"]
    assert (await people.room(code))["legalActions"] == []


# --- wrong JSON types --------------------------------------------------------------------


def as_strings(square: dict) -> dict:
    return {name: str(value) for name, value in square.items()}


async def refused(answer: Any) -> None:
    assert (answer.status_code, answer.json()["error"]) == (400, "bad_request"), answer.text


async def test_a_move_with_coordinates_as_strings_is_refused_and_changes_nothing(
    people: Served,
) -> None:
    code = await playing(people)
    before = await people.room(code, KEY_A)
    move = next(a for a in before["legalActions"] if a["type"] == "MOVE")
    stringly = {**move, "from": as_strings(move["from"]), "to": as_strings(move["to"])}
    half = {**move, "to": {**move["to"], "row": str(move["to"]["row"])}}
    floats = {**move, "to": {"row": float(move["to"]["row"]), "col": move["to"]["col"]}}
    for wrong in (stringly, half, floats, {**move, "pieceId": 1}, {"type": "PASS", "extra": 1}):
        await refused(await people.post(code, "actions", wrong, KEY_A))
    after = await people.room(code, KEY_A)
    assert after["version"] == before["version"] and after["lastAction"] is None
    assert (await people.post(code, "actions", move, KEY_A)).status_code == 200


async def test_a_placement_with_a_wrong_type_is_refused_and_changes_nothing(people: Served) -> None:
    code = await placing(people)
    before = await people.room(code, KEY_A)
    place = {"type": "PLACE", "pieceId": "P1-ROCK-1", "to": {"row": 7, "col": 1}}
    for wrong in (
        {**place, "to": {"row": "7", "col": "1"}},
        {**place, "to": {"row": 7, "col": True}},
        {**place, "to": {"row": 7.0, "col": 1}},
        {"type": ["READY"]},
    ):
        await refused(await people.post(code, "placement", wrong, KEY_A))
    after = await people.room(code, KEY_A)
    assert after["version"] == before["version"] and after["board"]["pieces"] == []
    assert (await people.post(code, "placement", place, KEY_A)).status_code == 200


async def test_creating_joining_and_surrendering_with_a_wrong_type_are_refused(
    people: Served,
) -> None:
    for wrong in (
        {"seat": LAN, "opponent": "null"},
        {"seat": {"kind": "person", "name": 5}},
        {"seat": {"kind": "builtin", "ref": 1}},
        {"seat": [LAN]},
    ):
        await refused(await people.http.post(ROOMS, json=wrong, headers={"X-Owner-Key": KEY_A}))
    assert (await people.http.get(ROOMS)).json()["waiting"] == []
    code = (await people.create(LAN, key=KEY_A)).json()["room"]["code"]
    before = await people.room(code)
    for wrong in ({"seat": MINH, "side": "null"}, {"seat": MINH, "side": 2}, {"seat": "person"}):
        await refused(await people.post(code, "join", wrong, KEY_B))
    assert (await people.room(code))["version"] == before["version"]
    code = await playing(people)
    before = await people.room(code)
    for wrong in ({"side": "null"}, {"side": 1}, {"side": True}):
        await refused(await people.post(code, "surrender", wrong, KEY_A))
    after = await people.room(code)
    assert after["version"] == before["version"] and after["result"] is None


# --- the per-owner limit ------------------------------------------------------------------


async def test_too_many_rooms_answers_when_to_ask_again(people: Served) -> None:
    codes = []
    for _ in range(MAX_LIVE_MATCHES_PER_OWNER):
        created = await people.create(LAN, key=KEY_A)
        assert created.status_code == 201, created.text
        codes.append(created.json()["room"]["code"])
    other = (await people.create(MINH, key=KEY_B)).json()["room"]["code"]
    for answer in (
        await people.create(LAN, key=KEY_A),
        await people.post(other, "join", {"seat": LAN}, KEY_A),
    ):
        assert (answer.status_code, answer.json()["error"]) == (429, "too_many_matches")
        assert int(answer.headers["retry-after"]) >= 1
    # Leaving one room frees the place at once.
    assert (await people.post(codes[0], "leave", None, KEY_A)).status_code == 200
    assert (await people.create(LAN, key=KEY_A)).status_code == 201
