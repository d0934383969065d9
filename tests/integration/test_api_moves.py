"""api/move, api/state and api/give-up over HTTP: every reject reason, every ending."""

from __future__ import annotations

from noitu.adapters.noitu.dictionary_file import lexicon_from_lines
from support.dictionaries import chain_dictionary

ALREADY_USED = "ba ca\nca da\nca ea\nda ca\n"


async def test_first_move_is_scored_and_the_bot_answers(harness):
    state = await harness.started()
    assert state["current"] == "đầu"
    assert [link["word"] for link in state["chain"]] == ["mở đầu"]
    assert state["deadline_ms"] - state["server_now_ms"] == 30_000

    response = await harness.move(state["session"], "Đầu  BẾP")
    assert response.status_code == 200
    body = response.json()
    assert body["result"] == {
        "accepted": True,
        "reason": "",
        "message": "",
        "player_word": "đầu bếp",
        "bot_word": "bếp núc",
    }
    chain = body["state"]["chain"]
    # base 10 + chain 2×1 + length 0 + speed ⌊10×29.7/30⌋=9 + rarity (4 replies) 9
    assert chain[1] == {
        "word": "đầu bếp",
        "by": "player",
        "points": 30,
        "meanings": [{"pos": "danh", "gloss": "người nấu ăn chính"}],
    }
    assert chain[2]["by"] == "bot"
    assert body["state"]["score"] == 30
    assert body["state"]["current"] == "núc"
    assert body["state"]["deadline_ms"] == body["state"]["server_now_ms"] + 30_000


async def test_each_reject_reason_keeps_the_turn_and_the_clock(harness):
    state = await harness.started()
    session = state["session"]
    cases = {
        "đầu": "too_few_syllables",
        "hồng-hào": "too_few_syllables",
        "đầu gối": "not_in_dictionary",
        "đầu óc!": "not_in_dictionary",
        "sinh viên": "wrong_link",
    }
    for word, reason in cases.items():
        body = (await harness.move(session, word)).json()
        assert body["result"]["accepted"] is False
        assert body["result"]["reason"] == reason, word
        assert body["result"]["message"]
        assert body["state"]["deadline_ms"] == state["deadline_ms"]
        assert len(body["state"]["chain"]) == 1
    wrong = (await harness.move(session, "sinh viên")).json()["result"]["message"]
    assert "đầu" in wrong


async def test_already_used(make_harness):
    harness = await make_harness(lexicon_from_lines(ALREADY_USED.splitlines()))
    state = await harness.started()
    assert state["current"] == "ca"
    body = (await harness.move(state["session"], "ca da")).json()
    assert body["result"]["bot_word"] == "da ca"
    body = (await harness.move(state["session"], "ca da")).json()
    assert body["result"]["reason"] == "already_used"
    body = (await harness.move(state["session"], "ca ea")).json()
    assert body["state"]["status"] == "won"
    assert body["state"]["end_reason"] == "bot_stuck"


async def test_a_variant_spelling_plays_the_canonical_word(make_harness):
    lexicon = lexicon_from_lines(
        ["an hoà", "hòa bình\t1", "hoà bình\t3", "hoà an", "bình an", "an toàn"]
    )
    harness = await make_harness(lexicon)
    state = await harness.started()
    assert state["current"] == "hoà"  # the opening "an hoà" is kept as written
    body = (await harness.move(state["session"], "hoà bình")).json()
    assert body["result"]["player_word"] == "hòa bình"
    assert body["state"]["chain"][1]["word"] == "hòa bình"


async def test_bot_stuck_is_a_win(harness):
    state = await harness.started()
    body = (await harness.move(state["session"], "đầu óc")).json()
    assert body["result"]["accepted"] is True
    assert body["result"]["bot_word"] == ""
    assert body["state"]["status"] == "won"
    assert body["state"]["end_reason"] == "bot_stuck"
    assert body["state"]["deadline_ms"] == 0
    await harness.background.settle()
    final = (await harness.post("state", {"session": state["session"]})).json()
    assert final["score_reported"] == "ok"
    assert [(r.user_id, r.score) for r in harness.reporter.reports] == [(1, final["score"])]


async def test_moves_after_the_end_are_game_over(harness):
    state = await harness.started()
    await harness.move(state["session"], "đầu óc")
    response = await harness.move(state["session"], "đầu tiên")
    assert response.status_code == 409
    assert response.json()["error"] == "game_over"


async def test_timeout_answers_200_then_game_over(harness):
    state = await harness.started()
    harness.clock.advance(30_000 + 2_001)
    response = await harness.move(state["session"], "đầu tiên", wait_ms=0)
    assert response.status_code == 200
    body = response.json()
    assert body["result"]["reason"] == "timeout"
    assert body["state"]["status"] == "lost"
    assert body["state"]["end_reason"] == "timeout"
    assert [s["word"] for s in body["state"]["suggestions"]][:1] == ["đầu bếp"]
    assert body["state"]["score_reported"] == "skipped"
    assert (await harness.move(state["session"], "đầu tiên")).status_code == 409


async def test_grace_window_counts_without_speed_points(harness):
    state = await harness.started()
    harness.clock.advance(30_000 + 2_000)
    body = (await harness.move(state["session"], "đầu bếp", wait_ms=0)).json()
    assert body["result"]["accepted"] is True
    # 10 + 2 + 0 + speed 0 + rarity 9
    assert body["state"]["chain"][1]["points"] == 21


async def test_dead_end_times_out_as_no_legal_move(harness):
    state = await harness.started()
    body = (await harness.move(state["session"], "đầu bếp")).json()
    assert body["state"]["current"] == "núc"
    harness.clock.advance(32_001)
    view = (await harness.post("state", {"session": state["session"]})).json()
    assert view["status"] == "lost"
    assert view["end_reason"] == "no_legal_move"
    assert view["suggestions"] == []
    await harness.background.settle()
    assert [r.score for r in harness.reporter.reports] == [view["score"]]


async def test_give_up_in_a_dead_end_is_no_legal_move(harness):
    state = await harness.started()
    await harness.move(state["session"], "đầu bếp")
    view = (await harness.post("give-up", {"session": state["session"]})).json()
    assert (view["status"], view["end_reason"]) == ("lost", "no_legal_move")


async def test_give_up_in_a_playable_position_suggests_words(harness):
    state = await harness.started()
    response = await harness.post("give-up", {"session": state["session"]})
    assert response.status_code == 200
    view = response.json()
    assert (view["status"], view["end_reason"]) == ("lost", "gave_up")
    assert view["deadline_ms"] == 0
    # Common words first (tier 1: đầu bếp, đầu tiên), fewest bot replies first, then order.
    assert [s["word"] for s in view["suggestions"]] == ["đầu bếp", "đầu tiên", "đầu óc"]
    assert view["suggestions"][1]["meanings"] == [{"pos": "danh", "gloss": "thứ nhất"}]
    assert view["score_reported"] == "skipped"


async def test_a_chain_of_300_words_is_a_win(make_harness):
    harness = await make_harness(lexicon_from_lines(chain_dictionary(320).splitlines()))
    state = await harness.started()
    session = state["session"]
    lexicon = harness.lexicon
    body = {"state": state}
    while body["state"]["status"] == "playing":
        current = body["state"]["current"]
        word = lexicon.words[lexicon.starting_with[lexicon.syllable_id(current)][0]]
        response = await harness.move(session, word)
        body = response.json()
        assert body["result"]["accepted"], body["result"]
    assert body["state"]["end_reason"] == "max_moves"
    assert body["state"]["status"] == "won"
    assert len(body["state"]["chain"]) == 300
    assert body["state"]["chain"][-1]["by"] == "player"


async def test_state_settles_an_expired_turn_and_reports_the_score(harness):
    state = await harness.started()
    await harness.move(state["session"], "đầu mối")  # bot: mối tình
    harness.clock.advance(40_000)
    view = (await harness.post("state", {"session": state["session"]})).json()
    assert view["end_reason"] == "timeout"
    assert view["score_reported"] == "pending"
    await harness.background.settle()
    view = (await harness.post("state", {"session": state["session"]})).json()
    assert view["score_reported"] == "ok"
    assert len(harness.reporter.reports) == 1


async def test_unknown_session_is_404_everywhere(harness):
    for route, body in (
        ("move", {"session": "f" * 32, "word": "đầu tiên"}),
        ("state", {"session": "nope"}),
        ("give-up", {"session": ""}),
    ):
        response = await harness.post(route, body)
        assert response.status_code == 404
        assert response.json() == {
            "error": "no_session",
            "message": "Ván chơi không còn nữa. Hãy bắt đầu ván mới.",
        }
