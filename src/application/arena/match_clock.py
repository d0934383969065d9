"""The match clock (A6, B2, B4), in one value: how long a bot may take to answer, how
long a person has for a turn and for placement, and how many turns a match lasts.

The turn limit is a rule of the game and lives in the domain (`DEFAULT_TURN_LIMIT`);
the clock carries it so that whoever shows the clock (the config route, the docs'
test) reads every figure from here. To change the clock, change `MATCH_CLOCK`.
"""

from __future__ import annotations

from dataclasses import dataclass

from noitu.domain.arena.match import DEFAULT_TURN_LIMIT


@dataclass(frozen=True, slots=True)
class MatchClock:
    #: A bot's first request covers its start-up (wall clock, seconds).
    first_reply_s: float = 25.0
    #: Every later request (wall clock, seconds).
    reply_s: float = 2.0
    #: A person's turn, never paused.
    person_turn_ms: int = 60_000
    #: A person's placement, after which the server places the rest.
    placement_ms: int = 120_000
    #: Turns before the match is decided by the pieces left.
    turn_limit: int = DEFAULT_TURN_LIMIT


MATCH_CLOCK = MatchClock()
