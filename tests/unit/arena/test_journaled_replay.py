"""A worker's replay on several machines (spec B9 "Faults"): `JournaledReplay` keeps the
events in the journal, in order, through the journal's outages; `lost_replay` makes a
dead worker's match's replay from what the journal kept."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from noitu.adapters.arena.files import DataDirFiles
from noitu.adapters.arena.replay_journal import InMemoryReplayJournal
from noitu.application.arena.records import MatchRecord, Seat
from noitu.application.arena.replay import SeatKind
from noitu.application.arena.rooms.journaled_replay import (
    JOURNAL_BATCH_MS,
    JOURNAL_RETRY_MS,
    JournaledReplay,
    lost_replay,
    turns_played,
)
from noitu.application.errors import Busy
from noitu.domain.arena.match import EndReason, Result
from support.arena_rooms import FakeTimer
from support.fakes import CollectingBackground, FakeClock

MATCH = "0A1B2C3D"


class FlakyJournal(InMemoryReplayJournal):
    """The in-memory journal, away (`Busy`) while `down`; counts the appends."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__(clock)
        self.down = False
        self.appends = 0

    async def append(self, match_id, events):
        if self.down:
            raise Busy()
        self.appends += 1
        await super().append(match_id, events)

    async def drop(self, match_id):
        if self.down:
            raise Busy()
        await super().drop(match_id)


def applied(turn: int) -> dict:
    return {"event": "applied", "turn": turn, "player": "P1" if turn % 2 == 0 else "P2",
            "action": {"type": "PASS"}, "fight": None}


async def journaled(journal: InMemoryReplayJournal) -> list[dict]:
    return [json.loads(event) for event in await journal.events(MATCH)]


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


@dataclass
class Writing:
    """A worker's `JournaledReplay` of MATCH on fakes: the clock, its timer, the flaky
    journal and the data directory the local replay goes to."""

    clock: FakeClock
    timer: FakeTimer
    journal: FlakyJournal
    files: DataDirFiles
    writer: JournaledReplay


@pytest.fixture
def writing(tmp_path: Path) -> Writing:
    clock = FakeClock()
    timer = FakeTimer(clock)
    journal = FlakyJournal(clock)
    files = DataDirFiles(tmp_path)
    writer = JournaledReplay(files.replay_writer(MATCH), journal, MATCH,
                             CollectingBackground(), clock, timer)
    return Writing(clock, timer, journal, files, writer)


async def test_events_reach_the_journal_in_order_and_the_local_replay_is_whole(
    writing: Writing,
) -> None:
    journal, files, writer = writing.journal, writing.files, writing.writer
    writer.record({"event": "setup", "matchId": MATCH})
    for turn in range(5):  # recorded at once: they go in one or two appends
        writer.record({"event": "sent", "player": "P1", "sequence": turn, "line": "{}"})
        writer.record(applied(turn))
    await settle()
    kept = await journaled(journal)
    assert [event["event"] for event in kept] == ["setup"] + ["applied"] * 5
    assert [event["turn"] for event in kept[1:]] == list(range(5))
    assert journal.appends <= 2
    name = await writer.finish()
    local = [json.loads(line) for line in (await files.read_replay(name)).splitlines()]
    assert [event for event in local if event["event"] != "sent"] == kept
    assert sum(event["event"] == "sent" for event in local) == 5  # the local replay's only
    assert len(await journal.events(MATCH)) == 6  # kept until the match is archived
    await writer.forget()
    assert await journal.events(MATCH) == []


async def test_while_the_journal_is_away_events_wait_and_go_in_order_when_it_is_back(
    writing: Writing,
) -> None:
    timer, journal, writer = writing.timer, writing.journal, writing.writer
    writer.record(applied(0))
    await settle()
    timer.advance(JOURNAL_BATCH_MS)
    await settle()
    assert timer.sleeping == 0  # nothing came meanwhile: the flusher is done
    journal.down = True
    writer.record(applied(1))
    writer.record(applied(2))
    await settle()
    assert timer.sleeping == 1  # the flusher waits before trying again
    writer.record(applied(3))
    timer.advance(JOURNAL_RETRY_MS)
    await settle()
    assert [event["turn"] for event in await journaled(journal)] == [0]
    journal.down = False
    timer.advance(JOURNAL_RETRY_MS)
    await settle()
    assert [event["turn"] for event in await journaled(journal)] == [0, 1, 2, 3]
    journal.down = True
    await writer.forget()  # the journal away: it runs out by itself, no error


async def test_a_fast_match_goes_in_one_append_per_batch_time_and_a_lone_move_at_once(
    writing: Writing,
) -> None:
    """Turns recorded one after another, each after the flusher had its turn on the loop
    (as a bot match plays them), wait for the batch time; a move after a quiet moment
    (a person's) is appended at once."""
    clock, timer, journal, writer = writing.clock, writing.timer, writing.journal, writing.writer
    for turn in range(40):  # 40 turns in 20 ms of play, a turn each half millisecond
        writer.record(applied(turn))
        await settle()
        if turn % 2:
            timer.advance(1)
    await settle()
    assert journal.appends == 2  # turn 0 at once, the other 39 when the batch time was up
    assert [event["turn"] for event in await journaled(journal)] == list(range(40))
    timer.advance(JOURNAL_BATCH_MS)
    await settle()
    assert journal.appends == 2 and timer.sleeping == 0  # a quiet batch time: done
    clock.advance(5_000)  # a person thinks
    writer.record(applied(40))
    await settle()
    assert journal.appends == 3  # their move is in the journal at once
    assert [event["turn"] for event in await journaled(journal)][-1] == 40
    await writer.forget()


def record() -> MatchRecord:
    return MatchRecord(
        MATCH, "A3C4E6", 42, 200, 1_800_000_000_000,
        Seat(SeatKind.BUILTIN, "random", "Ngẫu nhiên"),
        Seat(SeatKind.BUILTIN, "strong", "Mạnh"),
    )


def encoded(*events: dict) -> list[bytes]:
    return [json.dumps(event).encode() for event in events]


ABANDONED = Result(None, EndReason.ABANDONED, 2)


def test_a_lost_replay_keeps_the_journal_and_ends_with_the_given_end() -> None:
    setup = {"event": "setup", "matchId": MATCH, "seed": 42, "turnLimit": 200,
             "players": [], "pieces": [{"id": "P1-1"}]}
    made = lost_replay(record(), encoded(setup, applied(0), applied(1)), ABANDONED)
    assert made[:3] == [setup, applied(0), applied(1)]
    assert made[3] == {"event": "end", "winner": None, "reason": "ABANDONED", "turns": 2,
                       "failure": None}


def test_without_a_setup_the_record_makes_one_with_no_pieces() -> None:
    made = lost_replay(record(), [], ABANDONED)
    assert made[0] == {
        "event": "setup", "matchId": MATCH, "seed": 42, "turnLimit": 200,
        "players": [{"id": "P1", "name": "Ngẫu nhiên", "kind": "builtin"},
                    {"id": "P2", "name": "Mạnh", "kind": "builtin"}],
        "pieces": [],
    }
    assert [event["event"] for event in made] == ["setup", "end"]


def test_an_end_the_worker_wrote_and_a_broken_line_are_left_out() -> None:
    setup = {"event": "setup", "matchId": MATCH}
    end = {"event": "end", "winner": "P1", "reason": "CAPTURE", "turns": 2, "failure": None}
    made = lost_replay(record(), [*encoded(setup, applied(0)), b"{broken", *encoded(end)],
                       ABANDONED)
    assert [event["event"] for event in made] == ["setup", "applied", "end"]
    assert made[-1]["reason"] == "ABANDONED"


def test_turns_played_is_the_turn_after_the_last_applied() -> None:
    assert turns_played([]) == 0
    assert turns_played(encoded({"event": "setup"}, applied(0), applied(1), applied(2))) == 3
