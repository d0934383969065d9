"""The README's run command, for real: `noitu serve` with no bot token prints a link,
and a game plays to the end over plain HTTP."""

from __future__ import annotations

import re
import subprocess

import httpx
import pytest

from support.dictionaries import LITTLE, write
from support.process import NOITU, ServerProcess


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One server for the module's tests of its printed links: each link names a game
    message of its own (the solo game, the room card, the daily game), so the tests
    share nothing but the process, whose start is most of their time."""
    folder = tmp_path_factory.mktemp("local-play")
    process = ServerProcess(
        {"NOITU_DICTIONARY": write(folder, LITTLE), "NOITU_LOG_FORMAT": "json"},
        folder / "server.log",
    )
    yield process.start()
    process.stop()


def test_local_play_prints_a_link_that_plays_a_game(server):
    link = re.search(r"http://127\.0\.0\.1:\d+/games/noitu/\?t=(\S+)", server.output())
    assert link, server.output()
    # Both games' links, the arena's too (it needs no token).
    arena = re.search(r"http://127\.0\.0\.1:\d+/arena/\s", server.output())
    assert arena, server.output()
    token = link.group(1)
    with httpx.Client(base_url=server.base, timeout=5) as client:
        page = client.get("/games/noitu/")
        assert page.status_code == 200 and "<html" in page.text
        start = client.post("/games/noitu/api/start", json={"token": token})
        assert start.status_code == 200
        state = start.json()
        assert state["current"] == "đầu"
        move = client.post("/games/noitu/api/move", json={"session": state["session"], "word": "đầu óc"})
        body = move.json()
        assert body["state"]["status"] == "won"
        assert body["state"]["end_reason"] == "bot_stuck"
        client.get(f"/games/noitu/?t={token}")
    log_after_link = server.output().split(token, 1)[1]
    # The link is printed once; the request log names paths, never the token.
    assert token not in log_after_link
    assert '"path": "/games/noitu/api/move"' in log_after_link or '"path":"/games/noitu/api/move"' in log_after_link


def test_token_command_signs_with_the_configured_secret(tmp_path):
    secret = "z" * 32
    env = {"NOITU_GAME_SECRET": secret, "NOITU_DICTIONARY": write(tmp_path, LITTLE)}
    printed = subprocess.run(
        [NOITU, "token", "--user", "5", "--name", "Minh", "--chat", "-100", "--message", "9"],
        env={**env, "PATH": "/usr/bin:/bin"}, capture_output=True, text=True, timeout=30,
    )
    assert printed.returncode == 0, printed.stderr
    server = ServerProcess(env, tmp_path / "server.log").start()
    try:
        response = httpx.post(
            f"{server.base}/games/noitu/api/start", json={"token": printed.stdout.strip()}, timeout=5
        )
        assert response.status_code == 200
        assert response.json()["player"] == "Minh"
    finally:
        server.stop()


def test_bad_settings_stop_the_server_with_one_line_each(tmp_path):
    result = subprocess.run(
        [NOITU, "serve"],
        env={"NOITU_PORT": "x", "NOITU_TURN_SECONDS": "0", "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=30,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert any("NOITU_PORT" in line for line in lines)
    assert any("NOITU_TURN_SECONDS" in line for line in lines)


def test_a_broken_dictionary_names_the_line(tmp_path):
    path = write(tmp_path, "mở đầu\nĐầu tiên\n")
    result = subprocess.run(
        [NOITU, "serve"], env={"NOITU_DICTIONARY": path, "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=30,
    )
    assert result.returncode == 2
    assert f"{path}:2" in result.stderr


def test_local_play_prints_a_room_link_per_fake_player(server):
    found = re.findall(r"Người chơi (\d): http://127\.0\.0\.1:\d+/games/noitu/\?t=(\S+)", server.output())
    assert [number for number, _ in found] == ["1", "2", "3"], server.output()
    with httpx.Client(base_url=server.base, timeout=5) as client:
        members = []
        for _, token in found:
            joined = client.post("/games/noitu/api/room/join", json={"token": token})
            assert joined.status_code == 200, joined.text
            members.append(joined.json()["member"])
        view = client.post("/games/noitu/api/room/start", json={"member": members[0]}).json()
        assert [p["name"] for p in view["players"]] == ["Người chơi 1", "Người chơi 2", "Người chơi 3"]
        assert view["status"] == "playing" and view["turn"] == 1


def test_local_play_prints_a_daily_link(server):
    found = re.search(r"nối từ hôm nay: http://127\.0\.0\.1:\d+/games/noitu/\?t=(\S+)", server.output())
    assert found, server.output()
    with httpx.Client(base_url=server.base, timeout=5) as client:
        view = client.post("/games/noitu/api/start", json={"token": found.group(1)}).json()
        assert view["day"] and view["status"] == "playing"
        # Played once a day: the same game again.
        again = client.post("/games/noitu/api/start", json={"token": found.group(1)}).json()
        assert again["session"] == view["session"]


def test_token_command_signs_a_room_link(tmp_path):
    import base64
    import json

    env = {"NOITU_GAME_SECRET": "z" * 32, "PATH": "/usr/bin:/bin"}
    printed = subprocess.run(
        [NOITU, "token", "--user", "5", "--chat", "-100", "--message", "9", "--room"],
        env=env, capture_output=True, text=True, timeout=30,
    )
    assert printed.returncode == 0, printed.stderr
    body = printed.stdout.strip().split(".")[0]
    assert json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))["r"] == 1
    refused = subprocess.run(
        [NOITU, "token", "--user", "5", "--inline", "abc", "--room"],
        env=env, capture_output=True, text=True, timeout=30,
    )
    assert refused.returncode == 2 and "--chat" in refused.stderr
    daily = subprocess.run(
        [NOITU, "token", "--user", "5", "--chat", "-100", "--message", "9", "--daily"],
        env=env, capture_output=True, text=True, timeout=30,
    )
    assert daily.returncode == 0, daily.stderr
    body = daily.stdout.strip().split(".")[0]
    assert json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))["d"] == 1
