"""`noitu arena match` and `noitu arena check` as an author runs them: real processes,
the real sandbox of this machine, the replay file of B4, the verdicts of A7."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.arena_bots import BOTS, probe_now, require

ROOT = Path(__file__).resolve().parents[3]
NOITU = [sys.executable, "-m", "noitu.entrypoints.cli"]


@pytest.fixture(scope="module", autouse=True)
def sandbox_works() -> None:
    status, _ = probe_now()
    require(status)


def noitu(*args: str, timeout: float = 240, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NOITU_CACHE_DIR": str(ROOT / "test-artifacts" / "arena-cache")}
    return subprocess.run(
        [*NOITU, *args], capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd or ROOT,
    )


def read_replay(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_a5_minimal_bot_plays_a_whole_match_in_the_sandbox(tmp_path):
    replay = tmp_path / "match.jsonl"
    done = noitu("arena", "match", str(BOTS / "a5_minimal.py"), "builtin:tactical",
                 "--seed", "7", "--replay", str(replay), "--quiet")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["replay"] == str(replay) and result["failure"] is None
    assert result["reason"] in ("BASE_CAPTURED", "NO_PIECES", "TURN_LIMIT")

    events = read_replay(replay)
    setup, end = events[0], events[-1]
    assert (setup["event"], setup["seed"], setup["turnLimit"]) == ("setup", 7, 200)
    assert [p["kind"] for p in setup["players"]] == ["upload", "builtin"]
    assert end == {"event": "end", **{k: result[k] for k in ("winner", "reason", "turns", "failure")}}
    sent = [e for e in events if e["event"] == "sent"]
    applied = [e for e in events if e["event"] == "applied"]
    assert len(applied) == result["turns"] == len(sent)
    assert [e["sequence"] for e in sent[:3]] == [40, 41, 42]
    # Each request line is exactly what the bot was sent: it parses, and names the turn.
    first = json.loads(sent[0]["line"])
    assert (first["type"], first["player"], first["turn"]) == ("YOUR_TURN", "P1", 0)
    received = [e for e in events if e["event"] == "received"]
    assert all(isinstance(e["ms"], int) and e["ms"] >= 0 for e in received)
    # The same seed places the same pieces.
    again = tmp_path / "again.jsonl"
    assert noitu("arena", "match", "builtin:random", "builtin:random", "--seed", "7",
                 "--replay", str(again), "--quiet", "--turn-limit", "3").returncode == 0
    assert read_replay(again)[0]["pieces"] == setup["pieces"]


def test_a_bot_that_does_not_compile_loses_the_match_with_its_messages(tmp_path):
    done = noitu("arena", "match", "builtin:random", str(BOTS / "syntax_error.py"),
                 "--seed", "1", "--replay", str(tmp_path / "r.jsonl"), "--quiet")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert (result["winner"], result["reason"], result["turns"]) == ("P1", "BOT_FAILED", 0)
    assert (result["failure"]["player"], result["failure"]["code"]) == ("P2", "COMPILE_ERROR")
    assert "SyntaxError" in done.stderr
    assert [e["event"] for e in read_replay(tmp_path / "r.jsonl")] == ["setup", "end"]


def test_a_bot_that_greets_before_its_turn_loses_with_extra_output(tmp_path):
    # P2 starts with P1 and prints while P1 thinks for a second on its first turn:
    # output before its own request (B2), however busy the machine is.
    done = noitu("arena", "match", str(BOTS / "slow_first_turn.py"), str(BOTS / "chatty_start.py"),
                 "--replay", str(tmp_path / "r.jsonl"), "--quiet")
    assert done.returncode == 0
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert (result["winner"], result["failure"]["player"]) == ("P1", "P2")
    assert result["failure"]["code"] == "EXTRA_OUTPUT"


@pytest.mark.parametrize(
    "args",
    [
        ("arena", "match", "builtin:nobody", "builtin:random"),
        ("arena", "match", "bot.rb", "builtin:random"),
        ("arena", "match", "missing.py", "builtin:random"),
        ("arena", "match", "builtin:random", "builtin:random", "--turn-limit", "0"),
        ("arena", "check", "builtin:random"),
    ],
)
def test_usage_errors_exit_2_with_one_line(args):
    done = noitu(*args)
    assert done.returncode == 2
    assert done.stderr.startswith(("noitu arena:", "usage:"))


def test_check_passes_the_sample_and_names_each_failure_of_a_bad_bot():
    good = noitu("arena", "check", "assets/bot-examples/minimal.py", "--turn-limit", "20")
    assert good.returncode == 0, good.stdout + good.stderr
    lines = good.stdout.strip().splitlines()
    assert len(lines) == 12 and all(line.startswith("ĐẠT") for line in lines[:-1])

    # A bot that answers one request and exits passes every single request and fails
    # both whole matches on its second turn.
    once = noitu("arena", "check", str(BOTS / "answers_once.py"), "--turn-limit", "20")
    assert once.returncode == 1
    failed = [line for line in once.stdout.splitlines() if line.startswith("LỖI")]
    assert len(failed) == 2 and all("Cả một trận" in l and "EXITED" in l for l in failed)


def test_the_repository_samples_verify():
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "verify-bot-examples.py"), "--turn-limit", "20"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "every sample passes" in done.stdout and "FAIL" not in done.stdout
    for sample in ("minimal.py", "minimal.cpp", "Main.java", "tactical.py", "sample.jar"):
        assert sample in done.stdout


@pytest.mark.parametrize("sample", ["minimal.cpp", "Main.java"])
def test_a_compiled_sample_plays_builtin_random_in_the_sandbox(sample, tmp_path):
    replay = tmp_path / "r.jsonl"
    done = noitu("arena", "match", f"assets/bot-examples/{sample}", "builtin:random",
                 "--seed", "11", "--replay", str(replay), "--quiet")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["failure"] is None and result["turns"] >= 1
    events = read_replay(replay)
    assert events[0]["players"][0] == {"id": "P1", "name": sample, "kind": "upload"}
    # Every reply of the sample is the first legal action it was sent, verbatim.
    sent = {e["sequence"]: json.loads(e["line"]) for e in events if e["event"] == "sent"}
    for e in events:
        if e["event"] == "received" and e["player"] == "P1":
            reply = json.loads(e["line"])
            assert reply["type"] == "ACTION"
            assert reply["action"] == sent[reply["sequence"]]["legalActions"][0]
