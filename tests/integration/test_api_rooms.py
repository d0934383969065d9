"""Group rooms over HTTP (spec B10): the routes under /games/noitu/api/room/, their
errors through the one table, strict bodies, the OpenAPI document, and the live feed
as a WebSocket and as server-sent events on a real server (one instance, and two over
Redis)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import random
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import uvicorn
from websockets.asyncio.client import connect

from noitu.adapters.noitu.dictionary_file import lexicon_from_lines
from noitu.application.noitu.session import GameMessage, Ticket
from noitu.bench.redis_server import MISSING_REASON, REDIS_SERVER, RedisServer
from noitu.entrypoints.app import create_app
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import load_settings
from support.arena_server import free_port, serving
from support.dictionaries import LITTLE
from support.fakes import FakeClock, RecordingScoreReporter

ROOM = "/games/noitu/api/room"
SECRET = "s" * 32


def room_token(container: Container, clock: FakeClock, user: int, *, room: bool = True,
               chat: int = -100, message: int = 7) -> str:
    ticket = Ticket(user, f"Người {user}", GameMessage(chat_id=chat, message_id=message),
                    clock.now // 1000 + 3600, room=room)
    return container.token_signer().issue(ticket)


async def joined(harness, *users: int, **where: Any) -> list[str]:
    members = []
    for user in users:
        answer = await harness.client.post(
            f"{ROOM}/join", json={"token": room_token(harness.container, harness.clock, user, **where)}
        )
        assert answer.status_code == 200, answer.text
        members.append(answer.json()["member"])
    return members


async def post(harness, route: str, body: dict) -> Any:
    return await harness.client.post(f"{ROOM}/{route}", json=body)


async def test_a_room_is_played_over_http(harness):
    host, guest, third = await joined(harness, 1, 2, 3)
    view = (await post(harness, "start", {"member": host})).json()
    assert set(view) == {
        "status", "you", "host", "players", "watchers", "turn", "current", "chain",
        "deadline_ms", "server_now_ms", "turn_limit_ms", "max_players", "bot", "result",
    }
    assert view["status"] == "playing" and view["turn"] == 1 and view["you"] == 1
    harness.clock.advance(1_000)
    answer = await post(harness, "move", {"member": host, "word": "đầu tiên"})
    assert answer.status_code == 200
    assert answer.json()["result"] == {"accepted": True, "reason": "", "message": "", "word": "đầu tiên"}
    chain = answer.json()["state"]["chain"]
    assert [(link["word"], link["seat"], link["name"]) for link in chain] == [
        ("mở đầu", 0, ""), ("đầu tiên", 1, "Người 1"),
    ]
    rejected = await post(harness, "move", {"member": guest, "word": "đầu bếp"})
    assert rejected.status_code == 200 and rejected.json()["result"]["reason"] == "wrong_link"
    await post(harness, "give-up", {"member": third})
    view = (await post(harness, "leave", {"member": guest})).json()
    assert view["status"] == "lobby" and view["you"] is None
    assert view["result"]["winner"] == 1
    assert view["result"]["standings"][0] == {
        "seat": 1, "name": "Người 1", "score": chain[1]["points"] + 50, "bonus": 50, "out_reason": "",
    }
    await harness.background.settle()
    assert [(r.user_id, r.score) for r in harness.reporter.reports] == [(1, chain[1]["points"] + 50)]


async def test_room_errors_answer_their_codes_and_statuses(harness):
    host, guest = await joined(harness, 1, 2)
    cases = [
        ("start", {"member": guest}, 403, "not_host"),
        ("move", {"member": host, "word": "đầu tiên"}, 409, "no_game"),
        ("give-up", {"member": "f" * 32}, 404, "no_member"),
        ("add-bot", {"member": host, "level": "genius"}, 400, "bad_request"),
        ("join", {"token": room_token(harness.container, harness.clock, 1, room=False)}, 400,
         "not_a_room_link"),
        ("join", {"token": "x.y"}, 401, "bad_token"),
    ]
    for route, body, status, code in cases:
        answer = await post(harness, route, body)
        assert (answer.status_code, answer.json()["error"]) == (status, code), route
        assert answer.json()["message"]
    await post(harness, "start", {"member": host})
    answer = await post(harness, "move", {"member": guest, "word": "đầu tiên"})
    assert (answer.status_code, answer.json()["error"]) == (409, "not_your_turn")
    answer = await post(harness, "start", {"member": host})
    assert (answer.status_code, answer.json()["error"]) == (409, "game_running")


async def test_bodies_are_strict_and_small(harness):
    (host,) = await joined(harness, 1)
    for body in ({"member": host, "extra": 1}, {"member": 5}, {}, {"member": host, "word": "x" * 5000}):
        answer = await post(harness, "start", body)
        assert (answer.status_code, answer.json()["error"]) == (400, "bad_request"), body
    answer = await harness.client.post(f"{ROOM}/start", content=b"{", headers={"content-type": "application/json"})
    assert answer.status_code == 400


async def test_the_openapi_document_has_every_room_route(harness):
    document = (await harness.client.get("/schema/openapi.json")).json()
    for route in ("join", "start", "add-bot", "move", "give-up", "leave"):
        operation = document["paths"][f"{ROOM}/{route}"]["post"]
        assert "200" in operation["responses"]
    feed = document["paths"][f"{ROOM}/feed"]["get"]
    assert feed["parameters"][0]["name"] == "member" and feed["parameters"][0]["in"] == "query"
    assert {"404", "503"} <= set(feed["responses"])
    assert document["components"]["schemas"]["MemberCommand"]["additionalProperties"] is False
    feed_answer = feed["responses"]["200"]["content"]["text/event-stream"]["schema"]
    assert feed_answer == {"oneOf": [{"$ref": "#/components/schemas/RoomView"},
                                     {"$ref": "#/components/schemas/Replaced"}]}
    replaced = document["components"]["schemas"]["Replaced"]
    assert replaced["properties"] == {"replaced": {"type": "boolean", "const": True}}
    assert replaced["required"] == ["replaced"]


# --- the live feed on a real server ------------------------------------------------------


def server_container(env: dict[str, str] | None = None, clock: FakeClock | None = None) -> Container:
    container = Container()
    base = {"NOITU_GAME_SECRET": SECRET, "NOITU_ACCESS_LOG": "0", "MODULES": "noitu",
            "NOITU_DATA_DIR": os.environ["NOITU_DATA_DIR"]}
    container.settings.override(load_settings({**base, **(env or {})}))
    container.lexicon.override(lexicon_from_lines(LITTLE.splitlines(), "little"))
    container.rng.override(random.Random(7))
    container.score_reporter.override(RecordingScoreReporter())
    if clock is not None:
        container.clock.override(clock)
    return container


async def next_view(socket, timeout_s: float = 5.0) -> dict:
    return json.loads(await asyncio.wait_for(socket.recv(), timeout_s))


async def event_views(http: httpx.AsyncClient, member: str) -> AsyncIterator[dict]:
    async with http.stream("GET", f"{ROOM}/feed", params={"member": member},
                           headers={"Accept": "text/event-stream"}) as answer:
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/event-stream")
        async for line in answer.aiter_lines():
            if line.startswith("data:"):
                yield json.loads(line[5:])


async def join_over(http: httpx.AsyncClient, container: Container, clock: FakeClock, user: int) -> str:
    answer = await http.post(f"{ROOM}/join", json={"token": room_token(container, clock, user)})
    assert answer.status_code == 200, answer.text
    return answer.json()["member"]


async def test_the_feed_pushes_every_change_over_a_socket_and_an_event_stream(clock):
    container = server_container(clock=clock)
    async with serving(container) as served:
        host = await join_over(served.http, container, clock, 1)
        guest = await join_over(served.http, container, clock, 2)
        async with connect(f"{served.ws_base}{ROOM}/feed?member={host}") as socket:
            first = await next_view(socket)
            assert first["status"] == "lobby" and first["you"] == 1
            events = event_views(served.http, guest)
            assert (await asyncio.wait_for(anext(events), 5))["you"] == 2
            started = await served.http.post(f"{ROOM}/start", json={"member": host})
            assert started.status_code == 200
            pushed = await next_view(socket)
            assert pushed["status"] == "playing" and pushed["turn"] == 1
            streamed = await asyncio.wait_for(anext(events), 5)
            assert streamed["status"] == "playing" and streamed["you"] == 2
            clock.advance(1_000)
            await served.http.post(f"{ROOM}/move", json={"member": host, "word": "đầu tiên"})
            assert (await next_view(socket))["turn"] == 2
            assert (await asyncio.wait_for(anext(events), 5))["chain"][-1]["word"] == "đầu tiên"
            await events.aclose()
        async with connect(f"{served.ws_base}{ROOM}/feed?member={'0' * 32}") as socket:
            refused = await next_view(socket)
            assert refused["error"] == "no_member"
            with contextlib.suppress(Exception):
                await socket.recv()
            assert socket.close_code == 4404
        answer = await served.http.get(f"{ROOM}/feed", params={"member": "0" * 32})
        assert (answer.status_code, answer.json()["error"]) == (404, "no_member")


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory):
    if REDIS_SERVER is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must test rooms over Redis: {MISSING_REASON}")
        pytest.skip(MISSING_REASON)
    server = RedisServer(tmp_path_factory.mktemp("rooms-redis"))
    server.start()
    yield server.url
    server.kill()


async def test_two_instances_over_redis_serve_any_room_and_settle_alone(redis_url, clock):
    url = redis_url
    env = {"NOITU_STORE": "redis", "REDIS_URL": url}
    first, second = server_container(env, clock), server_container(env, clock)
    async with serving(first) as one, serving(second) as two:
        host = await join_over(one.http, first, clock, 1)
        guest = await join_over(two.http, second, clock, 2)
        third = await join_over(one.http, first, clock, 3)
        async with connect(f"{two.ws_base}{ROOM}/feed?member={host}") as socket:
            assert (await next_view(socket))["players"][2]["name"] == "Người 3"
            await one.http.post(f"{ROOM}/start", json={"member": host})
            assert (await next_view(socket))["status"] == "playing"
            # Nobody plays: the settling task of either instance puts seat 1 out.
            clock.advance(32_001)
            view = await next_view(socket)
            while view["players"][0]["out_reason"] != "timeout":
                view = await next_view(socket)
            assert view["turn"] == 2
        answer = await two.http.post(f"{ROOM}/move", json={"member": guest, "word": "đầu tiên"})
        assert answer.json()["result"]["accepted"]
        answer = await one.http.post(f"{ROOM}/give-up", json={"member": third})
        assert answer.json()["result"]["winner"] == 2


# --- B10 revised: limits, feeds, the bot's pace ------------------------------------------


async def test_rejoining_never_locks_a_player_out_and_a_refusal_says_when_to_retry(harness):
    # The lockout: rejoining about 12 times in 15 s answered 429 with no time to retry.
    await joined(harness, 1, 2)
    for _ in range(12):
        harness.clock.advance(1_250)
        await joined(harness, 1)
    for card in range(1, 10):  # nine more rooms: ten joins that count in the minute
        await joined(harness, 1, chat=-card, message=card)
    answer = await post(harness, "join", {"token": room_token(
        harness.container, harness.clock, 1, chat=-50, message=50)})
    assert answer.status_code == 429 and answer.headers["retry-after"] == "60"
    assert answer.json() == {
        "error": "too_fast", "message": "Chậm lại một chút nhé!", "retry_after_ms": 60_000,
    }


async def test_the_openapi_document_says_a_429_carries_retry_after_ms(harness):
    document = (await harness.client.get("/schema/openapi.json")).json()
    for route in ("join", "start", "move"):
        answer = document["paths"][f"{ROOM}/{route}"]["post"]["responses"]["429"]
        assert answer["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/LimitBody"
        }
        assert answer["headers"]["Retry-After"]["required"] is True
    limit = document["components"]["schemas"]["LimitBody"]
    assert set(limit["required"]) == {"error", "message", "retry_after_ms"}
    assert limit["properties"]["retry_after_ms"]["minimum"] == 1
    solo = document["paths"]["/games/noitu/api/start"]["post"]["responses"]["429"]
    assert solo["content"]["application/json"]["schema"]["$ref"].endswith("/LimitBody")
    arena = document["paths"]["/arena/api/rooms"]["post"]["responses"]["429"] if (
        "/arena/api/rooms" in document["paths"]) else None
    assert arena is None or arena["content"]["application/json"]["schema"]["$ref"].endswith(
        "/ErrorBody")


async def until_closed(socket) -> list[dict]:
    """Every message until the server closes the socket."""
    messages = []
    with contextlib.suppress(Exception):
        async for message in socket:
            messages.append(json.loads(message))
    return messages


async def test_a_replaced_credential_s_feeds_get_replaced_and_close(clock):
    container = server_container(clock=clock)
    async with serving(container) as served:
        old = await join_over(served.http, container, clock, 1)
        await join_over(served.http, container, clock, 2)
        async with connect(f"{served.ws_base}{ROOM}/feed?member={old}") as socket:
            assert (await next_view(socket))["you"] == 1
            events = event_views(served.http, old)
            assert (await asyncio.wait_for(anext(events), 5))["you"] == 1
            new = await join_over(served.http, container, clock, 1)  # the page opened elsewhere
            assert await asyncio.wait_for(until_closed(socket), 5) == [{"replaced": True}]
            assert socket.close_code == 1000
            streamed = [view async for view in events]  # the stream ends after it
            assert streamed == [{"replaced": True}]
        async with connect(f"{served.ws_base}{ROOM}/feed?member={new}") as socket:
            assert (await next_view(socket))["you"] == 1


async def test_a_third_feed_on_one_credential_closes_the_oldest(clock):
    container = server_container(clock=clock)
    async with serving(container) as served:
        member = await join_over(served.http, container, clock, 1)
        url = f"{served.ws_base}{ROOM}/feed?member={member}"
        async with connect(url) as first, connect(url) as second:
            await next_view(first)
            await next_view(second)
            async with connect(url) as third:
                await next_view(third)
                assert await asyncio.wait_for(until_closed(first), 5) == [{"replaced": True}]
                await served.http.post(f"{ROOM}/add-bot", json={"member": member, "level": "easy"})
                for socket in (second, third):  # both still open
                    while (await next_view(socket))["bot"] != "easy":
                        pass


async def test_a_refused_word_sends_nothing_on_the_feeds(clock):
    container = server_container(clock=clock)
    async with serving(container) as served:
        host = await join_over(served.http, container, clock, 1)
        guest = await join_over(served.http, container, clock, 2)
        await served.http.post(f"{ROOM}/start", json={"member": host})
        async with connect(f"{served.ws_base}{ROOM}/feed?member={guest}") as socket:
            assert (await next_view(socket))["status"] == "playing"
            clock.advance(1_000)
            refused = await served.http.post(f"{ROOM}/move",
                                              json={"member": host, "word": "sinh viên"})
            assert refused.json()["result"]["reason"] == "wrong_link"
            with pytest.raises(TimeoutError):
                await next_view(socket, 0.6)
            clock.advance(1_000)
            await served.http.post(f"{ROOM}/move", json={"member": host, "word": "đầu tiên"})
            assert (await next_view(socket))["chain"][-1]["word"] == "đầu tiên"


async def test_the_bot_seat_shows_its_turn_then_plays_after_a_pause(clock):
    container = server_container(clock=clock)
    async with serving(container) as served:
        host = await join_over(served.http, container, clock, 1)
        await join_over(served.http, container, clock, 2)
        await served.http.post(f"{ROOM}/add-bot", json={"member": host, "level": "medium"})
        await served.http.post(f"{ROOM}/start", json={"member": host})
        clock.advance(1_000)
        await served.http.post(f"{ROOM}/move", json={"member": host, "word": "đầu tiên"})
        clock.advance(1_000)
        guest = await join_over(served.http, container, clock, 2)
        answer = await served.http.post(f"{ROOM}/move", json={"member": guest, "word": "tiên sinh"})
        state = answer.json()["state"]
        assert state["turn"] == 3 and state["chain"][-1]["word"] == "tiên sinh"
        async with connect(f"{served.ws_base}{ROOM}/feed?member={host}") as socket:
            shown = await next_view(socket)
            assert shown["turn"] == 3 and len(shown["chain"]) == 3  # its turn, no word yet
            with pytest.raises(TimeoutError):
                await next_view(socket, 0.7)  # the server's clock has not moved
            clock.advance(2_000)
            played = await next_view(socket)
            bot_word = played["chain"][-1]
            assert (bot_word["seat"], bot_word["name"], played["turn"]) == (3, "Bot (vừa)", 1)
            # Its turn began at the guest's word; its own began when the bot's was due.
            assert played["deadline_ms"] - state["deadline_ms"] in range(1_000, 2_001)


@contextlib.asynccontextmanager
async def serving_as_serve(container: Container) -> AsyncIterator[Any]:
    """The app on uvicorn in this loop with `noitu serve`'s WebSocket protocol."""
    from noitu.adapters.http.fast_paths import ClosingWebSocketsProtocol

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(
        create_app(container), host="127.0.0.1", port=port, lifespan="on", log_config=None,
        access_log=False, ws=ClosingWebSocketsProtocol,
    ))
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
            yield http, f"ws://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 30)


async def test_a_closed_feed_leaves_nothing_for_the_garbage_collector(clock):
    """A closed feed's connection was kept by two reference cycles until a full garbage
    collection, which `noitu serve` makes rare: litestar's WebSocket refers to itself
    through its receive/send wrappers, and websockets' connection to its parser, a
    generator uvicorn leaves suspended (with the permessage-deflate zlib state). Both are
    broken when the socket closes: nothing of the closed feeds is left to collect."""
    from litestar.connection import Request, WebSocket
    from websockets.server import ServerProtocol

    kinds = (WebSocket, Request, ServerProtocol)  # the server's side alone
    container = server_container(clock=clock)
    async with serving_as_serve(container) as (http, ws_base):
        member = await join_over(http, container, clock, 1)
        for _ in range(2):  # anything made once per process is made now
            await http.get(f"{ROOM}/feed", params={"member": "0" * 32})
        gc.collect()
        gc.disable()  # as rare as `noitu serve` makes full passes: none meanwhile
        try:
            for _ in range(3):
                async with connect(f"{ws_base}{ROOM}/feed?member={member}") as socket:
                    await next_view(socket)
            events = event_views(http, member)
            await asyncio.wait_for(anext(events), 5)
            await events.aclose()
            pages = container.group_pages()
            for _ in range(200):
                if len(pages) == 0:
                    break
                await asyncio.sleep(0.01)
            assert len(pages) == 0
            await asyncio.sleep(0.1)
            # Without a collection, whatever a reference cycle holds is still there.
            kept = sorted({type(o).__name__ for o in gc.get_objects() if issubclass(type(o), kinds)})
        finally:
            gc.enable()
    assert kept == []
