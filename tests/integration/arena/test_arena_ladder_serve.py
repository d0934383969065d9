"""`noitu serve` with NOITU_ARENA_LADDER=1 drives the ladder (spec B8): on an idle
server its matches between the built-in bots show in the lobby's live list marked
`ladder`, and once one ends the table counts it; the server stops cleanly with a ladder
match running."""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from support.arena_bots import require
from support.arena_server import ROOMS
from support.arena_store import ProbedOnce
from support.process import ServerProcess

LADDER = "/arena/api/ladder"


def test_an_idle_server_plays_and_rates_ladder_matches(
    tmp_path: Path, arena_probe: ProbedOnce
) -> None:
    require(arena_probe.status)
    env = {"MODULES": "arena", "NOITU_ACCESS_LOG": "0", "NOITU_ARENA_LADDER": "1"}
    env["NOITU_DATA_DIR"] = str(tmp_path / "data")
    server = ServerProcess(env, tmp_path / "serve.log").start()
    try:
        seen_live = False
        rated: list[dict] = []
        with httpx.Client(base_url=server.base, timeout=20) as http:
            deadline = time.monotonic() + 240
            while time.monotonic() < deadline and not (seen_live and rated):
                live = http.get(ROOMS).json()["live"]
                seen_live = seen_live or any(room["ladder"] for room in live)
                rated = [row for row in http.get(LADDER).json()["rows"] if row["games"]]
                time.sleep(0.5)
        assert seen_live, server.output()
        assert rated, server.output()
        assert all(row["builtin"] for row in rated)
        assert sum(row["wins"] + row["draws"] + row["losses"] for row in rated) >= 2
    finally:
        server.stop()
    assert "ladder_pass_failed" not in server.output()
