"""Two real `noitu serve` processes on one Redis (NOITU_STORE=redis).

Every rule must hold across instances: a game played on both, concurrent moves on one
session, the session caps, an instance killed mid-game, a restart of both, and Redis
going away and coming back. The servers run in local play mode (no bot token), so a
finished game's score is "reported" to their log, where the test counts it.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from noitu.adapters.noitu.token_signer import HmacTokenSigner
from noitu.application.noitu.session import GameMessage, Ticket
from noitu.bench.redis_server import MISSING_REASON, REDIS_SERVER, RedisServer
from support.dictionaries import LITTLE, write
from support.process import NOITU, ServerProcess

pytestmark = [
    pytest.mark.redis,
    # CI installs redis-server; there a missing one must fail, not skip.
    pytest.mark.skipif(REDIS_SERVER is None and not os.environ.get("CI"), reason=MISSING_REASON),
]

SECRET = "two-instances-secret-0123456789abcdef"
API = "/games/noitu/api"
MAX_SESSIONS = 6
TURN_S = 5  # short enough to wait a turn out
GRACE_S = 0.5
MOVE_GAP_S = 0.31  # just over the 300 ms move limit


@dataclass
class Cluster:
    redis: RedisServer
    a: ServerProcess
    b: ServerProcess
    env: dict[str, str]
    marks: dict[int, int] = field(default_factory=dict)

    @property
    def instances(self) -> tuple[ServerProcess, ServerProcess]:
        return self.a, self.b

    def ensure_running(self) -> None:
        for server in self.instances:
            if server.process is None or server.process.poll() is not None:
                server.stop()
                server.start()

    def mark_logs(self) -> None:
        self.marks = {server.port: len(server.output()) for server in self.instances}

    def events(self, server: ServerProcess, name: str) -> list[dict[str, Any]]:
        """The JSON log events called `name` since the test began."""
        found = []
        for line in server.output()[self.marks.get(server.port, 0):].splitlines():
            if line.startswith("{"):
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if event.get("event") == name:
                    found.append(event)
        return found

    def all_events(self, name: str) -> list[dict[str, Any]]:
        return [e for server in self.instances for e in self.events(server, name)]


async def stop_all(servers) -> None:
    await asyncio.gather(*(asyncio.to_thread(server.stop) for server in servers))


async def start_all(servers) -> None:
    await asyncio.gather(*(asyncio.to_thread(server.start) for server in servers))


def cli_token(env: dict[str, str], user: int, message: int) -> str:
    """A game token from `noitu token`, signed with the servers' secret."""
    printed = subprocess.run(
        [NOITU, "token", "--user", str(user), "--chat", "1", "--message", str(message)],
        env=env, capture_output=True, text=True, timeout=30, check=False,
    )
    assert printed.returncode == 0, printed.stderr
    return printed.stdout.strip()


def quick_token(user: int, message: int) -> str:
    """The same kind of token, signed in-process (for the tests that need many)."""
    ticket = Ticket(
        user_id=user, first_name="", message=GameMessage(chat_id=1, message_id=message),
        expires_at=int(time.time()) + 3600,
    )
    return HmacTokenSigner(SECRET.encode()).issue(ticket)


@pytest.fixture(scope="module")
def module_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    root = Path(tmp_path_factory.mktemp("two-instances"))
    server = RedisServer(root / "redis")
    server.start()
    env = {
        "NOITU_STORE": "redis",
        "REDIS_URL": server.url,
        "NOITU_GAME_SECRET": SECRET,
        "NOITU_DICTIONARY": write(root, LITTLE),
        "NOITU_ACCESS_LOG": "0",
        "NOITU_LOG_FORMAT": "json",
        "NOITU_MAX_SESSIONS": str(MAX_SESSIONS),
        "NOITU_TURN_SECONDS": str(TURN_S),
        "NOITU_GRACE_SECONDS": str(GRACE_S),
        "TELEGRAM_BOT_TOKEN": "",
        "GAME_BASE_URL": "",
        "MODULES": "",
    }
    a = ServerProcess(dict(env), root / "a.log")
    b = ServerProcess(dict(env), root / "b.log")
    cluster = Cluster(server, a, b, env={**a.env})
    try:
        a.start()
        b.start()
        yield cluster
    finally:
        for instance in (a, b):
            instance.kill()
        server.kill()


@pytest.fixture
def cluster(module_cluster: Cluster) -> Cluster:
    if module_cluster.redis.process is None:
        module_cluster.redis.start()
    module_cluster.redis.resume()
    with redis.Redis.from_url(module_cluster.redis.url) as client:
        client.flushall()
    module_cluster.ensure_running()
    module_cluster.mark_logs()
    return module_cluster


@pytest.fixture
async def http() -> Any:
    async with httpx.AsyncClient(timeout=10) as client:
        yield client


async def post(http: httpx.AsyncClient, server: ServerProcess, route: str, body: Any) -> httpx.Response:
    return await http.post(f"{server.base}{API}/{route}", json=body)


async def start(http, server, token: str) -> dict[str, Any]:
    response = await post(http, server, "start", {"token": token})
    assert response.status_code == 200, response.text
    return response.json()


async def move(http, server, session: str, word: str) -> httpx.Response:
    await asyncio.sleep(MOVE_GAP_S)
    return await post(http, server, "move", {"session": session, "word": word})


def words(view: dict[str, Any]) -> list[str]:
    return [link["word"] for link in view["chain"]]


async def wait_for(condition, timeout_s: float = 5.0, every_s: float = 0.05) -> None:
    deadline = time.monotonic() + timeout_s
    while not await condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(every_s)


async def reported_once(cluster: Cluster, http, server, session: str) -> None:
    """The score went out exactly once, by one instance, and the view says so."""

    async def done() -> bool:
        view = (await post(http, server, "state", {"session": session})).json()
        return view["score_reported"] == "ok"

    await wait_for(done)
    await asyncio.sleep(0.2)  # room for a wrong second report to show up
    assert len(cluster.all_events("score")) == 1, cluster.all_events("score")


async def test_a_game_alternates_between_instances(cluster, http):
    a, b = cluster.instances
    state = await start(http, a, cli_token(cluster.env, user=1, message=1))
    assert words(state) == ["mở đầu"]
    session = state["session"]

    body = (await move(http, b, session, "đầu mối")).json()
    assert body["result"]["accepted"] and body["result"]["bot_word"] == "mối tình"
    seen_on_a = (await post(http, a, "state", {"session": session})).json()
    assert words(seen_on_a) == ["mở đầu", "đầu mối", "mối tình"]
    assert seen_on_a["deadline_ms"] == body["state"]["deadline_ms"]

    body = (await move(http, a, session, "tình yêu")).json()
    assert body["state"]["status"] == "won" and body["state"]["end_reason"] == "bot_stuck"
    assert body["state"]["score_reported"] == "pending"
    score = body["state"]["score"]
    assert score > 0
    again = await move(http, b, session, "yêu thương")
    assert again.status_code == 409 and again.json()["error"] == "game_over"
    await reported_once(cluster, http, b, session)
    assert cluster.all_events("score")[0]["score"] == score


async def test_concurrent_moves_on_one_session_apply_one_at_a_time(cluster, http):
    a, b = cluster.instances
    sessions = [(await start(http, a if u % 2 else b, quick_token(u, 1)))["session"] for u in range(10, 14)]
    await asyncio.sleep(MOVE_GAP_S)
    for word in ("đầu tiên", "sinh viên"):
        # Each session gets the same move from both instances at the same moment.
        answers = await asyncio.gather(*(
            post(http, server, "move", {"session": s, "word": word})
            for s in sessions for server in (a, b)
        ))
        for pair in zip(answers[::2], answers[1::2]):
            accepted = [r for r in pair if r.status_code == 200 and r.json()["result"]["accepted"]]
            assert len(accepted) == 1, [r.text for r in pair]
            other = next(r for r in pair if r is not accepted[0])
            # The loser waited for the winner and then saw the 300 ms limit (or, if it
            # came later, the word already played).
            assert other.status_code == 429 or other.json()["result"]["reason"] in (
                "already_used", "wrong_link",
            ), other.text
        await asyncio.sleep(MOVE_GAP_S)
    for session in sessions:
        views = [(await post(http, s, "state", {"session": session})).json() for s in (a, b)]
        # Exactly one player word and one bot reply per turn, the same on both.
        assert words(views[0]) == words(views[1]) == [
            "mở đầu", "đầu tiên", "tiên sinh", "sinh viên", "viên chức",
        ]


async def test_the_session_caps_hold_across_instances(cluster, http):
    a, b = cluster.instances
    # One user starts on five messages at once through both instances: 3 stay live.
    answers = await asyncio.gather(*(
        post(http, a if m % 2 else b, "start", {"token": quick_token(500, m)}) for m in range(1, 6)
    ))
    assert [r.status_code for r in answers] == [200] * 5
    views = [
        (await post(http, a, "state", {"session": r.json()["session"]})).json() for r in answers
    ]
    assert sum(v["status"] == "playing" for v in views) == 3
    assert sum(v["end_reason"] == "gave_up" for v in views) == 2

    # Ten other users at once: only the 3 slots left under the cap of 6 are given.
    answers = await asyncio.gather(*(
        post(http, a if u % 2 else b, "start", {"token": quick_token(u, 1)}) for u in range(600, 610)
    ))
    codes = sorted(r.status_code for r in answers)
    assert codes == [200] * (MAX_SESSIONS - 3) + [503] * (10 - MAX_SESSIONS + 3)
    busy = next(r for r in answers if r.status_code == 503).json()
    assert busy["error"] == "busy" and busy["message"]

    # Ten starts a minute per user, counted across instances: user 500 has 5 left.
    codes = []
    for m in range(10, 20):
        token = quick_token(500, m)
        codes.append((await post(http, a if m % 2 else b, "start", {"token": token})).status_code)
    assert codes == [200] * 5 + [429] * 5


async def test_a_killed_instance_leaves_the_game_to_the_other(cluster, http):
    a, b = cluster.instances
    state = await start(http, a, quick_token(20, 1))
    session = state["session"]
    assert (await move(http, a, session, "đầu mối")).json()["result"]["accepted"]
    a.kill()
    body = (await move(http, b, session, "tình yêu")).json()
    assert body["result"]["accepted"]
    assert body["state"]["status"] == "won"
    assert words(body["state"]) == ["mở đầu", "đầu mối", "mối tình", "tình yêu"]
    await reported_once(cluster, http, b, session)


async def test_a_restart_of_both_keeps_the_game_and_settles_a_turn_that_ran_out(cluster, http):
    a, b = cluster.instances
    session = (await start(http, a, quick_token(30, 1)))["session"]
    before = (await move(http, b, session, "đầu tiên")).json()["state"]
    assert before["score"] > 0
    ran_out_ms = before["deadline_ms"] + GRACE_S * 1000

    await stop_all((a, b))
    await start_all((a, b))
    view = (await post(http, b, "state", {"session": session})).json()
    assert words(view) == ["mở đầu", "đầu tiên", "tiên sinh"]
    assert view["score"] == before["score"]
    if view["status"] == "playing":  # the restart was quicker than a turn (the usual case)
        assert view["deadline_ms"] == before["deadline_ms"]
        assert view["server_now_ms"] <= ran_out_ms
        # Now nobody serves while the turn runs out.
        await stop_all((a, b))
        await asyncio.sleep(max(ran_out_ms / 1000 - time.time() + 0.1, 0))
        await start_all((a, b))
        view = (await post(http, a, "state", {"session": session})).json()
    # The clock is absolute: the turn is settled as soon as an instance sees the game
    # again, as a timeout, and its score is reported once.
    assert view["server_now_ms"] > ran_out_ms
    assert (view["status"], view["end_reason"]) == ("lost", "timeout")
    assert [s["word"] for s in view["suggestions"]] == ["sinh viên"]
    await reported_once(cluster, http, b, session)


async def test_redis_going_away_answers_busy_then_recovers(cluster, http):
    a, b = cluster.instances
    session = (await start(http, a, quick_token(40, 1)))["session"]
    assert (await move(http, b, session, "đầu mối")).json()["result"]["accepted"]

    cluster.redis.stop(save=True)  # keeps the data, like a Redis with persistence
    for _ in range(3):
        for server in (a, b):
            started = time.monotonic()
            response = await post(http, server, "state", {"session": session})
            assert time.monotonic() - started < 2.5
            assert response.status_code == 503
            assert response.json()["error"] == "busy" and response.json()["message"]
    fresh = await post(http, b, "start", {"token": quick_token(41, 1)})
    assert fresh.status_code == 503 and fresh.json()["error"] == "busy"

    cluster.redis.start()
    for server in (a, b):
        view = (await post(http, server, "state", {"session": session})).json()
        assert words(view) == ["mở đầu", "đầu mối", "mối tình"] and view["status"] == "playing"
    body = (await move(http, a, session, "tình yêu")).json()
    assert body["state"]["end_reason"] == "bot_stuck"
    # One line when Redis went away and one when it came back, per instance.
    for server in (a, b):
        assert len(cluster.events(server, "redis_unavailable")) == 1
        assert len(cluster.events(server, "redis_recovered")) == 1

    # A frozen Redis (connections open, no answers) is busy within the socket timeout.
    cluster.redis.pause()
    try:
        started = time.monotonic()
        response = await post(http, a, "state", {"session": session})
        assert response.status_code == 503
        assert time.monotonic() - started < 2.5
    finally:
        cluster.redis.resume()

    async def answers_again() -> bool:
        return (await post(http, a, "state", {"session": session})).status_code == 200

    await wait_for(answers_again, timeout_s=8)


def daily_token(user: int, message: int) -> str:
    """A daily game's link (B13) for a player on one game message."""
    ticket = Ticket(
        user_id=user, first_name="", message=GameMessage(chat_id=1, message_id=message),
        expires_at=int(time.time()) + 3600, daily=True,
    )
    return HmacTokenSigner(SECRET.encode()).issue(ticket)


async def test_the_daily_game_is_the_same_on_both_and_played_once_a_day(cluster, http):
    a, b = cluster.instances
    mine = await start(http, a, daily_token(21, 1))
    theirs = await start(http, b, daily_token(22, 2))
    assert mine["day"] and mine["day"] == theirs["day"]
    assert words(mine) == words(theirs)
    for word in ("đầu mối", "tình yêu"):
        played = (await move(http, a, mine["session"], word)).json()
        answered = (await move(http, b, theirs["session"], word)).json()
        assert played["result"]["bot_word"] == answered["result"]["bot_word"]
        assert words(played["state"]) == words(answered["state"])
    ended = played["state"]
    assert ended["status"] == "won" and ended["score"] > 0
    # A second start the same day, on the other instance and another game message:
    # the finished game.
    again = await start(http, b, daily_token(21, 3))
    assert (again["session"], again["status"], again["score"]) == (
        mine["session"], "won", ended["score"],
    )
    assert words(again) == words(ended)
    # Once the session store has let it go, the daily store still has it.
    with redis.Redis.from_url(cluster.redis.url) as client:
        assert client.delete(*client.keys(f"*s:{mine['session']}")) == 1
    later = await start(http, a, daily_token(21, 1))
    assert later["session"] == mine["session"] and words(later) == words(ended)
    daily = (await post(http, a, "daily", {"session": later["session"]})).json()
    assert daily["status"] == "ready" and daily["streak"] == 1
    assert daily["share"].endswith(f"· 2 từ · {ended['score']} điểm · 1 ngày liền")
