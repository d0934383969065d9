"""PlaySeries: many seeded matches between two bots, A and B (`noitu arena match A B
--games N`), and what they add up to for each bot.

Game k (from 0) plays the seed `seed + k`; with `swap_sides` games go in pairs on one
seed, `seed + k // 2`, A as P1 in the first of the pair and B as P1 in the second, so
placement luck and the first move cancel out (an odd N plays its last seed once, A as
P1). Any game can be played again alone with `noitu arena match --seed`. Up to `jobs`
games run at once; each game's result is handed over as it ends, and the summary keeps
the games' order.

Per bot the summary counts wins, draws and losses overall and per side, the end reasons
of each outcome, the reply times of every reply it gave (p50, p99 and max in ms,
nearest-rank), and its failures with the game, seed and side to reproduce them. A's
score against B is judged as spec B11's version check judges a new version against the
previous one (`noitu arena match new old --games N`: is the new one better?).
"""

from __future__ import annotations

import asyncio
import math
import secrets
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from noitu.application.arena.ports import Artefact, ProcessFailure
from noitu.application.arena.replay import Event, MatchEvents, Player, SeatKind
from noitu.application.arena.run_match import BotSeat, MatchCommand, MatchOutcome, StderrSink
from noitu.domain.arena.board import SIDES, Side
from noitu.domain.arena.ladder.version_check import Score, judged
from noitu.domain.arena.match import DEFAULT_TURN_LIMIT, Result

OUTCOMES = ("win", "draw", "loss")


class PlaysMatch(Protocol):
    """RunMatch as the series uses it."""

    async def __call__(
        self, command: MatchCommand, events: MatchEvents, stderr: StderrSink | None = None
    ) -> MatchOutcome: ...


@dataclass(frozen=True, slots=True)
class SeriesBot:
    name: str
    kind: SeatKind
    artefact: Artefact | ProcessFailure  # a ProcessFailure (COMPILE_ERROR) loses every game


@dataclass(frozen=True, slots=True)
class Game:
    number: int  # from 1
    seed: int
    p1: int  # which bot plays P1: 0 for A, 1 for B

    def bot_on(self, side: Side) -> int:
        return self.p1 if side is Side.P1 else 1 - self.p1

    def side_of(self, bot: int) -> Side:
        return Side.P1 if bot == self.p1 else Side.P2


@dataclass(frozen=True, slots=True)
class SeriesCommand:
    bots: tuple[SeriesBot, SeriesBot]  # A, B
    games: int
    seed: int
    swap_sides: bool = False
    jobs: int = 1
    turn_limit: int = DEFAULT_TURN_LIMIT

    def schedule(self) -> list[Game]:
        if self.swap_sides:
            return [Game(k + 1, self.seed + k // 2, k % 2) for k in range(self.games)]
        return [Game(k + 1, self.seed + k, 0) for k in range(self.games)]


@dataclass(frozen=True, slots=True)
class GameResult:
    game: Game
    result: Result
    reply_ms: tuple[tuple[int, ...], tuple[int, ...]]  # P1's replies, P2's replies

    def outcome_of(self, bot: int) -> str:
        winner = self.result.winner
        if winner is None:
            return "draw"
        return "win" if self.game.bot_on(winner) == bot else "loss"


def percentile(values: Sequence[int], fraction: float) -> int | None:
    """The nearest-rank percentile of `values` (None when there are none)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(math.ceil(fraction * len(ordered)), 1) - 1]


@dataclass(slots=True)
class BotSummary:
    name: str
    outcomes: Counter[str] = field(default_factory=Counter)
    by_side: dict[Side, Counter[str]] = field(
        default_factory=lambda: {side: Counter() for side in SIDES}
    )
    reasons: dict[str, Counter[str]] = field(
        default_factory=lambda: {outcome: Counter() for outcome in OUTCOMES}
    )
    reply_ms: list[int] = field(default_factory=list)
    failures: list[dict[str, object]] = field(default_factory=list)

    def add(self, bot: int, game: GameResult) -> None:
        side = game.game.side_of(bot)
        outcome = game.outcome_of(bot)
        self.outcomes[outcome] += 1
        self.by_side[side][outcome] += 1
        self.reasons[outcome][game.result.reason.value] += 1
        self.reply_ms += game.reply_ms[side.number]
        failure = game.result.failure
        if failure is not None and failure.side is side:
            self.failures.append(
                {
                    "game": game.game.number,
                    "seed": game.game.seed,
                    "side": side.value,
                    "turn": game.result.turns,
                    "code": failure.code.value,
                    "detail": failure.detail,
                }
            )

    def to_json(self) -> dict[str, object]:
        def counts(counter: Counter[str]) -> dict[str, int]:
            return {
                "games": sum(counter.values()),
                "wins": counter["win"],
                "draws": counter["draw"],
                "losses": counter["loss"],
            }

        return {
            "name": self.name,
            **counts(self.outcomes),
            "asP1": counts(self.by_side[Side.P1]),
            "asP2": counts(self.by_side[Side.P2]),
            "reasons": {o: dict(sorted(c.items())) for o, c in self.reasons.items()},
            "replyMs": {
                "count": len(self.reply_ms),
                "p50": percentile(self.reply_ms, 0.5),
                "p99": percentile(self.reply_ms, 0.99),
                "max": max(self.reply_ms, default=None),
            },
            "failures": self.failures,
        }


@dataclass(frozen=True, slots=True)
class SeriesResult:
    command: SeriesCommand
    games: tuple[GameResult, ...]  # in the games' order
    bots: tuple[BotSummary, BotSummary]  # A, B

    def score(self) -> Score:
        """Bot A's score against bot B."""
        outcomes = self.bots[0].outcomes
        return Score(outcomes["win"], outcomes["draw"], outcomes["loss"])

    def to_json(self) -> dict[str, object]:
        score = self.score()
        low, high = score.interval()
        return {
            "games": len(self.games),
            "seed": self.command.seed,
            "swapSides": self.command.swap_sides,
            "turnLimit": self.command.turn_limit,
            "bots": [bot.to_json() for bot in self.bots],
            "comparison": {
                "rate": round(score.rate, 4),
                "low": round(low, 4),
                "high": round(high, 4),
                "verdict": judged(score).value,
            },
        }


class _ReplyTimes:
    """A match's events reduced to each side's reply times."""

    def __init__(self) -> None:
        self.ms: tuple[list[int], list[int]] = ([], [])

    def record(self, event: Event) -> None:
        if event["event"] == "received":
            ms = event["ms"]
            assert isinstance(ms, int)
            self.ms[Side(event["player"]).number].append(ms)


class PlaySeries:
    def __init__(self, run_match: PlaysMatch) -> None:
        self._run_match = run_match

    async def __call__(
        self,
        command: SeriesCommand,
        *,
        on_game: Callable[[GameResult], None] = lambda _: None,
        stderr_for: Callable[[Game], StderrSink | None] = lambda _: None,
    ) -> SeriesResult:
        if command.games < 1 or command.jobs < 1:
            raise ValueError("a series plays at least one game, at least one at a time")
        slots = asyncio.Semaphore(command.jobs)

        async def play(game: Game) -> GameResult:
            async with slots:
                done = await self._play(command, game, stderr_for(game))
            on_game(done)
            return done

        games = tuple(await asyncio.gather(*(play(game) for game in command.schedule())))
        summaries = (BotSummary(command.bots[0].name), BotSummary(command.bots[1].name))
        for game in games:
            for bot, summary in enumerate(summaries):
                summary.add(bot, game)
        return SeriesResult(command, games, summaries)

    async def _play(self, command: SeriesCommand, game: Game, stderr: StderrSink | None) -> GameResult:
        seats = []
        for side in SIDES:
            bot = command.bots[game.bot_on(side)]
            seats.append(BotSeat(Player(side, bot.name, bot.kind), bot.artefact))
        match = MatchCommand(secrets.token_hex(4).upper(), game.seed, (seats[0], seats[1]), command.turn_limit)
        times = _ReplyTimes()
        outcome = await self._run_match(match, times, stderr)
        return GameResult(game, outcome.result, (tuple(times.ms[0]), tuple(times.ms[1])))
