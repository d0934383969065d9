"""The arena's metadata rows and the application's records, each way."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from noitu.application.arena.ports import Language
from noitu.application.arena.records import BotRecord, BuildStatus, MatchRecord, MatchStatus, Seat
from noitu.application.arena.replay import SeatKind
from noitu.domain.arena.board import Side
from noitu.domain.arena.failure import FailureCode
from noitu.domain.arena.match import EndReason, Failure, Result

Row = Mapping[str, Any]


def bot_row(bot: BotRecord) -> dict[str, Any]:
    return {
        "id": bot.id,
        "owner": bot.owner,
        "name": bot.name,
        "language": bot.language.value,
        "public": bot.public,
        "created_ms": bot.created_ms,
        "source_bytes": bot.source_bytes,
        "build_status": bot.build.value,
        "build_messages": bot.build_messages,
        "source_file": bot.source_file,
        "artefact_dir": bot.artefact_dir,
    }


def bot_of(row: Row) -> BotRecord:
    return BotRecord(
        id=row["id"],
        owner=row["owner"],
        name=row["name"],
        language=Language(row["language"]),
        public=bool(row["public"]),
        created_ms=int(row["created_ms"]),
        source_bytes=int(row["source_bytes"]),
        build=BuildStatus(row["build_status"]),
        build_messages=row["build_messages"],
        source_file=row["source_file"],
        artefact_dir=row["artefact_dir"],
    )


def _seat_row(prefix: str, seat: Seat) -> dict[str, Any]:
    return {
        f"{prefix}_kind": seat.kind.value,
        f"{prefix}_ref": seat.ref,
        f"{prefix}_name": seat.name,
        f"{prefix}_owner": seat.owner,
    }


def _seat_of(prefix: str, row: Row) -> Seat:
    return Seat(
        kind=SeatKind(row[f"{prefix}_kind"]),
        ref=row[f"{prefix}_ref"],
        name=row[f"{prefix}_name"],
        owner=row[f"{prefix}_owner"],
    )


def result_row(result: Result) -> dict[str, Any]:
    failure = result.failure
    return {
        "winner": None if result.winner is None else result.winner.value,
        "reason": result.reason.value,
        "turns": result.turns,
        "failure_side": None if failure is None else failure.side.value,
        "failure_code": None if failure is None else failure.code.value,
        "failure_detail": None if failure is None else failure.detail,
    }


def _result_of(row: Row) -> Result | None:
    if row["reason"] is None:
        return None
    failure = None
    if row["failure_side"] is not None:
        failure = Failure(
            side=Side(row["failure_side"]),
            code=FailureCode(row["failure_code"]),
            detail=row["failure_detail"],
        )
    return Result(
        winner=None if row["winner"] is None else Side(row["winner"]),
        reason=EndReason(row["reason"]),
        turns=int(row["turns"]),
        failure=failure,
    )


def match_row(match: MatchRecord) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": match.id,
        "room": match.room,
        "seed": match.seed,
        "turn_limit": match.turn_limit,
        "created_ms": match.created_ms,
        "started_ms": match.started_ms,
        "finished_ms": match.finished_ms,
        **_seat_row("p1", match.p1),
        **_seat_row("p2", match.p2),
        "status": match.status.value,
        "replay": match.replay,
        "runner": match.runner,
        "ladder": match.ladder,
        "replay_deleted_ms": match.replay_deleted_ms,
    }
    if match.result is not None:
        row.update(result_row(match.result))
    return row


def match_of(row: Row) -> MatchRecord:
    return MatchRecord(
        id=row["id"],
        room=row["room"],
        seed=int(row["seed"]),
        turn_limit=int(row["turn_limit"]),
        created_ms=int(row["created_ms"]),
        p1=_seat_of("p1", row),
        p2=_seat_of("p2", row),
        status=MatchStatus(row["status"]),
        started_ms=row["started_ms"],
        finished_ms=row["finished_ms"],
        result=_result_of(row),
        replay=row["replay"],
        runner=row["runner"],
        ladder=bool(row["ladder"]),
        replay_deleted_ms=row["replay_deleted_ms"],
    )
