"""What the ladder rates (B8 "Rating", "Failures").

A finished ladder match is rated from its result: the winner's side, or a draw. A bot's
failure (any B3 code) is a loss for that bot, which `Result` already says (the other
side wins with BOT_FAILED). Not rated, because the server caused them: ABANDONED (a
restart, or a worker lost) and START_FAILED (every ranked bot was built when it was
ranked, so a bot that cannot start is the server's problem); their pairing is played
again with a new seed.

What is stored of a rated match is a `LadderResult`; results are rated in the order of
their `ResultKey` (end time, then match id).
"""

from __future__ import annotations

from dataclasses import dataclass

from noitu.domain.arena.board import Side
from noitu.domain.arena.failure import FailureCode
from noitu.domain.arena.match import EndReason, Result

#: Failure codes the server is to blame for when a ladder bot shows them.
SERVER_FAILURES = frozenset({FailureCode.START_FAILED})


def is_rated(result: Result) -> bool:
    """Whether a finished ladder match counts: False for ABANDONED and the server's
    failures, whose pairing is played again."""
    if result.reason is EndReason.ABANDONED:
        return False
    return result.failure is None or result.failure.code not in SERVER_FAILURES


def failed_side(result: Result) -> Side | None:
    """The side whose bot failed a rated match (B8 "Failures"), None when neither did."""
    if not is_rated(result) or result.failure is None:
        return None
    return result.failure.side


@dataclass(frozen=True, slots=True, order=True)
class ResultKey:
    """The order results are rated in: end time, then match id."""

    ended_ms: int
    match_id: str


@dataclass(frozen=True, slots=True)
class LadderResult:
    """One rated ladder match as the ladder keeps it: who sat where and who won."""

    match_id: str
    pairing_id: str
    p1: str  # the bot on P1 (a bot id, or a built-in's name)
    p2: str
    winner: Side | None  # None: a draw
    ended_ms: int

    def __post_init__(self) -> None:
        if self.p1 == self.p2:
            raise ValueError("a bot does not play itself on the ladder")

    @property
    def key(self) -> ResultKey:
        return ResultKey(self.ended_ms, self.match_id)

    def side_of(self, bot: str) -> Side | None:
        """`bot`'s side in this match; None when it did not play it."""
        if bot == self.p1:
            return Side.P1
        if bot == self.p2:
            return Side.P2
        return None
