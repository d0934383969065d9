"""api/start, tokens, the page, its headers and the OpenAPI document over HTTP."""

from __future__ import annotations

import base64
import json
import re

import pytest

from noitu.entrypoints.settings import load_settings

CSP = (
    "default-src 'self'; script-src 'self' https://telegram.org; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'"
)


async def test_start_answers_the_session_view(harness):
    response = await harness.start(difficulty="hard")
    assert response.status_code == 200
    view = response.json()
    assert set(view) == {
        "session", "player", "difficulty", "status", "end_reason", "current", "chain",
        "score", "turn_limit_ms", "deadline_ms", "server_now_ms", "suggestions",
        "score_reported",
        "replaced_by", "day",  # ours, beyond the spec's list (day: a daily game's, B13)
    }
    assert view["replaced_by"] == "" and view["day"] == ""
    assert len(view["session"]) == 32 and int(view["session"], 16) >= 0
    assert view["player"] == "An"
    assert view["difficulty"] == "hard"
    assert view["status"] == "playing"
    assert view["end_reason"] == ""
    assert view["score"] == 0
    assert view["turn_limit_ms"] == 30_000
    assert view["server_now_ms"] == harness.clock.now
    assert view["score_reported"] == ""


@pytest.mark.parametrize("difficulty", [None, ""])
async def test_difficulty_defaults_to_medium(harness, difficulty):
    view = await harness.started(difficulty=difficulty)
    assert view["difficulty"] == "medium"


async def test_unknown_difficulty_is_bad_request(harness):
    response = await harness.start(difficulty="insane")
    assert response.status_code == 400
    assert response.json()["error"] == "bad_request"


async def test_tokens_are_checked(harness):
    good = harness.token()
    body, signature = good.split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=="))
    claims["u"] = 2
    forged_body = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    flipped = signature[:-2] + ("A" if signature[-2] != "A" else "B") + signature[-1]
    cases = {
        "": "bad_token",
        "garbage": "bad_token",
        f"{forged_body}.{signature}": "bad_token",
        f"{body}.{flipped}": "bad_token",
        f"{body}.{signature}=": "bad_token",
        good + "x" * 1100: "bad_token",
        harness.token(ttl_s=-1): "token_expired",
    }
    for token, code in cases.items():
        response = await harness.post("start", {"token": token})
        assert response.status_code == 401, token[:30]
        assert response.json()["error"] == code
        assert response.json()["message"]


async def test_bad_claims_are_bad_token_even_when_expired(harness):
    signer = harness.container.token_signer()
    body = base64.urlsafe_b64encode(b'{"u":0,"c":1,"m":1,"e":1}').rstrip(b"=").decode()
    token = f"{body}.{base64.urlsafe_b64encode(signer._mac(body)).rstrip(b'=').decode()}"
    response = await harness.post("start", {"token": token})
    assert response.json()["error"] == "bad_token"


async def test_start_body_must_be_exact(harness):
    token = harness.token()
    for body in ({"token": token, "difficulty": "easy", "score": 100}, {"difficulty": "easy"}, {"token": 5}):
        response = await harness.post("start", body)
        assert response.status_code == 400
        assert response.json()["error"] == "bad_request"


async def test_page_assets_and_headers(harness):
    for path, kind in (
        ("/games/noitu/", "text/html"),
        ("/games/noitu/app.js", "text/javascript"),
        ("/games/noitu/app.css", "text/css"),
    ):
        response = await harness.client.get(path)
        assert response.status_code == 200
        assert response.headers["content-type"].startswith(kind)
        assert response.headers["content-security-policy"] == CSP
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "no-referrer"
        assert "x-frame-options" not in response.headers
    assert "max-age" in (await harness.client.get("/games/noitu/app.js")).headers["cache-control"]


@pytest.mark.parametrize(("setting", "shown"), [(None, "30"), ("5", "5"), ("7.5", "8"), ("1", "1")])
async def test_the_page_states_the_servers_turn_length(make_harness, setting, shown):
    env = {"NOITU_TURN_SECONDS": setting} if setting else {}
    harness = await make_harness(env=env)
    page = (await harness.client.get("/games/noitu/")).text
    assert f'data-testid="rules-turn-seconds">{shown}</span> giây' in page
    view = await harness.started()  # the page's script keeps it right from the views
    assert view["turn_limit_ms"] == int(float(setting or "30") * 1000)


async def test_the_page_modules_are_served_from_a_whitelist(harness):
    """app.js imports ./js/*.js: each shipped module is served as a script, and nothing
    else under /js/ (no path walks, no other files of the package)."""
    entry = (await harness.client.get("/games/noitu/app.js")).text
    imported = sorted(set(re.findall(r'from "\./js/([\w-]+\.js)"', entry)))
    assert imported, "app.js imports its modules from ./js/"
    for name in imported:
        response = await harness.client.get(f"/games/noitu/js/{name}")
        assert response.status_code == 200, name
        assert response.headers["content-type"].startswith("text/javascript")
        assert response.headers["content-security-policy"] == CSP
    for path in ("/games/noitu/js/nope.js", "/games/noitu/js/..%2Fapp.js", "/games/noitu/js/__init__.py"):
        response = await harness.client.get(path)
        assert response.status_code == 404, path
        assert response.json()["error"] == "not_found"


async def test_api_answers_are_not_stored_and_carry_the_headers(harness):
    for response in (
        await harness.start(),
        await harness.post("state", {"session": "x"}),
        await harness.client.get("/games/noitu/api/move"),
    ):
        assert response.headers["cache-control"] == "no-store"
        assert response.headers["content-security-policy"] == CSP
        assert response.headers["referrer-policy"] == "no-referrer"
    not_allowed = await harness.client.get("/games/noitu/api/move")
    assert not_allowed.status_code == 405
    assert "POST" in not_allowed.headers["allow"]
    assert (await harness.client.get("/elsewhere")).headers["referrer-policy"] == "no-referrer"


async def test_openapi_declares_every_answer(harness):
    schema = (await harness.client.get("/schema/openapi.json")).json()
    expected = {
        "start": {"200", "400", "401", "429", "503", "500"},
        "move": {"200", "400", "404", "409", "429", "500"},
        "state": {"200", "400", "404", "500"},
        "give-up": {"200", "400", "404", "500"},
    }
    for route, codes in expected.items():
        operation = schema["paths"][f"/games/noitu/api/{route}"]["post"]
        assert set(operation["responses"]) == codes, route


async def test_every_429_declares_its_retry_after(harness):
    schema = (await harness.client.get("/schema/openapi.json")).json()
    limited = set()
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            answer = operation.get("responses", {}).get("429")
            if answer is None:
                continue
            limited.add(f"{method} {path}")
            header = answer["headers"]["Retry-After"]
            assert header["required"] is True, path
            assert header["schema"] == {"type": "integer", "minimum": 1}, path
    assert {
        "post /games/noitu/api/start", "post /games/noitu/api/move", "post /arena/api/bots",
        "post /arena/api/rooms", "post /arena/api/rooms/{code}/join",
    } <= limited


async def test_the_openapi_document_is_json_only_with_the_page_headers(harness):
    """No HTML documentation site (litestar's would load a CDN's script on the game's
    domain): the document as JSON, with the CSP and the other headers of the page."""
    for path in ("/schema/openapi.json", "/schema"):
        response = await harness.client.get(path)
        assert response.status_code == 200, path
        assert response.headers["content-type"].startswith("application/vnd.oai.openapi+json"), path
        assert response.json()["openapi"].startswith("3."), path
        assert response.headers["content-security-policy"] == CSP, path
        assert response.headers["x-content-type-options"] == "nosniff", path
        assert response.headers["referrer-policy"] == "no-referrer", path
    for site in ("swagger", "redoc", "rapidoc", "elements", "scalar", "openapi.yaml", "openapi.yml"):
        response = await harness.client.get(f"/schema/{site}")
        assert response.status_code == 404, site
        assert "<script" not in response.text, site
        assert response.headers["content-security-policy"] == CSP, site


async def test_disabled_game_has_no_routes(make_harness):
    harness = await make_harness(env={"TELEGRAM_BOT_TOKEN": "1:x", "GAME_BASE_URL": "http://insecure"})
    assert (await harness.client.get("/games/noitu/")).status_code == 404
    assert (await harness.client.get("/healthz")).status_code == 200


def test_settings_disable_the_game_on_a_bad_base_url_or_short_secret():
    bad_url = load_settings({"TELEGRAM_BOT_TOKEN": "1:x", "GAME_BASE_URL": "https://x.org/"})
    assert not bad_url.game_enabled and bad_url.warnings
    short = load_settings(
        {"TELEGRAM_BOT_TOKEN": "1:x", "GAME_BASE_URL": "https://x.org/g", "NOITU_GAME_SECRET": "short"}
    )
    assert not short.game_enabled
    good = load_settings({"TELEGRAM_BOT_TOKEN": "1:x", "GAME_BASE_URL": "https://x.org/g"})
    assert good.game_enabled and not good.local_play


async def test_the_page_without_its_slash_redirects_and_keeps_the_query(harness):
    response = await harness.client.get("/games/noitu?t=abc", follow_redirects=False)
    assert response.status_code == 308
    assert response.headers["location"] == "/games/noitu/?t=abc"


async def test_a_room_link_is_refused_by_api_start(harness):
    signer = harness.container.token_signer()
    body = base64.urlsafe_b64encode(
        json.dumps({"u": 1, "n": "An", "c": -100, "m": 7, "e": harness.clock.now // 1000 + 60,
                    "r": 1}).encode()
    ).rstrip(b"=").decode()
    token = f"{body}.{base64.urlsafe_b64encode(signer._mac(body)).rstrip(b'=').decode()}"
    response = await harness.post("start", {"token": token})
    assert response.status_code == 400
    assert response.json() == {
        "error": "room_link",
        "message": "Đây là liên kết phòng chơi nhóm. Hãy mở nó ở chế độ phòng.",
    }
