"""B11 over HTTP: `api/report-word` after a refusal, the answers, the daily cap, and an
operator's addition playing in the game under way."""

from __future__ import annotations

from noitu.application.noitu.session import GameMessage, Ticket
from noitu.application.noitu.words.change_words import WordsCommand
from noitu.domain.noitu.additions import Action
from noitu.domain.noitu.reports import DAILY_REPORTS


async def report(harness, session: str, word: str):
    return await harness.post("report-word", {"session": session, "word": word})


async def test_a_refused_word_is_reported_once_added_it_plays(harness):
    state = await harness.started()
    session = state["session"]
    refused = (await harness.move(session, "Đầu  Gối")).json()["result"]
    assert refused["reason"] == "not_in_dictionary"

    answer = await report(harness, session, "đầu gối")
    assert answer.status_code == 200
    assert answer.json() == {
        "result": "reported",
        "word": "đầu gối",
        "reason": "",
        "message": "Cảm ơn bạn! Từ «đầu gối» đã được gửi để xem xét.",
    }
    pending = await harness.container.reports_store().pending()
    assert [(p.word, p.reporters) for p in pending] == [("đầu gối", 1)]

    await harness.container.change_words()(WordsCommand(("đầu gối",), Action.ADD))
    assert await harness.container.reports_store().pending() == []
    again = (await report(harness, session, "đầu gối")).json()
    assert again["result"] == "known" and again["word"] == "đầu gối"
    played = (await harness.move(session, "đầu gối")).json()["result"]
    assert played["accepted"] and played["player_word"] == "đầu gối"


async def test_only_the_last_refused_word_may_be_reported(harness):
    session = (await harness.started())["session"]
    response = await report(harness, session, "đầu gối")
    assert response.status_code == 409
    assert response.json()["error"] == "word_not_refused"
    await harness.move(session, "đầu gối")
    assert (await report(harness, session, "đầu tiên")).status_code == 409
    assert (await report(harness, "0" * 32, "đầu gối")).status_code == 404
    extra = await harness.post("report-word", {"session": session, "word": "đầu gối", "x": 1})
    assert extra.status_code == 400


async def test_an_unfit_word_is_answered_why_and_not_stored(harness):
    session = (await harness.started())["session"]
    await harness.move(session, "đầu xyz")
    answer = (await report(harness, session, "đầu xyz")).json()
    assert answer["result"] == "unfit" and answer["reason"] == "foreign_letter"
    assert await harness.container.reports_store().pending() == []


async def test_the_daily_cap_answers_too_many_reports(harness):
    session = (await harness.started())["session"]
    syllables = ["ba", "bà", "bá", "bả", "bã", "bạ", "ca", "cà", "cá", "cả", "cã", "cạ", "da", "dà", "dá", "dả", "dã", "dạ", "ga", "gà", "gá"]
    assert len(syllables) > DAILY_REPORTS
    for n, syllable in enumerate(syllables):
        await harness.move(session, f"đầu {syllable}")
        response = await report(harness, session, f"đầu {syllable}")
        if n < DAILY_REPORTS:
            assert response.status_code == 200, response.text
        else:
            assert response.status_code == 429
            assert response.json()["error"] == "too_many_reports"
            assert int(response.headers["retry-after"]) > 0


ROOM = "/games/noitu/api/room"


async def post(harness, route: str, body: dict):
    return await harness.client.post(f"{ROOM}/{route}", json=body)


async def join(harness, user: int) -> str:
    ticket = Ticket(user, f"Người {user}", GameMessage(chat_id=-100, message_id=7),
                    harness.clock.now // 1000 + 3600, room=True)
    answer = await post(harness, "join", {"token": harness.container.token_signer().issue(ticket)})
    assert answer.status_code == 200, answer.text
    return answer.json()["member"]


async def test_a_room_member_reports_the_word_they_were_refused(harness):
    host, guest = await join(harness, 1), await join(harness, 2)
    await post(harness, "start", {"member": host})
    harness.clock.advance(1_000)
    refused = (await post(harness, "move", {"member": host, "word": "đầu gối"})).json()
    assert refused["result"]["reason"] == "not_in_dictionary"
    not_theirs = await post(harness, "report-word", {"member": guest, "word": "đầu gối"})
    assert (not_theirs.status_code, not_theirs.json()["error"]) == (409, "word_not_refused")
    answer = await post(harness, "report-word", {"member": host, "word": "Đầu gối"})
    assert answer.status_code == 200 and answer.json()["result"] == "reported"
    pending = await harness.container.reports_store().pending()
    assert [(p.word, p.reporters) for p in pending] == [("đầu gối", 1)]
    gone = await post(harness, "report-word", {"member": "f" * 32, "word": "đầu gối"})
    assert (gone.status_code, gone.json()["error"]) == (404, "no_member")


async def test_the_words_page_lists_additions_newest_first_as_plain_text(harness):
    empty = await harness.client.get("/games/noitu/words")
    assert empty.status_code == 200 and "Chưa có từ nào được thêm." in empty.text
    change = harness.container.change_words()
    await change(WordsCommand(("tình bạn",), Action.ADD))
    harness.clock.advance(86_400_000)
    await change(WordsCommand(("bạn bè",), Action.ADD))
    await change(WordsCommand(("đầu gối",), Action.ADD))
    await change(WordsCommand(("đầu gối",), Action.REMOVE))
    page = await harness.client.get("/games/noitu/words")
    assert page.status_code == 200
    assert page.headers["content-security-policy"].startswith("default-src 'self'")
    assert page.headers["content-type"].startswith("text/html")
    assert "<script" not in page.text and "style=" not in page.text
    assert page.text.index("bạn bè") < page.text.index("tình bạn")
    assert "đầu gối" not in page.text
    assert '<time datetime="2027-01-16">16/01/2027</time>' in page.text
