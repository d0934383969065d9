"""`noitu serve` drives the ladder by default (spec B8), but only once someone asked: an
idle server with the built-in bots alone plays no ladder match; once an author uploads a
bot and ranks it, ladder matches show in the lobby's live list marked `ladder`, and the
table counts them, the new bot's among them; the server stops cleanly with a ladder
match running."""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from noitu.application.arena.ladder.play_ladder import TICK_MS
from support.arena_bots import BOTS, require
from support.arena_server import ROOMS
from support.arena_store import ProbedOnce
from support.process import ServerProcess

LADDER = "/arena/api/ladder"
KEY = {"X-Owner-Key": "d" * 32}


def test_an_idle_server_plays_ladder_matches_once_an_upload_is_ranked(
    tmp_path: Path, arena_probe: ProbedOnce
) -> None:
    require(arena_probe.status)
    env = {"MODULES": "arena", "NOITU_ACCESS_LOG": "0"}  # the ladder on by default
    env["NOITU_DATA_DIR"] = str(tmp_path / "data")
    server = ServerProcess(env, tmp_path / "serve.log").start()
    try:
        with httpx.Client(base_url=server.base, timeout=20) as http:
            # the built-ins alone: more than a tick of the driver, and nothing played
            quiet_until = time.monotonic() + 2 * TICK_MS / 1000
            while time.monotonic() < quiet_until:
                assert not any(room["ladder"] for room in http.get(ROOMS).json()["live"])
                time.sleep(0.25)
            assert not any(row["games"] for row in http.get(LADDER).json()["rows"])

            source = (BOTS / "a5_minimal.py").read_bytes()
            uploaded = http.post(
                "/arena/api/bots", headers=KEY,
                files={"file": ("a5_minimal.py", source, "text/x-python")},
            )
            assert uploaded.status_code == 201, uploaded.text
            bot = uploaded.json()["bot"]["id"]
            assert uploaded.json()["bot"]["build"] == "ok", uploaded.text
            ranked = http.put(f"{LADDER}/bots/{bot}", headers=KEY)
            assert ranked.status_code == 200, ranked.text

            seen_live = False
            rated: list[dict] = []
            deadline = time.monotonic() + 240
            while time.monotonic() < deadline and not (
                seen_live and any(row["botId"] == bot for row in rated)
            ):
                live = http.get(ROOMS).json()["live"]
                seen_live = seen_live or any(room["ladder"] for room in live)
                rated = [row for row in http.get(LADDER).json()["rows"] if row["games"]]
                time.sleep(0.5)
        assert seen_live, server.output()
        assert any(row["botId"] == bot for row in rated), server.output()
        assert sum(row["wins"] + row["draws"] + row["losses"] for row in rated) >= 2
    finally:
        server.stop()
    assert "ladder_pass_failed" not in server.output()
