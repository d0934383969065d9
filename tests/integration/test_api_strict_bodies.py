"""Nối từ's request bodies are decoded strictly: a field of the wrong JSON type is
`bad_request` (400) before any use case runs, and the game is as it was."""

from __future__ import annotations

from typing import Any


async def refused(answer: Any) -> None:
    assert (answer.status_code, answer.json()["error"]) == (400, "bad_request"), answer.text


async def test_a_wrong_type_in_any_body_is_refused_and_changes_nothing(harness: Any) -> None:
    state = await harness.started()
    session = state["session"]
    token = harness.token(user=2)
    for wrong in (
        {"token": 5},
        {"token": [token]},
        {"token": token, "difficulty": 1},
        {"token": token, "difficulty": None},
    ):
        await refused(await harness.post("start", wrong))
    harness.clock.advance(300)
    for wrong in (
        {"session": 1, "word": "đầu bếp"},
        {"session": session, "word": ["đầu bếp"]},
        {"session": session, "word": None},
    ):
        await refused(await harness.post("move", wrong))
    for route in ("state", "give-up", "record"):
        for wrong in ({"session": True}, {"session": None}, {"session": [session]}, [session]):
            await refused(await harness.post(route, wrong))
    now = (await harness.post("state", {"session": session})).json()
    assert now["status"] == state["status"] and now["chain"] == state["chain"]
    # The refused moves were not moves: none counts against the 300 ms between moves.
    assert (await harness.move(session, "đầu bếp", wait_ms=0)).json()["result"]["accepted"]
    assert (await harness.post("start", {"token": token})).status_code == 200
