"""The ladder over HTTP, under /arena/api/ladder (spec B8 "Entry", "Pages and routes").

Thin: each handler reads the path and the owner key, calls one use case and maps its
result to the JSON views below (camelCase); errors go through the one table in
`errors`. Ranking, unranking and resuming are the owner's (the `X-Owner-Key` header, as
for the bot routes); ranking counts toward the client address's uploads (B10). The
table is anyone's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Protocol

import msgspec
from litestar import Request, Router, delete, get, post, put
from litestar.openapi.spec import OpenAPI, OpenAPIType, Schema
from litestar.openapi.spec import Parameter as OpenAPIParameter
from litestar.params import FromPath, Parameter

from noitu.adapters.http.arena.bot_views import SeatShownView, replay_url, seat_view
from noitu.adapters.http.arena.bots import MATCH_CURSOR_PATTERN, MAX_BODY_BYTES
from noitu.adapters.http.arena.owner_key import OwnerKey, require_owner_key
from noitu.adapters.http.client_address import ClientAddresses
from noitu.adapters.http.errors import error_responses
from noitu.adapters.http.paths import ARENA_API_PATH
from noitu.application.arena.errors import (
    AddressTooManyUploads,
    BadOwnerKey,
    BadRequest,
    BotNotBuilt,
    BotNotFound,
    NotOwner,
)
from noitu.application.arena.ladder.errors import NotRanked, TooManyRanked
from noitu.application.arena.ladder.ladder_bot import (
    RATINGS_PAGE_SIZE,
    LadderBotOf,
    LadderBotQuery,
)
from noitu.application.arena.ladder.ladder_matches import (
    LadderMatch,
    LadderMatches,
    LadderMatchesQuery,
)
from noitu.application.arena.ladder.list_ladder import (
    MAX_AFTER,
    TABLE_PAGE_SIZE,
    ListedBot,
    ListLadder,
)
from noitu.application.arena.ladder.rank_bot import RankBot, RankBotCommand, RankedBot
from noitu.application.arena.ladder.resume_bot import ResumeBot, ResumeBotCommand
from noitu.application.arena.ladder.unrank_bot import UnrankBot, UnrankBotCommand
from noitu.application.errors import Busy

LADDER_PATH = f"{ARENA_API_PATH}/ladder"


class LadderRowView(msgspec.Struct, frozen=True, rename="camel"):
    rank: int
    bot_id: str  # an uploaded bot's id, or a built-in's name
    name: str
    language: str
    builtin: bool
    mu: float
    sigma: float
    ordinal: float  # μ − 3σ, what the table is ordered by
    games: int
    wins: int
    draws: int
    losses: int
    last_game_ms: int | None
    suspended: bool


class LadderView(msgspec.Struct, frozen=True):
    rows: list[LadderRowView]
    #: Pass it as `after` for the next page (the last rank shown); null on the last page.
    next: int | None


class RankedView(msgspec.Struct, frozen=True, rename="camel"):
    bot_id: str
    suspended: bool
    #: Failed ladder matches in a row (three suspend the bot).
    failures_in_row: int
    #: Still playing its first pairings against the built-ins.
    in_placement: bool


class UnrankedView(msgspec.Struct, frozen=True, rename="camel"):
    bot_id: str
    #: False when the bot was not ranked (nothing changed).
    was_ranked: bool


class RatingPointView(msgspec.Struct, frozen=True):
    ms: int
    mu: float
    sigma: float
    ordinal: float


class LadderBotView(msgspec.Struct, frozen=True):
    #: The bot's row of the table; null once it left the table (unranked).
    row: LadderRowView | None
    #: Its rating after each of its rated ladder matches, oldest first: its newest
    #: ones, or those before `before`, at most RATINGS_PAGE_SIZE.
    ratings: list[RatingPointView]
    #: Pass it as `before` for the older ratings; null when these are the oldest.
    next: str | None


class LadderMatchView(msgspec.Struct, frozen=True, rename="camel"):
    match_id: str
    room_code: str
    ended_ms: int
    p1: SeatShownView
    p2: SeatShownView
    winner: str | None  # "P1", "P2", or null for a draw or an abandoned match
    reason: str
    turns: int
    #: The replay's URL; null when the match has none (abandoned on a restart, or
    #: deleted by the retention sweep: then `replayDeleted`).
    replay: str | None
    #: The retention sweep deleted its replay (B14): "bản ghi đã xoá".
    replay_deleted: bool
    #: False for a match the ladder did not rate (abandoned, or the server's failure).
    rated: bool


class LadderMatchesView(msgspec.Struct, frozen=True):
    matches: list[LadderMatchView]
    #: Pass it as `before` for the next page; null on the last page.
    next: str | None


def ladder_match_view(match: LadderMatch) -> LadderMatchView:
    return LadderMatchView(
        match_id=match.match_id, room_code=match.room, ended_ms=match.ended_ms,
        p1=seat_view(match.p1), p2=seat_view(match.p2),
        winner=None if match.winner is None else match.winner.value,
        reason=match.reason.value, turns=match.turns,
        replay=replay_url(match.match_id) if match.has_replay else None,
        replay_deleted=match.replay_deleted, rated=match.rated,
    )


def row_view(listed: ListedBot) -> LadderRowView:
    row = listed.row
    return LadderRowView(
        rank=row.rank, bot_id=row.bot, name=listed.name, language=listed.language.value,
        builtin=row.builtin, mu=row.mu, sigma=row.sigma, ordinal=row.ordinal,
        games=row.games, wins=row.wins, draws=row.draws, losses=row.losses,
        last_game_ms=row.last_game_ms, suspended=row.suspended,
    )


def ranked_view(ranked: RankedBot) -> RankedView:
    return RankedView(ranked.bot_id, ranked.suspended, ranked.failures_in_row, ranked.in_placement)


class ArenaLadderUseCases(Protocol):
    """Where the ladder's routes find their use cases (the composition root's providers
    fit)."""

    rank_bot: Callable[[], RankBot]
    client_addresses: Callable[[], ClientAddresses]
    unrank_bot: Callable[[], UnrankBot]
    resume_bot: Callable[[], ResumeBot]
    list_ladder: Callable[[], ListLadder]
    ladder_bot: Callable[[], LadderBotOf]
    ladder_matches: Callable[[], LadderMatches]


#: The routes only a bot's owner may call: the document says they need the key.
KEYED = {("put", "/bots/{bot_id}"), ("delete", "/bots/{bot_id}"), ("post", "/bots/{bot_id}/resume")}


def tighten_ladder_schema(schema: OpenAPI) -> None:
    """Say in the document what the handlers enforce: the owner's routes need the key
    (without it no bot is the caller's), and a bot's ratings are paged by the matches'
    cursor (`<ms>.<match id>`)."""
    require_owner_key(schema, LADDER_PATH, KEYED, "ladder")
    item = (schema.paths or {}).get(f"{LADDER_PATH}/bots/{{bot_id}}")
    operation = item.get if item is not None else None
    for parameter in (operation.parameters or []) if operation else []:
        if isinstance(parameter, OpenAPIParameter) and parameter.name == "before":
            parameter.schema = Schema(
                type=OpenAPIType.STRING, pattern=MATCH_CURSOR_PATTERN,
                description=parameter.description,
            )
            return
    raise RuntimeError("the OpenAPI document lacks the ratings' `before`")


def arena_ladder_routers(use_cases: ArenaLadderUseCases) -> list[Any]:
    @get(
        "/",
        summary="The ladder's table: every ranked bot, built-ins included, by μ − 3σ",
        description=f"{TABLE_PAGE_SIZE} rows a page, from the top; `after` starts after a rank.",
        responses=error_responses(Busy),
    )
    async def table(
        after: Annotated[
            int, Parameter(ge=0, le=MAX_AFTER, description="The previous page's `next`")
        ] = 0,
    ) -> LadderView:
        page = await use_cases.list_ladder()(after)
        return LadderView([row_view(listed) for listed in page.rows], page.next)

    @get(
        "/bots/{bot_id:str}",
        summary="One bot on the ladder: its row and its rating after each rated match",
        description=(
            "Built-ins by their name. The ratings come newest page first, "
            f"{RATINGS_PAGE_SIZE} a page, each page oldest first. 404 for a bot that was "
            "never on the ladder."
        ),
        responses=error_responses(BadOwnerKey, BotNotFound, Busy),
    )
    async def one_bot(
        bot_id: FromPath[str],
        owner_key: OwnerKey = None,
        before: Annotated[str | None, Parameter(description="The previous page's `next`")] = None,
    ) -> LadderBotView:
        found = await use_cases.ladder_bot()(LadderBotQuery(bot_id, owner_key, before))
        return LadderBotView(
            None if found.row is None else row_view(found.row),
            [RatingPointView(p.ms, p.mu, p.sigma, p.ordinal) for p in found.ratings],
            found.next,
        )

    @get(
        "/matches",
        summary="The ladder's matches, newest first, 50 a page; `bot` keeps one bot's",
        responses=error_responses(BadRequest, Busy),
    )
    async def ladder_matches(
        before: Annotated[str | None, Parameter(description="The previous page's `next`")] = None,
        bot: Annotated[
            str | None, Parameter(description="An uploaded bot's id or a built-in's name")
        ] = None,
    ) -> LadderMatchesView:
        page = await use_cases.ladder_matches()(LadderMatchesQuery(before, bot))
        return LadderMatchesView([ladder_match_view(m) for m in page.matches], page.next)

    @put(
        "/bots/{bot_id:str}",
        summary="Rank one's built bot: it becomes public and joins the ladder",
        description=(
            "At most 3 ranked bots per owner. Ranking a ranked bot changes nothing. "
            "Ranking counts toward the client address's uploads a minute."
        ),
        responses=error_responses(
            BadOwnerKey, NotOwner, BotNotFound, BotNotBuilt, TooManyRanked,
            AddressTooManyUploads, Busy,
        ),
    )
    async def rank(
        request: Request, bot_id: FromPath[str], owner_key: OwnerKey = None
    ) -> RankedView:
        address = use_cases.client_addresses().of(request)
        command = RankBotCommand(bot_id, owner_key, address)
        return ranked_view(await use_cases.rank_bot()(command))

    @delete(
        "/bots/{bot_id:str}",
        status_code=200,
        summary="Take one's bot off the ladder; it stays public and its results stay",
        responses=error_responses(BadOwnerKey, NotOwner, BotNotFound, Busy),
    )
    async def unrank(bot_id: FromPath[str], owner_key: OwnerKey = None) -> UnrankedView:
        unranked = await use_cases.unrank_bot()(UnrankBotCommand(bot_id, owner_key))
        return UnrankedView(unranked.bot_id, unranked.was_ranked)

    @post(
        "/bots/{bot_id:str}/resume",
        status_code=200,
        summary="Resume one's suspended ranked bot: its failures in a row start again at 0",
        responses=error_responses(BadOwnerKey, NotOwner, BotNotFound, NotRanked, Busy),
    )
    async def resume(bot_id: FromPath[str], owner_key: OwnerKey = None) -> RankedView:
        return ranked_view(await use_cases.resume_bot()(ResumeBotCommand(bot_id, owner_key)))

    return [
        Router(
            path=LADDER_PATH,
            route_handlers=[table, one_bot, ladder_matches, rank, unrank, resume],
            request_max_body_size=MAX_BODY_BYTES,
            tags=["arena"],
        )
    ]
