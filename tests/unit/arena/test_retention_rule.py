"""Which replays the retention sweep deletes (spec B14), the rule alone: rooms' after N
days, a ladder match once neither of its bots counts it among its newest M replays;
live, replay-less and swept matches never."""

from __future__ import annotations

import dataclasses

import pytest

from noitu.application.arena.records import MatchRecord, MatchStatus, Seat
from noitu.application.arena.replay import SeatKind
from noitu.application.arena.retention import DAY_MS, Retention, ladder_kept, replays_due
from support.arena_databases import ALICE, DRAW, T0, make_match

NOW = T0 + 100 * DAY_MS


def finished(
    ended_ms: int, *, ladder: bool = False, bots: tuple[str, str] = ("tactical", "random"),
    person: bool = False, replay: bool = True,
) -> MatchRecord:
    match = make_match(created_ms=ended_ms - 1_000, ladder=ladder)
    p1 = Seat(SeatKind.PERSON, "An", "An", ALICE) if person else Seat(
        SeatKind.BUILTIN, bots[0], bots[0]
    )
    return dataclasses.replace(
        match, p1=p1, p2=Seat(SeatKind.BUILTIN, bots[1], bots[1]),
        status=MatchStatus.FINISHED, result=DRAW, finished_ms=ended_ms,
        replay=f"replays/{match.id}.jsonl" if replay else None,
    )


def ids(matches: list[MatchRecord]) -> list[str]:
    return [match.id for match in matches]


def test_a_rooms_replay_goes_once_it_finished_more_than_the_days_ago() -> None:
    rule = Retention(replay_days=30)
    cutoff = NOW - 30 * DAY_MS
    old, edge, young = finished(cutoff - 1), finished(cutoff), finished(cutoff + 1)
    persons = finished(cutoff - 5, person=True)  # a person's match is kept as rooms' are
    assert ids(replays_due([young, edge, old, persons], rule, NOW, 10)) == [persons.id, old.id]


def test_a_ladder_replay_stays_while_either_bot_counts_it_among_its_newest() -> None:
    rule = Retention(replay_days=1, ladder_replays=2)
    # a plays b three times, then b plays c twice: a's newest two are a–b #2 and #3;
    # b's are its two games with c; so a–b #1 is the only one nobody counts.
    ab = [finished(T0 + i, ladder=True, bots=("a", "b")) for i in range(3)]
    bc = [finished(T0 + 10 + i, ladder=True, bots=("b", "c")) for i in range(2)]
    every = [*bc, *ab]
    assert ladder_kept(every, 2) == {ab[1].id, ab[2].id, bc[0].id, bc[1].id}
    # Ladder matches ignore the days: years old, they stay while a bot counts them.
    assert ids(replays_due(every, rule, NOW, 10)) == [ab[0].id]
    # One more a–c game: a's newest are a–c and a–b #3, so a–b #2 goes too (b moved on).
    ac = finished(T0 + 20, ladder=True, bots=("a", "c"))
    assert ids(replays_due([*every, ac], rule, NOW, 10)) == [ab[0].id, ab[1].id]


def test_live_replayless_and_swept_matches_are_never_due_and_the_limit_holds() -> None:
    rule = Retention(replay_days=1, ladder_replays=1)
    live = make_match(created_ms=T0)
    abandoned = finished(T0, replay=False)
    swept = dataclasses.replace(finished(T0 + 1), replay=None, replay_deleted_ms=T0 + 5)
    due = [finished(T0 + 10 + i) for i in range(5)]
    assert ids(replays_due([live, abandoned, swept, *due], rule, NOW, 3)) == ids(due[:3])
    assert replays_due([live, abandoned, swept], rule, NOW, 3) == []


def test_a_swept_match_must_be_finished_and_without_its_replay() -> None:
    with pytest.raises(ValueError):
        dataclasses.replace(finished(T0), replay_deleted_ms=T0 + 1)  # the replay still named
    with pytest.raises(ValueError):
        Retention(replay_days=0)
