"""A bot that floods stderr through the real sandbox (spec B2): its whole match against
builtin:random plays, and the stderr tail kept with the match is exactly the last 8 KiB
it wrote before the match ended, although the server reads its stderr at a bounded rate."""

from __future__ import annotations

from pathlib import Path

import pytest

from noitu.adapters.arena.bubblewrap import BubblewrapLauncher
from noitu.adapters.arena.build import SandboxBuilder
from noitu.adapters.arena.builtin import BuiltinBots
from noitu.adapters.arena.sandbox import Sandbox
from noitu.application.arena.live_match import LiveMatch
from noitu.application.arena.ports import STDERR_TAIL_BYTES
from noitu.application.arena.replay import Event, Player, SeatKind
from noitu.application.arena.run_match import BotSeat, RunMatch
from noitu.domain.arena.board import Side
from noitu.domain.arena.match import Match
from support.arena_bots import python_artefact


class Events:
    def __init__(self) -> None:
        self.sent = {Side.P1.value: 0, Side.P2.value: 0}

    def record(self, event: Event) -> None:
        if event["event"] == "sent":
            self.sent[str(event["player"])] += 1


def written(turns: int) -> bytes:
    """What stderr_flood_turns.py writes over `turns` requests."""
    out = bytearray()
    for turn in range(1, turns + 1):
        for n in range(256):
            out += b"%05d %03d " % (turn, n) + b"x" * 1013 + b"\n"
        out += b"END turn %d\n" % turn
    return bytes(out)


async def test_a_flooding_bot_plays_its_whole_match_and_keeps_its_last_8_kib(
    arena_sandbox: Sandbox, tmp_path: Path
) -> None:
    builtin = BuiltinBots(SandboxBuilder(arena_sandbox), tmp_path / "cache")
    seats = (
        BotSeat(Player(Side.P1, "flood", SeatKind.UPLOAD), python_artefact("stderr_flood_turns", tmp_path)),
        BotSeat(Player(Side.P2, "random", SeatKind.BUILTIN), await builtin.artefact("random")),
    )
    events = Events()
    live = LiveMatch(Match.between_bots("FLOOD001", 7, 40), events)
    outcome = await RunMatch(BubblewrapLauncher(arena_sandbox)).play(live, seats)
    assert outcome.result.failure is None, outcome.result
    asked = events.sent[Side.P1.value]
    assert asked >= 10
    # Taken the moment the match ended (what the room stores), and after the close.
    expected = written(asked)[-STDERR_TAIL_BYTES:]
    assert live.stderr[0] == expected
    assert outcome.stderr[0] == expected


def written_5mb(asked: int) -> bytes:
    """What stderr_5mb.py writes over `asked` requests."""
    out = bytearray()
    for turn in range(2, asked + 1):
        for n in range(5000):
            out += b"%05d %07d " % (turn, n) + b"x" * 1009 + b"\n"
        out += b"END turn %d\n" % turn
    return bytes(out)


@pytest.mark.parametrize("whole", [False, True], ids=["server", "cli-listener"])
async def test_a_bot_writing_5_mb_to_stderr_in_a_turn_answers_in_time(
    arena_sandbox: Sandbox, tmp_path: Path, whole: bool
) -> None:
    """The 2 s clock of every later request runs while the bot's 5 MB go through its
    pipe: the server (nothing listening, only the tail kept) and the CLI (a listener
    gets every byte) both drain it fast enough."""
    builtin = BuiltinBots(SandboxBuilder(arena_sandbox), tmp_path / "cache")
    seats = (
        BotSeat(Player(Side.P1, "flood", SeatKind.UPLOAD), python_artefact("stderr_5mb", tmp_path)),
        BotSeat(Player(Side.P2, "random", SeatKind.BUILTIN), await builtin.artefact("random")),
    )
    events = Events()
    heard = bytearray()

    def sink(side: Side, chunk: bytes) -> None:
        if side is Side.P1:
            heard.extend(chunk)

    live = LiveMatch(Match.between_bots("FLOOD5MB", 5, 6), events)
    outcome = await RunMatch(BubblewrapLauncher(arena_sandbox)).play(
        live, seats, sink if whole else None
    )
    assert outcome.result.failure is None, outcome.result
    asked = events.sent[Side.P1.value]
    assert asked >= 3  # two floods at least
    expected = written_5mb(asked)
    assert live.stderr[0] == outcome.stderr[0] == expected[-STDERR_TAIL_BYTES:]
    if whole:
        assert bytes(heard) == expected
