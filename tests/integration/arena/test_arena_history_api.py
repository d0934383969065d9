"""Each bot's history and the ladder's matches through the real app on a real data
directory (spec B8 "History of every bot", "Pages and routes"): matches newest first,
50 a page, the owner alone reading failures and stderr (for 7 days), deleted opponents
shown as such, figures by side with reply times from the replays, a ladder bot's rating
over time as a rebuild computes it, a page at a time."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from dependency_injector import providers
from litestar.testing import AsyncTestClient

from noitu.application.arena.ladder.history import fold_in
from noitu.application.arena.limits import UPLOAD_WINDOW_MS
from noitu.application.arena.records import MatchRecord, Seat, owner_hash
from noitu.application.arena.replay import SeatKind
from noitu.domain.arena.board import Side
from noitu.domain.arena.failure import FailureCode
from noitu.domain.arena.ladder.results import LadderResult
from noitu.domain.arena.ladder.standings import standings_from
from noitu.domain.arena.match import EndReason, Failure, Result
from noitu.entrypoints.app import create_app
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import load_settings
from support.arena_bots import BOTS
from support.arena_store import NoSandbox, ScriptedBuilder
from support.fakes import FakeClock

BOTS_API = "/arena/api/bots"
LADDER = "/arena/api/ladder"
KEY_A = "a" * 32
KEY_B = "b" * 32
GOOD_PY = (BOTS / "a5_minimal.py").read_bytes()
DAY_MS = 24 * 3600 * 1000
TACTICAL = Seat(SeatKind.BUILTIN, "tactical", "tactical")
RANDOM = Seat(SeatKind.BUILTIN, "random", "random")


@dataclasses.dataclass
class Arena:
    client: AsyncTestClient
    container: Container
    clock: FakeClock
    match_ids: int = 0

    async def upload(self, name: str = "bot.py", key: str = KEY_A, public: bool = False) -> str:
        self.clock.advance(UPLOAD_WINDOW_MS)
        files = {"file": (name, GOOD_PY, "application/octet-stream")}
        answer = await self.client.post(
            f"{BOTS_API}/", files=files, data={"name": name}, headers={"X-Owner-Key": key}
        )
        assert answer.status_code == 201, answer.text
        bot = answer.json()["bot"]["id"]
        if public:
            done = await self.get(f"{BOTS_API}/{bot}", key, method="PATCH", json={"public": True})
            assert done.status_code == 200, done.text
        return bot

    async def get(self, path: str, key: str | None = None, method: str = "GET", **kw: Any) -> Any:
        headers = {"X-Owner-Key": key} if key is not None else {}
        return await self.client.request(method, path, headers=headers, **kw)

    async def play(
        self,
        p1: Seat,
        p2: Seat,
        result: Result,
        *,
        ladder: bool = False,
        stderr: tuple[bytes, bytes] = (b"", b""),
        replies: tuple[tuple[str, int], ...] = (),
    ) -> MatchRecord:
        """Store a finished match as the rooms do, its replay holding `replies`
        (side, ms) as `received` events."""
        self.match_ids += 1
        self.clock.advance(1000)
        now = self.clock.now_ms()
        match = MatchRecord(
            f"{self.match_ids:08X}", "LADDER" if ladder else "ROOM01", 1, 200, now, p1, p2,
            ladder=ladder,
        )
        archive = self.container.arena_repository()
        await archive.add_match(match)
        writer = self.container.arena_files().replay_writer(match.id)
        writer.record({"event": "setup", "matchId": match.id})
        for side, ms in replies:
            writer.record({"event": "received", "player": side, "line": "{}", "ms": ms})
        writer.record({"event": "end", **result.to_json()})
        assert await archive.finish_match(match.id, result, now, await writer.finish(), stderr)
        return (await archive.get_match(match.id))  # type: ignore[return-value]


@pytest.fixture
async def arena(arena_data_dir: Path) -> AsyncIterator[Arena]:
    container = Container()
    container.settings.override(load_settings(
        {"NOITU_ACCESS_LOG": "0", "MODULES": "arena", "NOITU_DATA_DIR": str(arena_data_dir)}
    ))
    clock = FakeClock()
    container.clock.override(clock)
    container.id_source.override(random.Random(5))
    container.arena_probe.override(NoSandbox())
    container.upload_builder.override(providers.Object(ScriptedBuilder()))
    async with AsyncTestClient(create_app(container)) as client:
        yield Arena(client, container, clock)


def mine(bot: str, key: str = KEY_A) -> Seat:
    return Seat(SeatKind.UPLOAD, bot, "bot.py", owner_hash(key))


P1_WINS = Result(Side.P1, EndReason.BASE_CAPTURED, 41)
P2_WINS = Result(Side.P2, EndReason.NO_PIECES, 60)
DRAW = Result(None, EndReason.TURN_LIMIT, 200)
P1_FAILS = Result(
    Side.P2, EndReason.BOT_FAILED, 3, Failure(Side.P1, FailureCode.TIMEOUT, "Quá 2 giây.")
)
ABANDONED = Result(None, EndReason.ABANDONED, 0)


async def test_a_bots_matches_newest_first_with_side_result_and_opponent(arena: Arena):
    bot = await arena.upload(public=True)
    gone = await arena.upload("gone.py", KEY_B, public=True)
    first = await arena.play(mine(bot), TACTICAL, P1_WINS, stderr=(b"debug 1\n", b""))
    second = await arena.play(mine(gone, KEY_B), mine(bot), P2_WINS, ladder=True)
    third = await arena.play(mine(bot), RANDOM, P1_FAILS, stderr=(b"oops\n", b""))
    await arena.play(TACTICAL, RANDOM, DRAW)  # not this bot's
    assert (await arena.get(f"{BOTS_API}/{gone}", KEY_B, method="DELETE")).status_code == 204

    owner = await arena.get(f"{BOTS_API}/{bot}/matches", KEY_A)
    assert owner.status_code == 200, owner.text
    body = owner.json()
    assert body["next"] is None
    assert [m["matchId"] for m in body["matches"]] == [third.id, second.id, first.id]
    failed, ladder, won = body["matches"]
    assert failed == {
        "matchId": third.id, "roomCode": "ROOM01", "endedMs": third.finished_ms,
        "ladder": False, "side": "P1",
        "opponent": {"botId": "random", "name": "random", "builtin": True, "deleted": False},
        "result": "loss", "reason": "BOT_FAILED", "turns": 3,
        "replay": f"/arena/api/matches/{third.id}/replay", "replayDeleted": False,
        "failure": {"code": "TIMEOUT", "detail": "Quá 2 giây."}, "stderr": "oops\n",
    }
    assert (ladder["ladder"], ladder["side"], ladder["result"]) == (True, "P2", "win")
    assert ladder["opponent"] == {
        "botId": gone, "name": "bot đã xoá", "builtin": False, "deleted": True,
    }
    assert (won["result"], won["failure"], won["stderr"]) == ("win", None, "debug 1\n")

    # Anyone reads a public bot's history, without its failures and stderr.
    other = (await arena.get(f"{BOTS_API}/{bot}/matches", KEY_B)).json()["matches"]
    assert [(m["failure"], m["stderr"]) for m in other] == [(None, None)] * 3
    assert [m["result"] for m in other] == ["loss", "win", "win"]


async def test_stderr_is_shown_for_seven_days(arena: Arena):
    bot = await arena.upload()
    await arena.play(mine(bot), TACTICAL, P1_WINS, stderr=(b"late\n", b""))
    arena.clock.advance(7 * DAY_MS)
    (kept,) = (await arena.get(f"{BOTS_API}/{bot}/matches", KEY_A)).json()["matches"]
    assert kept["stderr"] == "late\n"
    arena.clock.advance(1)
    (old,) = (await arena.get(f"{BOTS_API}/{bot}/matches", KEY_A)).json()["matches"]
    assert old["stderr"] is None


async def test_a_private_bots_history_is_its_owners_and_builtins_are_anyones(arena: Arena):
    bot = await arena.upload()
    for key in (None, KEY_B):
        for route in ("matches", "figures"):
            answer = await arena.get(f"{BOTS_API}/{bot}/{route}", key)
            assert (answer.status_code, answer.json()["error"]) == (404, "bot_not_found")
    assert (await arena.get(f"{BOTS_API}/{bot}/matches", KEY_A)).status_code == 200
    await arena.play(TACTICAL, RANDOM, DRAW)
    (match,) = (await arena.get(f"{BOTS_API}/random/matches")).json()["matches"]
    assert (match["side"], match["result"], match["opponent"]["botId"]) == ("P2", "draw", "tactical")
    for wrong in ("nobody", "0" * 16):
        answer = await arena.get(f"{BOTS_API}/{wrong}/matches")
        assert answer.status_code == 404
    bad = await arena.get(f"{BOTS_API}/random/matches", params={"before": "x"})
    assert (bad.status_code, bad.json()["error"]) == (400, "bad_request")


async def test_a_history_pages_by_fifty(arena: Arena):
    played = [await arena.play(TACTICAL, RANDOM, DRAW) for _ in range(53)]
    first = (await arena.get(f"{BOTS_API}/tactical/matches")).json()
    assert len(first["matches"]) == 50 and first["next"] is not None
    rest = (await arena.get(f"{BOTS_API}/tactical/matches", params={"before": first["next"]})).json()
    assert rest["next"] is None
    ids = [m["matchId"] for m in first["matches"] + rest["matches"]]
    assert ids == [match.id for match in reversed(played)]


async def test_figures_by_side_failures_and_reply_times(arena: Arena):
    bot = await arena.upload(public=True)
    await arena.play(mine(bot), TACTICAL, P1_WINS, replies=(("P1", 10), ("P2", 900), ("P1", 30)))
    await arena.play(mine(bot), RANDOM, P1_FAILS, replies=(("P1", 20),))
    await arena.play(TACTICAL, mine(bot), DRAW, replies=(("P2", 40),))
    await arena.play(TACTICAL, mine(bot), ABANDONED)
    answer = await arena.get(f"{BOTS_API}/{bot}/figures")
    assert answer.status_code == 200, answer.text
    assert answer.json() == {
        "bySide": {
            "P1": {"wins": 1, "draws": 0, "losses": 1},
            "P2": {"wins": 0, "draws": 1, "losses": 0},
        },
        "failures": {"TIMEOUT": 1},
        "replyMs": {"p50": 20.0, "p99": 40.0},
    }
    empty = (await arena.get(f"{BOTS_API}/strong/figures")).json()
    assert empty["replyMs"] is None and empty["failures"] == {}


async def rate(arena: Arena, result: LadderResult) -> None:
    """Store a rated result as the ladder does: with the ratings it moves."""
    container = arena.container
    assert await fold_in(container.ladder_results(), container.ladder_standings(), result)


async def test_ladder_bot_row_and_ratings_as_a_rebuild_computes_them(arena: Arena):
    bot = await arena.upload(public=True)
    assert (await arena.get(f"{LADDER}/bots/{bot}", KEY_A)).status_code == 404
    ranked = await arena.get(f"{LADDER}/bots/{bot}", KEY_A, method="PUT")
    assert ranked.status_code == 200, ranked.text
    stored = [
        LadderResult("000000A1", "p1", bot, "random", Side.P1, 1_000),
        LadderResult("000000A2", "p1", "random", bot, None, 2_000),
        LadderResult("000000A3", "p2", "tactical", "strong", Side.P2, 3_000),
    ]
    for one in stored:
        await rate(arena, one)
    answer = await arena.get(f"{LADDER}/bots/{bot}")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["row"]["botId"] == bot and body["row"]["name"] == "bot.py"
    expected = []
    for upto in (1, 2):
        rating = standings_from(stored[:upto]).of(bot).rating
        expected.append({
            "ms": stored[upto - 1].ended_ms, "mu": rating.mu, "sigma": rating.sigma,
            "ordinal": rating.ordinal,
        })
    assert body["ratings"] == expected  # JSON keeps floats exactly
    assert body["next"] is None
    strong = (await arena.get(f"{LADDER}/bots/strong")).json()
    assert strong["row"]["builtin"] and [p["ms"] for p in strong["ratings"]] == [3_000]
    # Unranked, it keeps its history and has no row.
    assert (await arena.get(f"{LADDER}/bots/{bot}", KEY_A, method="DELETE")).status_code == 200
    left = (await arena.get(f"{LADDER}/bots/{bot}")).json()
    assert left["row"] is None and len(left["ratings"]) == 2
    assert (await arena.get(f"{LADDER}/bots/nobody")).status_code == 404


async def test_ladder_matches_newest_first_rated_and_filtered(arena: Arena):
    bot = await arena.upload(public=True)
    rated = await arena.play(mine(bot), TACTICAL, P1_WINS, ladder=True)
    await rate(arena, LadderResult(rated.id, "pair", bot, "tactical", Side.P1, rated.finished_ms or 0))
    unrated = await arena.play(TACTICAL, RANDOM, ABANDONED, ladder=True)
    await arena.play(mine(bot), RANDOM, DRAW)  # a room's: not the ladder's
    answer = await arena.get(f"{LADDER}/matches")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["next"] is None
    assert [(m["matchId"], m["rated"]) for m in body["matches"]] == [
        (unrated.id, False), (rated.id, True),
    ]
    assert body["matches"][1] == {
        "matchId": rated.id, "roomCode": "LADDER", "endedMs": rated.finished_ms,
        "p1": {"botId": bot, "name": "bot.py", "builtin": False, "deleted": False},
        "p2": {"botId": "tactical", "name": "tactical", "builtin": True, "deleted": False},
        "winner": "P1", "reason": "BASE_CAPTURED", "turns": 41,
        "replay": f"/arena/api/matches/{rated.id}/replay", "replayDeleted": False,
        "rated": True,
    }
    one = (await arena.get(f"{LADDER}/matches", params={"bot": bot})).json()["matches"]
    assert [m["matchId"] for m in one] == [rated.id]
    bad = await arena.get(f"{LADDER}/matches", params={"bot": "Nope!"})
    assert (bad.status_code, bad.json()["error"]) == (400, "bad_request")


async def test_a_swept_match_stays_in_the_histories_saying_its_replay_is_gone(arena: Arena):
    """B14: the sweep deletes an old room's replay and stderr; the match stays in the
    bot's history with its result, marked, and the replay route answers 410."""
    bot = await arena.upload(public=True)
    old = await arena.play(mine(bot), TACTICAL, P1_WINS, stderr=(b"old\n", b""))
    arena.clock.advance(30 * DAY_MS + 1)
    young = await arena.play(mine(bot), RANDOM, DRAW)
    result = await arena.container.sweep_replays()()
    assert (result.deleted, result.busy) == (1, False) and result.freed_bytes > 0
    newest, swept = (await arena.get(f"{BOTS_API}/{bot}/matches", KEY_A)).json()["matches"]
    assert (newest["matchId"], newest["replayDeleted"]) == (young.id, False)
    assert swept["matchId"] == old.id and (swept["result"], swept["turns"]) == ("win", 41)
    assert (swept["replay"], swept["replayDeleted"], swept["stderr"]) == (None, True, None)
    gone = await arena.get(f"/arena/api/matches/{old.id}/replay")
    assert (gone.status_code, gone.json()["error"]) == (410, "replay_deleted")
    assert "Bản ghi đã xoá" in gone.json()["message"]
    kept = await arena.get(f"/arena/api/matches/{young.id}/replay")
    assert kept.status_code == 200
    assert (await arena.container.sweep_replays()()).deleted == 0  # nothing left to do
