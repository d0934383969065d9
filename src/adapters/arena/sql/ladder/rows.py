"""The ladder's rows and the domain's values, each way."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
from sqlalchemy import and_, or_

from noitu.application.arena.ladder.ports import TableEntry
from noitu.application.arena.ports import Language
from noitu.domain.arena.board import Side
from noitu.domain.arena.ladder.members import Member
from noitu.domain.arena.ladder.pairing import Pairing, PairingEnd
from noitu.domain.arena.ladder.rating import Rating
from noitu.domain.arena.ladder.results import LadderResult, ResultKey
from noitu.domain.arena.ladder.standings import NEW_STANDING, Standing, StandingPoint

Row = Mapping[str, Any]


def sorts_before(table: Any, key: ResultKey) -> Any:
    """`table`'s rows whose (ended_ms, match_id) sorts before `key`."""
    ended, match = table.c.ended_ms, table.c.match_id
    return or_(ended < key.ended_ms, and_(ended == key.ended_ms, match < key.match_id))


def sorts_after(table: Any, key: ResultKey) -> Any:
    ended, match = table.c.ended_ms, table.c.match_id
    return or_(ended > key.ended_ms, and_(ended == key.ended_ms, match > key.match_id))


def result_row(result: LadderResult) -> dict[str, Any]:
    return {
        "match_id": result.match_id,
        "pairing_id": result.pairing_id,
        "p1": result.p1,
        "p2": result.p2,
        "winner": None if result.winner is None else result.winner.value,
        "ended_ms": result.ended_ms,
    }


def result_of(row: Row) -> LadderResult:
    winner = None if row["winner"] is None else Side(row["winner"])
    return LadderResult(
        row["match_id"], row["pairing_id"], row["p1"], row["p2"], winner, row["ended_ms"]
    )


def through_of(state: Row | None) -> ResultKey | None:
    if state is None or state["through_ms"] is None:
        return None
    return ResultKey(state["through_ms"], state["through_match"])


def _counts(standing: Standing) -> dict[str, Any]:
    """What a standing's row and a point's row both keep of it."""
    return {
        "mu": standing.rating.mu,
        "sigma": standing.rating.sigma,
        "wins": standing.wins,
        "draws": standing.draws,
        "losses": standing.losses,
    }


def standing_row(bot: str, standing: Standing) -> dict[str, Any]:
    return {"bot": bot, **_counts(standing), "last_game_ms": standing.last_game_ms}


def standing_of(row: Row, last_game_ms: int | None) -> Standing:
    return Standing(
        rating=Rating(float(row["mu"]), float(row["sigma"])),
        wins=row["wins"],
        draws=row["draws"],
        losses=row["losses"],
        last_game_ms=last_game_ms,
    )


def point_row(point: StandingPoint) -> dict[str, Any]:
    key = point.key
    return {
        "bot": point.bot, "ended_ms": key.ended_ms, "match_id": key.match_id,
        **_counts(point.standing),
    }


def point_of(row: Row) -> StandingPoint:
    key = ResultKey(row["ended_ms"], row["match_id"])
    return StandingPoint(row["bot"], key, standing_of(row, key.ended_ms))


def entry_of(rank: int, row: Row) -> TableEntry:
    standing = NEW_STANDING if row["mu"] is None else standing_of(row, row["last_game_ms"])
    if row["owner"] is None:
        return TableEntry(rank, Member(bot=row["bot"], owner=None, created_ms=0), standing)
    return TableEntry(rank, member_of(row), standing, row["name"], Language(row["language"]))


def member_row(member: Member) -> dict[str, Any]:
    return {
        "bot": member.bot,
        "owner": member.owner,
        "created_ms": member.created_ms,
        "failures_in_row": member.failures_in_row,
        "suspended": member.suspended,
        "placement_step": member.placement_step,
        "ranked_from": member.ranked_from,
    }


def member_of(row: Row) -> Member:
    return Member(
        bot=row["bot"],
        owner=row["owner"],
        created_ms=row["created_ms"],
        failures_in_row=row["failures_in_row"],
        suspended=bool(row["suspended"]),
        placement_step=row["placement_step"],
        # The table's pages select the members' columns they show, not this one.
        ranked_from=row.get("ranked_from"),
    )


class _End(msgspec.Struct, frozen=True, array_like=True):
    match_id: str
    rated: bool
    winner: str | None


_ENDS = msgspec.json.Decoder(list[_End])


def pairing_row(pairing: Pairing) -> dict[str, Any]:
    ends = [_End(end.match_id, end.rated, end.winner) for end in pairing.ends]
    return {
        "id": pairing.id,
        "seed": pairing.seed,
        "first": pairing.first,
        "second": pairing.second,
        "placement": pairing.placement,
        "started_ms": pairing.started_ms,
        "ends": msgspec.json.encode(ends).decode(),
        "instance": pairing.instance,
    }


def pairing_of(row: Row) -> Pairing:
    ends = tuple(PairingEnd(end.match_id, end.rated, end.winner) for end in _ENDS.decode(row["ends"]))
    return Pairing(
        id=row["id"],
        seed=row["seed"],
        first=row["first"],
        second=row["second"],
        placement=bool(row["placement"]),
        started_ms=row["started_ms"],
        ends=ends,
        instance=row["instance"],
    )
