"""A bot's matches of any kind, ladder and rooms, newest first, a page at a time (spec
B8 "History of every bot"): each with the opponent, the bot's side, its result, the
reason and the turns. Its owner also reads why it failed and its stderr tail, the tail
for `STDERR_KEPT_MS` after the match (older tails are not shown). A match whose replay
the retention sweep deleted (B14) says so; its tails went with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from noitu.application.arena.bot_info import viewer_of
from noitu.application.arena.match_history import (
    HISTORY_PAGE_SIZE,
    BuiltinNames,
    SeatNames,
    SeatShown,
    cursor_text,
    history_bot,
    parse_cursor,
)
from noitu.application.arena.records import MatchRecord, plays
from noitu.application.arena.storage import BotCatalogue, MatchArchive
from noitu.application.ports import Clock
from noitu.domain.arena.board import Side
from noitu.domain.arena.match import EndReason

#: How long a match's stderr tails are shown to the bot's owner (rooms and ladder alike).
STDERR_KEPT_MS = 7 * 24 * 3600 * 1000


@dataclass(frozen=True, slots=True)
class BotMatchesQuery:
    bot_id: str
    before: str | None = None
    owner_key: str | None = None


@dataclass(frozen=True, slots=True)
class FailureShown:
    code: str
    detail: str


@dataclass(frozen=True, slots=True)
class BotMatch:
    match_id: str
    room: str
    ended_ms: int
    ladder: bool
    side: Side
    opponent: SeatShown
    result: str  # "win", "loss", "draw" or "abandoned"
    reason: EndReason
    turns: int
    has_replay: bool
    #: The retention sweep deleted its replay (B14): shown as "bản ghi đã xoá".
    replay_deleted: bool
    #: The owner's alone (None for anyone else): why this bot failed the match.
    failure: FailureShown | None
    #: The owner's alone, for `STDERR_KEPT_MS`: the last bytes it wrote to stderr.
    stderr: str | None


@dataclass(frozen=True, slots=True)
class BotMatchesPage:
    matches: tuple[BotMatch, ...]
    next: str | None


def outcome(match: MatchRecord, side: Side) -> str:
    """The match's result for the bot on `side`."""
    result = match.result
    assert result is not None, "only finished matches are in a history"
    if result.reason is EndReason.ABANDONED:
        return "abandoned"
    if result.winner is None:
        return "draw"
    return "win" if result.winner is side else "loss"


class BotMatches:
    def __init__(
        self,
        catalogue: BotCatalogue,
        archive: MatchArchive,
        builtins: BuiltinNames,
        clock: Clock,
    ) -> None:
        self._catalogue = catalogue
        self._archive = archive
        self._builtins = builtins
        self._clock = clock

    async def __call__(self, query: BotMatchesQuery) -> BotMatchesPage:
        before = parse_cursor(query.before)
        viewer = viewer_of(query.owner_key)
        bot = await history_bot(self._catalogue, self._builtins, query.bot_id, viewer)
        owner = bot.owned_by(viewer)
        found = await self._archive.finished_matches(HISTORY_PAGE_SIZE + 1, before, bot=bot.id)
        page = found[:HISTORY_PAGE_SIZE]
        names = SeatNames(self._catalogue)
        kept_since = self._clock.now_ms() - STDERR_KEPT_MS
        shown = []
        for match in page:
            side = Side.P1 if plays(match.p1, bot.id) else Side.P2
            result = match.result
            assert result is not None and match.finished_ms is not None
            failure = None
            stderr = None
            if owner:
                own = result.failure
                if own is not None and own.side is side:
                    failure = FailureShown(own.code.value, own.detail)
                if match.finished_ms >= kept_since:
                    tails = await self._archive.match_stderr(match.id) or (b"", b"")
                    stderr = tails[side.number].decode("utf-8", "replace")
            shown.append(
                BotMatch(
                    match_id=match.id,
                    room=match.room,
                    ended_ms=match.finished_ms,
                    ladder=match.ladder,
                    side=side,
                    opponent=await names.show(match.p2 if side is Side.P1 else match.p1),
                    result=outcome(match, side),
                    reason=result.reason,
                    turns=result.turns,
                    has_replay=match.replay is not None,
                    replay_deleted=match.replay_deleted,
                    failure=failure,
                    stderr=stderr,
                )
            )
        more = len(found) > HISTORY_PAGE_SIZE
        return BotMatchesPage(tuple(shown), cursor_text(page[-1].cursor) if more else None)
