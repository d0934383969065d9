"""`noitu arena match` and `noitu arena check` as an author runs them: real processes,
the real sandbox of this machine, the replay file of B4, the verdicts of A7."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.arena_bots import BOTS, probe_now, require

ROOT = Path(__file__).resolve().parents[3]
NOITU = [sys.executable, "-m", "noitu.entrypoints.cli"]


@pytest.fixture(scope="module", autouse=True)
def sandbox_works() -> None:
    status, _ = probe_now()
    require(status)


def noitu(
    *args: str, timeout: float = 240, cwd: Path | None = None, **env_vars: str
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NOITU_CACHE_DIR": str(ROOT / "test-artifacts" / "arena-cache"), **env_vars}
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
    assert "bot.py" not in done.stderr.replace("syntax_error.py", "")  # the author's file name
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
    # Progress: each case said on stderr as it starts, and its time in its verdict.
    started = [line for line in good.stderr.splitlines() if line.startswith("CHẠY ")]
    assert len(started) == 11 and started[-1].endswith("bot là P2 (tối đa 20 lượt)…"), good.stderr
    assert all(re.search(r" · \d+,\d giây$", line) for line in lines[:-1]), lines

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


def last_json(done: subprocess.CompletedProcess[str]) -> dict:
    return json.loads(done.stdout.strip().splitlines()[-1])


# A letter with a Vietnamese diacritic: every Vietnamese sentence has some.
VIETNAMESE = re.compile("[àáâãèéêìíòóôõùúýăđĩũơưÀÁÂÃÈÉÊÌÍÒÓÔÕÙÚÝĂĐĨŨƠƯ\u1ea0-\u1ef9]")


def authors_lines(text: str) -> list[str]:
    """The CLI's own messages to the author (not quoted tool output)."""
    return [line for line in text.splitlines() if line.startswith("noitu arena:")]


@pytest.fixture
def own_tmp() -> Iterator[Path]:
    """A TMPDIR of the test's own that the sandbox's user may pass through (pytest's
    tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="test-cli-tmpdir-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize("cache", ["default", "off"])
def test_a_match_leaves_nothing_in_the_temporary_directory(cache, own_tmp, tmp_path):
    env = {"TMPDIR": str(own_tmp)}
    if cache == "off":
        env["NOITU_CACHE_DIR"] = "off"
    done = noitu("arena", "match", str(BOTS / "a5_minimal.py"), "builtin:random", "--seed", "2",
                 "--turn-limit", "4", "--replay", str(tmp_path / "r.jsonl"), "--quiet", **env)
    assert done.returncode == 0, done.stderr
    assert list(own_tmp.iterdir()) == []


def test_stderr_goes_to_a_file_per_side_and_shows_live_between_the_turns(tmp_path):
    done = noitu("arena", "match", str(BOTS / "a5_minimal.py"), "builtin:random", "--seed", "4",
                 "--turn-limit", "6", "--replay", str(tmp_path / "r.jsonl"),
                 "--stderr", str(tmp_path / "err"), "--show-stderr")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "err" / "P1.stderr.txt").read_text() == "turn 0\nturn 2\nturn 4\n"
    assert (tmp_path / "err" / "P2.stderr.txt").read_text() == ""
    lines = done.stderr.splitlines()
    assert [line for line in lines if line.startswith("[P1 stderr]")] == [
        "[P1 stderr] turn 0", "[P1 stderr] turn 2", "[P1 stderr] turn 4",
    ]
    # The bot writes "turn 2" once asked for turn 2, which is after turn 1 was played.
    assert lines.index("[P1 stderr] turn 2") > next(
        i for i, line in enumerate(lines) if line.startswith("[lượt 1] P2:")
    )
    assert len([line for line in lines if line.startswith("[lượt ")]) == 6
    # The last line on stdout stays B7's single JSON object.
    assert done.stdout.count("\n") == 1 and last_json(done)["turns"] == 6


def test_piped_progress_is_one_line_a_match(tmp_path):
    done = noitu("arena", "match", "builtin:random", "builtin:random", "--seed", "4",
                 "--turn-limit", "30", "--replay", str(tmp_path / "r.jsonl"))
    assert done.returncode == 0, done.stderr
    assert "\r" not in done.stderr
    assert len([line for line in done.stderr.splitlines() if " xong: " in line]) == 1


def test_check_prints_the_stderr_of_every_failing_case():
    done = noitu("arena", "check", str(BOTS / "crashes_on_turn_3.py"), "--turn-limit", "20")
    assert done.returncode == 1
    failed = [i for i, line in enumerate(done.stdout.splitlines()) if line.startswith("LỖI")]
    assert len(failed) == 2
    for part in done.stdout.split("\nLỖI")[1:]:
        assert "EXITED" in part.splitlines()[0]
        assert "Traceback (most recent call last)" in part
        assert re.search(r"ValueError: boom at turn [34]$", part, re.MULTILINE)
        assert re.search(r"thinking about turn [34]$", part, re.MULTILINE)


def test_check_stops_at_a_bot_that_never_ends_its_line_and_says_what_to_check():
    done = noitu("arena", "check", str(BOTS / "no_newline.py"), "--turn-limit", "20")
    assert done.returncode == 1
    lines = done.stdout.strip().splitlines()
    verdicts = [line for line in lines if line.startswith(("ĐẠT", "LỖI"))]
    assert len(verdicts) == 2 and verdicts[1].startswith("LỖI") and "TIMEOUT" in verdicts[1]
    hint = next(line for line in lines if line.strip().startswith("→"))
    assert "flush" in hint and "xuống dòng" in hint and "bỏ qua" in hint


def test_a_series_sums_up_each_bot_and_ends_with_one_json_line(tmp_path):
    args = ("arena", "match", str(BOTS / "answers_once.py"), "builtin:random", "--games", "3",
            "--swap-sides", "--jobs", "2", "--seed", "40", "--turn-limit", "10",
            "--stderr", str(tmp_path / "err"))
    done = noitu(*args)
    assert done.returncode == 0, done.stderr
    summary = last_json(done)
    assert (summary["games"], summary["seed"], summary["swapSides"]) == (3, 40, True)
    mine, theirs = summary["bots"]
    assert (mine["name"], theirs["name"]) == ("answers_once.py", "random")
    # It answers one request and exits: every game is lost on its second turn.
    assert (mine["wins"], mine["draws"], mine["losses"]) == (0, 0, 3)
    assert mine["asP1"]["games"] == 2 and mine["asP2"]["games"] == 1
    assert mine["reasons"]["loss"] == {"BOT_FAILED": 3}
    assert mine["replyMs"]["count"] == 3 and mine["replyMs"]["max"] >= mine["replyMs"]["p50"] >= 0
    assert [(f["game"], f["seed"], f["side"], f["code"]) for f in mine["failures"]] == [
        (1, 40, "P1", "EXITED"), (2, 40, "P2", "EXITED"), (3, 41, "P1", "EXITED"),
    ]
    assert theirs["wins"] == 3 and theirs["failures"] == []
    assert f"noitu arena match builtin:random {BOTS / 'answers_once.py'} --seed 40" in done.stdout
    # The first bot against the second, as the version check (B11) says it.
    assert (summary["comparison"]["rate"], summary["comparison"]["verdict"]) == (0, "unclear")
    assert (
        f"{BOTS / 'answers_once.py'} so với builtin:random: 0 thắng, 0 hoà, 3 thua — 0% (0–56%):"
        " chưa rõ (cần từ 10 ván)"
    ) in done.stdout.splitlines()
    assert sorted(p.name for p in (tmp_path / "err").iterdir()) == [
        f"game-00{n}-{side}.stderr.txt" for n in (1, 2, 3) for side in ("P1", "P2")
    ]
    # Piped, each game is one line of progress; the same seed plays the same games.
    assert len([line for line in done.stderr.splitlines() if line.startswith("noitu arena: ván ")]) == 3
    # (The turn of an exit depends on when it is noticed: not compared.)
    again = last_json(noitu(*args[:-2]))

    def games(series: dict) -> list:
        return [(b["wins"], b["asP1"], [(f["game"], f["seed"], f["side"], f["code"])
                                        for f in b["failures"]]) for b in series["bots"]]

    assert games(again) == games(summary)


def test_replay_requests_shows_where_a_build_answers_differently(tmp_path):
    """Spec B12: one side's recorded requests go to a bot in the sandbox; per turn where
    it answers otherwise a line, then how many; a failure stops the run (exit 1); a
    replay without request lines (ABANDONED) is refused (exit 2)."""
    replay = tmp_path / "r.jsonl"
    made = noitu("arena", "match", "assets/bot-examples/minimal.py", "builtin:random",
                 "--seed", "3", "--turn-limit", "20", "--replay", str(replay), "--quiet")
    assert made.returncode == 0, made.stderr
    same = noitu("arena", "replay-requests", str(replay), "--side", "P1",
                 "assets/bot-examples/minimal.py")
    assert same.returncode == 0, same.stderr
    assert same.stdout.splitlines() == ["Giống hệt ở cả 10 lượt."]
    assert "gửi lại 10 yêu cầu của P1 trong r.jsonl" in same.stderr

    # P2 was builtin:random; the minimal sample always takes the first legal action.
    other = noitu("arena", "replay-requests", str(replay), "--side", "P2",
                  "assets/bot-examples/minimal.py")
    assert other.returncode == 0, other.stderr
    *turns, summary = other.stdout.splitlines()
    assert summary == f"Khác nhau ở {len(turns)}/10 lượt." and turns
    assert all(line.startswith("lượt ") and " · bây giờ P2-" in line and line.endswith(" ms")
               for line in turns)

    once = noitu("arena", "replay-requests", str(replay), "--side", "P1",
                 str(BOTS / "answers_once.py"))
    assert once.returncode == 1
    assert once.stdout.splitlines()[-1].startswith("Dừng ở lượt 2 (sequence ")
    assert "vì EXITED" in once.stdout

    journaled = tmp_path / "abandoned.jsonl"
    kept = [line for line in replay.read_text().splitlines() if '"event":"sent"' not in line]
    journaled.write_text("\n".join(kept) + "\n")
    refused = noitu("arena", "replay-requests", str(journaled), "--side", "P1",
                    "assets/bot-examples/minimal.py")
    assert refused.returncode == 2 and "ABANDONED" in refused.stderr


def test_a_build_of_identical_source_is_reused(tmp_path):
    cache = str(tmp_path / "cache")
    args = ("arena", "match", "assets/bot-examples/minimal.cpp", "builtin:random", "--seed", "1",
            "--turn-limit", "2", "--replay", str(tmp_path / "r.jsonl"), "--quiet")
    first = noitu(*args, NOITU_CACHE_DIR=cache)
    second = noitu(*args, NOITU_CACHE_DIR=cache)
    fresh = noitu(*args, "--no-build-cache", NOITU_CACHE_DIR=cache)
    assert first.returncode == second.returncode == fresh.returncode == 0
    assert "dùng lại bản đã biên dịch" not in first.stderr
    assert "dùng lại bản đã biên dịch" in second.stderr
    assert "dùng lại bản đã biên dịch" not in fresh.stderr
    assert last_json(second)["failure"] is None


@pytest.mark.parametrize(
    "args",
    [
        ("arena", "match", "builtin:random", str(BOTS / "syntax_error.py"), "--turn-limit", "2"),
        ("arena", "match", "builtin:random", "builtin:random", "--turn-limit", "2", "--no-sandbox"),
        ("arena", "match", "builtin:nobody", "builtin:random"),
        ("arena", "match", "builtin:random", "builtin:random", "--games", "0"),
        ("arena", "check", "builtin:random"),
    ],
)
def test_every_message_for_the_author_is_vietnamese(args, own_tmp):
    done = noitu(*args, TMPDIR=str(own_tmp))
    lines = authors_lines(done.stderr)
    assert lines and all(VIETNAMESE.search(line) for line in lines), lines
    assert "did not build" not in done.stderr


def test_a_match_lost_on_a_silent_first_reply_says_what_to_check(tmp_path):
    done = noitu("arena", "match", "builtin:random", str(BOTS / "no_newline.py"), "--seed", "3",
                 "--turn-limit", "4", "--replay", str(tmp_path / "r.jsonl"), "--quiet")
    assert done.returncode == 0, done.stderr
    assert (last_json(done)["failure"]["player"], last_json(done)["failure"]["code"]) == ("P2", "TIMEOUT")
    hint = next(line for line in authors_lines(done.stderr) if "chưa trả lời lần nào" in line)
    assert "flush" in hint and "xuống dòng" in hint
