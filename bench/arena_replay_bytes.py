"""What a ranked bot's ladder leaves on disk (spec B14): replays, raw and stored.

    .venv/bin/python bench/arena_replay_bytes.py [--minutes 7.6] [--bot tactical.py]

`noitu serve` runs as the README starts it (MODULES=arena, a throwaway NOITU_DATA_DIR,
the sandbox when this machine has one); one bot (`--bot`, a file of
assets/bot-examples/) is uploaded and ranked, and the ladder plays it against the
built-ins for `--minutes`. Then every replay in the data directory is read: how many,
their bytes as stored and as JSON Lines (what a server before B14 stored), each
replay's median, and the rate: bytes a minute and a day at that pace, and what the
retention settings keep of a day (`NOITU_ARENA_LADDER_REPLAYS` replays of each of the
bots that played, at the median stored size).
"""

from __future__ import annotations

import argparse
import json
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from noitu.adapters.arena import replay_codec
from noitu.application.arena.retention import DEFAULT_LADDER_REPLAYS
from noitu.bench.http_load import running_server
from noitu.bench.machine import format_machine, machine

EXAMPLES = Path(__file__).resolve().parents[1] / "assets" / "bot-examples"
API = "/arena/api"
DAY_MIN = 24 * 60


def rank_a_bot(base: str, bot: Path) -> str:
    """Upload `bot`, wait for its build, rank it; its id."""
    with httpx.Client(base_url=base, timeout=120) as client:
        answer = client.post(f"{API}/bots", files={"file": (bot.name, bot.read_bytes())})
        if answer.status_code != 201:
            raise RuntimeError(f"upload: {answer.status_code} {answer.text[:200]}")
        body = answer.json()
        bot_id, key = body["bot"]["id"], body["ownerKey"]
        headers = {"X-Owner-Key": key}
        ranked = client.put(f"{API}/ladder/bots/{bot_id}", headers=headers)
        if ranked.status_code != 200:
            raise RuntimeError(f"rank: {ranked.status_code} {ranked.text[:200]}")
        return bot_id


def replays(directory: Path) -> tuple[list[int], list[int]]:
    """The stored and the plain size of every finished replay in `directory`."""
    stored, plain = [], []
    for path in sorted(directory.glob("*.jsonl*")):
        data = path.read_bytes()
        stored.append(len(data))
        plain.append(len(replay_codec.plain(data)))
    return stored, plain


def run(args: argparse.Namespace) -> dict:
    with tempfile.TemporaryDirectory(prefix="noitu-bench-replays-") as data_dir:
        env = {"MODULES": "arena", "NOITU_DATA_DIR": data_dir}
        with running_server(secrets.token_hex(16), env) as (_, port):
            base = f"http://127.0.0.1:{port}"
            rank_a_bot(base, EXAMPLES / args.bot)
            began = time.monotonic()
            time.sleep(args.minutes * 60)
            minutes = (time.monotonic() - began) / 60
        stored, plain = replays(Path(data_dir) / "replays")
    if not stored:
        raise SystemExit("no replay was written: is the ladder on?")
    per_minute = sum(stored) / minutes
    # The ranked bot and the three built-ins each keep their newest replays.
    kept = 4 * DEFAULT_LADDER_REPLAYS * statistics.median(stored)
    return {
        "machine": machine(),
        "bot": args.bot,
        "minutes": round(minutes, 2),
        "replays": len(stored),
        "stored_bytes": sum(stored),
        "plain_bytes": sum(plain),
        "median_stored_bytes": statistics.median(stored),
        "median_plain_bytes": statistics.median(plain),
        "stored_bytes_a_day": per_minute * DAY_MIN,
        "plain_bytes_a_day": sum(plain) / minutes * DAY_MIN,
        "kept_bytes_at_most": kept,
    }


def format_report(report: dict) -> str:
    mb = 1e6
    return "\n".join([
        (f"arena replays: one ranked {report['bot']} on the ladder for"
        f" {report['minutes']} min ({format_machine(report['machine'])})"),
        f"  replays                 {report['replays']}",
        (f"  bytes as JSON Lines     {report['plain_bytes'] / mb:.1f} MB"
        f" (median {report['median_plain_bytes'] / 1000:.0f} KB a replay)"),
        (f"  bytes stored (zstd)     {report['stored_bytes'] / mb:.2f} MB"
        f" (median {report['median_stored_bytes'] / 1000:.1f} KB a replay)"),
        (f"  a day at this pace      {report['plain_bytes_a_day'] / 1e9:.2f} GB as JSON Lines,"
        f" {report['stored_bytes_a_day'] / 1e9:.3f} GB stored"),
        (f"  kept by the retention   {report['kept_bytes_at_most'] / mb:.1f} MB at most"
        f" ({DEFAULT_LADDER_REPLAYS} replays of each of 4 bots)"),
    ])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=7.6)
    parser.add_argument("--bot", default="tactical.py", help="a file of assets/bot-examples/")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = run(args)
    print(json.dumps(report) if args.json else format_report(report))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
