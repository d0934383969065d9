"""The JSON views of uploaded bots and of their matches (spec B5, B6, B8): camelCase,
made from the use cases' results."""

from __future__ import annotations

import msgspec

from noitu.adapters.http.paths import ARENA_API_PATH
from noitu.application.arena.bot_figures import BotFigures, SideRecord
from noitu.application.arena.bot_info import BotInfo
from noitu.application.arena.bot_matches import BotMatch
from noitu.application.arena.match_history import SeatShown


class BotView(msgspec.Struct, frozen=True, rename="camel"):
    id: str
    name: str
    language: str
    public: bool
    created_ms: int
    build: str  # "ok" or "failed"
    mine: bool
    build_messages: str | None  # the owner's alone
    source_bytes: int | None  # the owner's alone


class UploadedView(msgspec.Struct, frozen=True, rename="camel"):
    bot: BotView
    owner_key: str
    #: How long the build waited for a free place in the server's build queue (ms).
    build_wait_ms: int


class BotListView(msgspec.Struct, frozen=True):
    bots: list[BotView]


class PublicBotsView(msgspec.Struct, frozen=True):
    bots: list[BotView]
    #: Pass it as `before` for the next page; null on the last page.
    next: str | None


class SeatShownView(msgspec.Struct, frozen=True, rename="camel"):
    bot_id: str | None  # an uploaded bot's id or a built-in's name; null for a person
    name: str
    builtin: bool
    #: The uploaded bot was deleted since: its name reads "bot đã xoá".
    deleted: bool


class FailureView(msgspec.Struct, frozen=True):
    code: str
    detail: str


class BotMatchView(msgspec.Struct, frozen=True, rename="camel"):
    match_id: str
    room_code: str
    ended_ms: int
    ladder: bool
    side: str  # "P1" or "P2"
    opponent: SeatShownView
    result: str  # "win", "loss", "draw" or "abandoned"
    reason: str
    turns: int
    #: The replay's URL; null when the match has none (abandoned on a restart, or
    #: deleted by the retention sweep: then `replayDeleted`).
    replay: str | None
    #: The retention sweep deleted its replay and stderr (B14): "bản ghi đã xoá".
    replay_deleted: bool
    failure: FailureView | None  # the owner's alone: why this bot failed
    stderr: str | None  # the owner's alone, 7 days: its stderr's last bytes


class BotMatchesView(msgspec.Struct, frozen=True):
    matches: list[BotMatchView]
    #: Pass it as `before` for the next page; null on the last page.
    next: str | None


class SideRecordView(msgspec.Struct, frozen=True):
    wins: int
    draws: int
    losses: int


class BySideView(msgspec.Struct, frozen=True):
    P1: SideRecordView
    P2: SideRecordView


class ReplyTimesView(msgspec.Struct, frozen=True):
    p50: float
    p99: float


class BotFiguresView(msgspec.Struct, frozen=True, rename="camel"):
    by_side: BySideView
    failures: dict[str, int]
    #: From the replays of its newest 50 matches; null when none holds a reply.
    reply_ms: ReplyTimesView | None


def replay_url(match_id: str) -> str:
    return f"{ARENA_API_PATH}/matches/{match_id}/replay"


def seat_view(seat: SeatShown) -> SeatShownView:
    return SeatShownView(seat.bot_id, seat.name, seat.builtin, seat.deleted)


def bot_match_view(match: BotMatch) -> BotMatchView:
    failure = match.failure
    return BotMatchView(
        match_id=match.match_id, room_code=match.room, ended_ms=match.ended_ms,
        ladder=match.ladder, side=match.side.value, opponent=seat_view(match.opponent),
        result=match.result, reason=match.reason.value, turns=match.turns,
        replay=replay_url(match.match_id) if match.has_replay else None,
        replay_deleted=match.replay_deleted,
        failure=None if failure is None else FailureView(failure.code, failure.detail),
        stderr=match.stderr,
    )


def figures_view(figures: BotFigures) -> BotFiguresView:
    def side(record: SideRecord) -> SideRecordView:
        return SideRecordView(record.wins, record.draws, record.losses)

    reply = figures.reply_ms
    return BotFiguresView(
        BySideView(side(figures.p1), side(figures.p2)),
        figures.failures,
        None if reply is None else ReplyTimesView(reply.p50, reply.p99),
    )

def bot_view(info: BotInfo) -> BotView:
    return BotView(
        id=info.id,
        name=info.name,
        language=info.language.value,
        public=info.public,
        created_ms=info.created_ms,
        build=info.build.value,
        mine=info.mine,
        build_messages=info.build_messages,
        source_bytes=info.source_bytes,
    )
