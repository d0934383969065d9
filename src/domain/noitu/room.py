"""A group room of nối từ (spec B10): people against people on one room card.

The solo rules stay where they are: words are checked by `rules.check_word`, points
by `scoring.Score`, the opening by `rules.draw_opening`, the bot seat plays an
`Opponent` policy. What a room adds lives here: seats and turn order, the per-turn
clock with its late settlement, players put out, the winner, the standings, the host.

Time is a plain integer of milliseconds handed in by the caller; randomness comes in
as a `random.Random` (inside `BotSeat`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum

from noitu.domain.noitu.chain import Chain, Side
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.opponent import Difficulty, Opponent
from noitu.domain.noitu.rules import MAX_CHAIN_WORDS, Rejection, TurnClock, check_word, draw_opening
from noitu.domain.noitu.scoring import Score

BOT_USER_ID = 0  # the bot seat's member; Telegram user ids are > 0
OPENING_SEAT = 0  # the seat written against the server's opening word

BOT_NAMES: dict[Difficulty, str] = {
    Difficulty.EASY: "Bot (dễ)",
    Difficulty.MEDIUM: "Bot (vừa)",
    Difficulty.HARD: "Bot (khó)",
}


@dataclass(frozen=True, slots=True)
class RoomLimits:
    """Every number of B10, once."""

    min_players: int = 2
    max_players: int = 8  # the first 8 members play, the others watch
    max_members: int = 32
    max_rooms_per_chat: int = 3
    max_rooms: int = 500  # live rooms on a server (across instances on Redis)
    idle_close_ms: int = 10 * 60_000  # a room with no member and no game closes
    card_keep_ms: int = 30 * 24 * 3600 * 1000  # a card is kept 30 days after its last Play
    winner_bonus: int = 50
    move_interval_ms: int = 300  # per member, as solo's per session


class OutReason(str, Enum):
    TIMEOUT = "timeout"
    NO_LEGAL_MOVE = "no_legal_move"
    GAVE_UP = "gave_up"
    LEFT = "left"
    BOT_STUCK = "bot_stuck"


class RoomRefusal(str, Enum):
    """Why a room refuses what a member asks (each maps to one error code)."""

    NO_GAME = "no_game"
    WATCHING = "watching"
    OUT_OF_GAME = "out_of_game"
    NOT_YOUR_TURN = "not_your_turn"
    ROOM_FULL = "room_full"
    NOT_HOST = "not_host"
    NOT_ENOUGH_PLAYERS = "not_enough_players"
    GAME_RUNNING = "game_running"


class RoomRuleBroken(Exception):
    def __init__(self, refusal: RoomRefusal) -> None:
        self.refusal = refusal
        super().__init__(refusal.value)


@dataclass(frozen=True, slots=True)
class BotSeat:
    """What the bot seat plays with: one policy per level and the random source."""

    opponents: Mapping[Difficulty, Opponent]
    rng: random.Random


@dataclass(slots=True)
class Member:
    user_id: int
    name: str
    bot: Difficulty | None = None

    @property
    def is_bot(self) -> bool:
        return self.bot is not None


@dataclass(slots=True)
class Player:
    seat: int
    user_id: int
    name: str
    bot: Difficulty | None = None
    score: int = 0
    out_reason: OutReason | None = None
    out_step: int = 0  # the order players went out in; put out together, one step

    @property
    def alive(self) -> bool:
        return self.out_reason is None


@dataclass(frozen=True, slots=True)
class Standing:
    seat: int
    user_id: int
    name: str
    score: int  # the points of the player's words
    bonus: int
    out_reason: OutReason | None

    @property
    def total(self) -> int:
        return self.score + self.bonus


@dataclass(frozen=True, slots=True)
class RoomResult:
    winner: int  # a seat
    words: int  # words played after the opening
    standings: tuple[Standing, ...]

    @property
    def counts(self) -> bool:
        """A game with no word after the opening gives no score, no announcement and no
        leaderboard entry."""
        return self.words > 0

    @property
    def winner_standing(self) -> Standing:
        return self.standings[0]


@dataclass(frozen=True, slots=True)
class RoomMove:
    """What a person's word did: accepted, or the solo rejection it met."""

    accepted: bool
    rejection: Rejection | None = None
    word: int | None = None


class RoomGame:
    """One game of a room: the chain with the seat of each word, the players, whose turn
    it is and until when, and how it ended."""

    def __init__(self, lexicon: Lexicon, clock: TurnClock, players: list[Player]) -> None:
        self.lexicon = lexicon
        self.clock = clock
        self.players = players
        self.chain = Chain(lexicon)
        self.seats: list[int] = []  # the seat of every word of the chain
        self.turn = 0
        self.deadline_ms = 0
        self.over = False
        self.ended_ms = 0
        self.winner = 0
        self.steps = 0

    # --- making and copying ------------------------------------------------------------

    @classmethod
    def start(
        cls,
        lexicon: Lexicon,
        clock: TurnClock,
        players: list[Player],
        bots: BotSeat,
        now_ms: int,
    ) -> RoomGame:
        """The server opens as in solo; seat 1 answers first with a full turn."""
        game = cls(lexicon, clock, players)
        game.chain.append(draw_opening(lexicon, bots.rng), Side.BOT, 0)
        game.seats.append(OPENING_SEAT)
        game.turn = players[0].seat
        game.deadline_ms = now_ms + clock.turn_ms
        game._bots_play(now_ms, bots)
        return game

    @classmethod
    def restore(
        cls,
        lexicon: Lexicon,
        clock: TurnClock,
        players: list[Player],
        links: Iterable[tuple[int, int, int]],
        *,
        turn: int,
        deadline_ms: int,
        over: bool,
        ended_ms: int,
        winner: int,
        steps: int,
    ) -> RoomGame:
        """A game saved elsewhere, rebuilt: the chain is replayed (word, seat, points)."""
        game = cls(lexicon, clock, players)
        for word, seat, points in links:
            game._append(word, seat, points)
        if not game.seats:
            raise ValueError("a game has at least its opening word")
        game.turn, game.deadline_ms, game.over = turn, deadline_ms, over
        game.ended_ms, game.winner, game.steps = ended_ms, winner, steps
        return game

    def links(self) -> list[tuple[int, int, int]]:
        """(word, seat, points) of every word, what `restore` replays."""
        return [
            (link.word.id, seat, link.points)
            for link, seat in zip(self.chain.links, self.seats, strict=True)
        ]

    def copy(self) -> RoomGame:
        twin = RoomGame.__new__(RoomGame)
        twin.lexicon, twin.clock = self.lexicon, self.clock
        twin.players = [replace(p) for p in self.players]
        twin.chain = self.chain.copy()
        twin.seats = self.seats.copy()
        twin.turn, twin.deadline_ms, twin.over = self.turn, self.deadline_ms, self.over
        twin.ended_ms, twin.winner, twin.steps = self.ended_ms, self.winner, self.steps
        return twin

    # --- reading -----------------------------------------------------------------------

    def player(self, seat: int) -> Player:
        for player in self.players:
            if player.seat == seat:
                return player
        raise KeyError(seat)

    def player_of(self, user_id: int) -> Player | None:
        return next((p for p in self.players if p.user_id == user_id), None)

    @property
    def alive(self) -> list[Player]:
        return [p for p in self.players if p.alive]

    @property
    def words_played(self) -> int:
        """Words played after the opening."""
        return len(self.seats) - 1

    def turn_expired(self, now_ms: int) -> bool:
        return not self.over and now_ms > self.deadline_ms + self.clock.grace_ms

    # --- what players do ---------------------------------------------------------------

    def settle(self, now_ms: int, bots: BotSeat) -> bool:
        """Put out every player whose turn ran out by `now_ms`, in order.

        Each next player's turn starts when the previous one's grace ended, so its
        deadline is the old deadline + grace + a full turn: replaying late (no one was
        connected) gives the same game as settling on time."""
        settled = False
        grace, turn_ms = self.clock.grace_ms, self.clock.turn_ms
        while self.turn_expired(now_ms):
            settled = True
            ended_at = self.deadline_ms + grace
            seat = self.turn
            reason = OutReason.TIMEOUT if self.chain.has_legal_word() else OutReason.NO_LEGAL_MOVE
            self._put_out([seat], reason, ended_at)
            if self.over:
                break
            self.turn = self._next_after(seat)
            self.deadline_ms = ended_at + turn_ms
            self._bots_play(ended_at, bots)
        return settled

    def check_turn(self, user_id: int) -> Player:
        """The player of `user_id` if they may play now; refusals in B10's order."""
        player = self.check_alive(user_id)
        if player.seat != self.turn:
            raise RoomRuleBroken(RoomRefusal.NOT_YOUR_TURN)
        return player

    def check_alive(self, user_id: int) -> Player:
        """The player of `user_id` if the game runs and they are still in it."""
        if self.over:
            raise RoomRuleBroken(RoomRefusal.NO_GAME)
        player = self.player_of(user_id)
        if player is None:
            raise RoomRuleBroken(RoomRefusal.WATCHING)
        if not player.alive:
            raise RoomRuleBroken(RoomRefusal.OUT_OF_GAME)
        return player

    def play(self, seat: int, typed: str, now_ms: int, bots: BotSeat) -> RoomMove:
        """A normalized word of the player on turn, checked as in solo. The caller has
        settled expired turns and checked the turn (`check_turn`)."""
        if self.over or seat != self.turn or self.turn_expired(now_ms):
            raise ValueError("play() needs the player on turn, with the turn still open")
        rejection, word = check_word(self.chain, typed)
        if rejection is not None or word is None:
            return RoomMove(False, rejection, word)
        self._accept(seat, word, now_ms)
        self._bots_play(now_ms, bots)
        return RoomMove(True, word=word)

    def give_up(self, seat: int, now_ms: int, bots: BotSeat) -> None:
        """"Chịu thua": the player is out. On their own turn the next player gets a full
        turn from now; out of turn the clock is left alone."""
        on_turn = seat == self.turn
        reason = OutReason.GAVE_UP
        if on_turn and not self.chain.has_legal_word():
            reason = OutReason.NO_LEGAL_MOVE
        self._leave_game(seat, reason, now_ms, bots)

    def leave(self, seat: int, now_ms: int, bots: BotSeat) -> None:
        self._leave_game(seat, OutReason.LEFT, now_ms, bots)

    # --- the end -----------------------------------------------------------------------

    def result(self, bonus: int) -> RoomResult:
        """The standings: the winner; the other survivors by points (ties: earlier
        seat); the players out, last out first (out together: earlier seat first). The
        winner gets the bonus when a word was played after the opening."""
        if not self.over:
            raise ValueError("a game in play has no result")
        words = self.words_played
        winner = self.player(self.winner)
        others = [p for p in self.players if p is not winner]
        survivors = sorted((p for p in others if p.alive), key=lambda p: (-p.score, p.seat))
        out = sorted((p for p in others if not p.alive), key=lambda p: (-p.out_step, p.seat))
        ranked = [winner, *survivors, *out]
        return RoomResult(
            winner=winner.seat,
            words=words,
            standings=tuple(
                Standing(
                    p.seat, p.user_id, p.name, p.score,
                    bonus if p is winner and words > 0 else 0, p.out_reason,
                )
                for p in ranked
            ),
        )

    # --- inside ------------------------------------------------------------------------

    def _append(self, word: int, seat: int, points: int) -> None:
        by = Side.BOT if seat == OPENING_SEAT or self.player(seat).bot else Side.PLAYER
        self.chain.append(word, by, points)
        self.seats.append(seat)

    def _accept(self, seat: int, word: int, now_ms: int) -> None:
        lexicon, chain = self.lexicon, self.chain
        points = Score.of(
            words_before=len(chain),
            syllables=lexicon.syllable_counts[word],
            time_left_ms=self.deadline_ms - now_ms,
            turn_ms=self.clock.turn_ms,
            replies_to_answered=lexicon.out_degree[chain.current],
        ).total
        self._append(word, seat, points)
        self.player(seat).score += points
        if not chain.has_legal_word():
            # A closing word wins at once, even as the last word the cap allows.
            others = [p.seat for p in self.alive if p.seat != seat]
            self._put_out(others, OutReason.NO_LEGAL_MOVE, now_ms)
            self._end(seat, now_ms)
        elif len(chain) >= MAX_CHAIN_WORDS:
            best = min(self.alive, key=lambda p: (-p.score, p.seat))
            self._end(best.seat, now_ms)
        else:
            self.turn = self._next_after(seat)
            self.deadline_ms = now_ms + self.clock.turn_ms

    def _bots_play(self, now_ms: int, bots: BotSeat) -> None:
        """The bot seat answers at once when the turn is its own; a bot with no word its
        level plays is out (`bot_stuck`) and the next player gets a full turn."""
        while not self.over:
            player = self.player(self.turn)
            if player.bot is None:
                return
            word = bots.opponents[player.bot].choose(self.chain, bots.rng)
            if word is None:
                self._leave_game(player.seat, OutReason.BOT_STUCK, now_ms, None)
                continue
            self._accept(player.seat, word, now_ms)

    def _leave_game(
        self, seat: int, reason: OutReason, now_ms: int, bots: BotSeat | None
    ) -> None:
        if self.over or not self.player(seat).alive:
            return
        on_turn = seat == self.turn
        self._put_out([seat], reason, now_ms)
        if self.over or not on_turn:
            return
        self.turn = self._next_after(seat)
        self.deadline_ms = now_ms + self.clock.turn_ms
        if bots is not None:
            self._bots_play(now_ms, bots)

    def _put_out(self, seats: list[int], reason: OutReason, now_ms: int) -> None:
        if not seats:
            return
        self.steps += 1
        for seat in seats:
            player = self.player(seat)
            player.out_reason = reason
            player.out_step = self.steps
        alive = self.alive
        if len(alive) == 1:
            self._end(alive[0].seat, now_ms)

    def _next_after(self, seat: int) -> int:
        """The next seat still in, after `seat`, round the table."""
        order = [p.seat for p in self.players]
        start = order.index(seat)
        for step in range(1, len(order) + 1):
            candidate = self.player(order[(start + step) % len(order)])
            if candidate.alive:
                return candidate.seat
        raise ValueError("no player left in")

    def _end(self, winner: int, now_ms: int) -> None:
        self.over = True
        self.winner = winner
        self.ended_ms = now_ms
        self.deadline_ms = 0


@dataclass(slots=True)
class Room:
    """The members of one room card in join order, the host and the latest game."""

    members: list[Member] = field(default_factory=list)
    game: RoomGame | None = None

    @property
    def playing(self) -> bool:
        return self.game is not None and not self.game.over

    @property
    def host(self) -> int | None:
        """The first person in join order (the bot is never the host)."""
        return next((m.user_id for m in self.members if not m.is_bot), None)

    @property
    def bot(self) -> Member | None:
        return next((m for m in self.members if m.is_bot), None)

    @property
    def people(self) -> list[Member]:
        return [m for m in self.members if not m.is_bot]

    def member(self, user_id: int) -> Member | None:
        return next((m for m in self.members if m.user_id == user_id), None)

    def lobby_seat(self, user_id: int, limits: RoomLimits) -> int | None:
        """The seat a member takes at the next game: the first 8 members play."""
        for index, member in enumerate(self.members[: limits.max_players]):
            if member.user_id == user_id:
                return index + 1
        return None

    def seat_of(self, user_id: int, limits: RoomLimits) -> int | None:
        """The member's seat in the game being played, else at the next game."""
        if self.playing and self.game is not None:
            player = self.game.player_of(user_id)
            return player.seat if player else None
        return self.lobby_seat(user_id, limits)

    def watchers(self, limits: RoomLimits) -> int:
        if self.playing and self.game is not None:
            in_game = {p.user_id for p in self.game.players}
            return sum(1 for m in self.members if m.user_id not in in_game)
        return max(len(self.members) - limits.max_players, 0)

    def join(self, user_id: int, name: str, limits: RoomLimits) -> Member:
        """A person joins, or joins again and keeps their place."""
        member = self.member(user_id)
        if member is not None:
            member.name = name or member.name
            return member
        if len(self.members) >= limits.max_members:
            raise RoomRuleBroken(RoomRefusal.ROOM_FULL)
        member = Member(user_id, name)
        self.members.append(member)
        return member

    def set_bot(self, by: int, level: Difficulty | None, limits: RoomLimits) -> None:
        """The host adds the bot (or changes its level), or removes it with None."""
        self._check_host_in_lobby(by)
        bot = self.bot
        if level is None:
            if bot is not None:
                self.members.remove(bot)
            return
        if bot is not None:
            bot.bot, bot.name = level, BOT_NAMES[level]
            return
        if len(self.members) >= min(limits.max_players, limits.max_members):
            raise RoomRuleBroken(RoomRefusal.ROOM_FULL)
        self.members.append(Member(BOT_USER_ID, BOT_NAMES[level], level))

    def start(
        self, by: int, lexicon: Lexicon, clock: TurnClock, bots: BotSeat, now_ms: int,
        limits: RoomLimits,
    ) -> RoomGame:
        self.check_start(by, limits)
        seated = self.members[: limits.max_players]
        players = [
            Player(seat, m.user_id, m.name, m.bot) for seat, m in enumerate(seated, start=1)
        ]
        self.game = RoomGame.start(lexicon, clock, players, bots, now_ms)
        return self.game

    def check_start(self, by: int, limits: RoomLimits) -> None:
        """Refuse a start as `start` would, without starting."""
        self._check_host_in_lobby(by)
        if len(self.members[: limits.max_players]) < limits.min_players:
            raise RoomRuleBroken(RoomRefusal.NOT_ENOUGH_PLAYERS)

    def leave(self, user_id: int, now_ms: int, bots: BotSeat) -> None:
        """A member leaves: their seat is freed, and in a game they are out (`left`).
        The host passes to the next member in join order."""
        member = self.member(user_id)
        if member is None:
            return
        self.members.remove(member)
        if self.playing and self.game is not None:
            player = self.game.player_of(user_id)
            if player is not None and player.alive:
                self.game.leave(player.seat, now_ms, bots)

    def _check_host_in_lobby(self, by: int) -> None:
        if by != self.host:
            raise RoomRuleBroken(RoomRefusal.NOT_HOST)
        if self.playing:
            raise RoomRuleBroken(RoomRefusal.GAME_RUNNING)

    def copy(self) -> Room:
        return Room(
            [replace(m) for m in self.members],
            self.game.copy() if self.game is not None else None,
        )
