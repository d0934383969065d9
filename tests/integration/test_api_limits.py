"""Every limit of the spec over HTTP: bodies, words, rates, caps, replacement, eviction."""

from __future__ import annotations

import pytest

from noitu.application.noitu.session import ReportState


async def test_move_body_limits(harness):
    state = await harness.started()
    session = state["session"]
    cases = [
        b'{"session": "' + session.encode() + b'", "word": "' + b"a" * 5000 + b'"}',
        b"not json",
        b'{"session": 1, "word": "x y"}',
        b'{"session": "' + session.encode() + b'"}',
        b'{"session": "' + session.encode() + b'", "word": "x y", "extra": 1}',
        b"[]",
    ]
    for raw in cases:
        harness.clock.advance(300)
        response = await harness.client.post(
            "/games/noitu/api/move", content=raw, headers={"content-type": "application/json"}
        )
        assert response.status_code == 400, raw[:60]
        assert response.json()["error"] == "bad_request"
        assert response.json()["message"]
    # Nothing was lost: the game goes on.
    assert (await harness.move(session, "đầu tiên")).json()["result"]["accepted"]


async def test_word_length_limits(harness):
    state = await harness.started()
    for word in ("a" * 65, "a b c d e f g h i"):
        response = await harness.move(state["session"], word)
        assert response.status_code == 400
        assert response.json()["error"] == "bad_request"
        assert "64" in response.json()["message"]
    # 64 characters and 8 tokens are still words (just not in the dictionary).
    for word in ("a" * 30 + " " + "b" * 33, "a b c d e f g h"):
        response = await harness.move(state["session"], word)
        assert response.json()["result"]["reason"] == "not_in_dictionary"


async def test_one_move_per_300_ms(harness):
    state = await harness.started()
    first = await harness.move(state["session"], "đầu gối", wait_ms=300)
    assert first.status_code == 200
    second = await harness.move(state["session"], "đầu tiên", wait_ms=299)
    assert second.status_code == 429
    assert second.json()["error"] == "too_fast"
    assert second.headers["retry-after"] == "1"  # 1 ms left, in whole seconds
    assert second.json()["retry_after_ms"] == 1  # and in the body, unrounded
    third = await harness.move(state["session"], "đầu tiên", wait_ms=1)
    assert third.json()["result"]["accepted"]


async def test_ten_starts_per_user_per_sliding_minute(harness):
    for i in range(10):
        assert (await harness.start(message=i + 1)).status_code == 200
        harness.clock.advance(1_000)
    refused = await harness.start(message=99)
    assert refused.status_code == 429
    assert refused.json()["error"] == "too_fast"
    # The first start leaves the window within a minute at the latest.
    assert refused.headers["retry-after"] == "60"
    assert refused.json() == {
        "error": "too_fast", "message": "Chậm lại một chút nhé!", "retry_after_ms": 60_000,
    }
    # Another user is not limited.
    assert (await harness.start(user=2)).status_code == 200
    # The first start leaves the window 60 s after it was made; refusals did not count.
    harness.clock.advance(60_000 - 10_000)
    assert (await harness.start(message=100)).status_code == 200
    assert (await harness.start(message=101)).status_code == 429


async def test_a_fourth_game_ends_the_oldest_and_reports_it(harness):
    first = await harness.started(message=1)
    body = (await harness.move(first["session"], "đầu mối")).json()
    assert body["result"]["accepted"]
    second = await harness.started(message=2)
    third = await harness.started(message=3)
    fourth = await harness.started(message=4)
    old = (await harness.post("state", {"session": first["session"]})).json()
    assert (old["status"], old["end_reason"]) == ("lost", "gave_up")
    assert old["replaced_by"] == fourth["session"]
    await harness.background.settle()
    assert [r.score for r in harness.reporter.reports] == [old["score"]]
    assert harness.reporter.reports[0].message.message_id == 1
    for other in (second, third, fourth):
        view = (await harness.post("state", {"session": other["session"]})).json()
        assert view["status"] == "playing"


async def test_a_new_start_on_the_same_message_replaces_the_old_game(harness):
    first = await harness.started()
    await harness.move(first["session"], "đầu mối")
    second = await harness.started()
    assert second["session"] != first["session"]
    old = (await harness.post("state", {"session": first["session"]})).json()
    assert (old["status"], old["end_reason"]) == ("lost", "gave_up")
    assert old["replaced_by"] == second["session"]
    # The older tab's next move says the game is over; its state names the newer game.
    refused = await harness.move(first["session"], "tình yêu")
    assert refused.status_code == 409
    await harness.background.settle()
    assert len(harness.reporter.reports) == 1
    # Another player on the same message does not replace it.
    third = await harness.started(user=2)
    view = (await harness.post("state", {"session": second["session"]})).json()
    assert view["status"] == "playing"
    assert third["session"] != second["session"]


async def test_inline_messages_are_owners_too(harness):
    first = await harness.started(inline="AAQ-inline")
    await harness.move(first["session"], "đầu mối")
    await harness.started(inline="AAQ-inline")
    await harness.background.settle()
    assert harness.reporter.reports[0].message.inline_message_id == "AAQ-inline"


async def test_two_thousand_live_sessions_then_busy(harness):
    for user in range(1, 2001):
        response = await harness.start(user=user)
        assert response.status_code == 200
    busy = await harness.start(user=5000)
    assert busy.status_code == 503
    assert busy.json()["error"] == "busy"
    # A player replacing their own game does not need a new slot.
    assert (await harness.start(user=1)).status_code == 200


@pytest.mark.parametrize("outcome", [ReportState.OK, ReportState.FAILED])
async def test_report_state_follows_the_reporter(harness, outcome):
    harness.reporter.outcome = outcome
    state = await harness.started()
    body = (await harness.move(state["session"], "đầu óc")).json()
    assert body["state"]["score_reported"] == "pending"
    await harness.background.settle()
    view = (await harness.post("state", {"session": state["session"]})).json()
    assert view["score_reported"] == outcome.value


async def test_the_sweep_settles_drops_and_reports(harness):
    settle = harness.container.settle_expired()
    expired = await harness.started(user=1)
    await harness.move(expired["session"], "đầu mối")
    finished = await harness.started(user=2)
    await harness.move(finished["session"], "đầu óc")

    harness.clock.advance(33_000)
    result = await settle()
    assert result.settled == 1
    await harness.background.settle()
    assert sorted(r.user_id for r in harness.reporter.reports) == [1, 2]
    view = (await harness.post("state", {"session": expired["session"]})).json()
    assert view["end_reason"] == "timeout"

    harness.clock.advance(2 * 60_000)
    result = await settle()
    assert result.dropped_finished == 2
    for session in (expired, finished):
        assert (await harness.post("state", {"session": session["session"]})).status_code == 404


async def test_an_idle_game_is_dropped_after_15_minutes(make_harness):
    harness = await make_harness(env={"NOITU_TURN_SECONDS": "3600"})
    settle = harness.container.settle_expired()
    state = await harness.started()
    await harness.move(state["session"], "đầu mối")
    harness.clock.advance(14 * 60_000)
    assert (await settle()).dropped_idle == 0
    harness.clock.advance(60_000)
    assert (await settle()).dropped_idle == 1
    await harness.background.settle()
    assert len(harness.reporter.reports) == 1
    assert (await harness.post("state", {"session": state["session"]})).status_code == 404
