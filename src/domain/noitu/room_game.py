"""A game of a nối từ group room (spec B10): the chain with each word's seat, the turn
order skipping players who are out, the per-turn clock with its late settlement, the bot
seat's pause, give-up in and out of turn, the winner and the standings.

The solo rules stay where they are: words are checked by `rules.check_word`, points
by `scoring.Score`, the opening by `rules.draw_opening`, the bot seat plays an
`Opponent` policy. Time is a plain integer of milliseconds handed in by the caller;
randomness comes in as a `random.Random` (inside `BotSeat`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from copy import copy as shallow_copy
from dataclasses import dataclass, replace
from enum import Enum

from noitu.domain.noitu.chain import Chain, Side
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.opponent import Difficulty, Opponent
from noitu.domain.noitu.room_result import RoomResult, ranked
from noitu.domain.noitu.rules import MAX_CHAIN_WORDS, Rejection, TurnClock, check_word, draw_opening
from noitu.domain.noitu.scoring import Score

OPENING_SEAT = 0  # the seat written against the server's opening word
#: The bot seat takes its turn like a person: its word comes this long (ms, drawn
#: uniformly) after its turn began (B10 revised).
BOT_PAUSE_MS = (1_000, 2_000)


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
    """What the bot seat plays with: one policy per level, the random source, and the
    range of its pause before a word (ms)."""

    opponents: Mapping[Difficulty, Opponent]
    rng: random.Random
    pause_ms: tuple[int, int] = BOT_PAUSE_MS


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
        # The bot seat's word, chosen when its turn began, and when it is played.
        self.bot_word: int | None = None
        self.bot_due_ms = 0

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
        game._turn_begins(now_ms, bots)
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
        bot_word: int | None = None,
        bot_due_ms: int = 0,
    ) -> RoomGame:
        """A game saved elsewhere, rebuilt: the chain is replayed (word, seat, points)."""
        game = cls(lexicon, clock, players)
        for word, seat, points in links:
            game._append(word, seat, points)
        if not game.seats:
            raise ValueError("a game has at least its opening word")
        game.turn, game.deadline_ms, game.over = turn, deadline_ms, over
        game.ended_ms, game.winner, game.steps = ended_ms, winner, steps
        if bot_word is not None and not over:
            game.bot_word, game.bot_due_ms = bot_word, bot_due_ms
        return game

    def links(self) -> list[tuple[int, int, int]]:
        """(word, seat, points) of every word, what `restore` replays."""
        return [
            (link.word.id, seat, link.points)
            for link, seat in zip(self.chain.links, self.seats, strict=True)
        ]

    def copy(self) -> RoomGame:
        twin = shallow_copy(self)
        twin.players = [replace(p) for p in self.players]
        twin.chain = self.chain.copy()
        twin.seats = self.seats.copy()
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

    def due_ms(self) -> int | None:
        """The first time `settle` has something to do (the bot seat's word, or the turn
        running out), or None once the game is over."""
        if self.over:
            return None
        expiry = self.deadline_ms + self.clock.grace_ms + 1
        return min(self.bot_due_ms, expiry) if self.bot_word is not None else expiry

    # --- what players do ---------------------------------------------------------------

    def settle(self, now_ms: int, bots: BotSeat) -> bool:
        """Play the bot seat's word once its pause is over, and put out every player
        whose turn ran out by `now_ms`, in order; answers whether anything changed.

        Each next player's turn starts when the previous one's grace ended, so its
        deadline is the old deadline + grace + a full turn, and the bot's word is played
        at the time it was due: replaying late (no one was connected) gives the same
        game as settling on time."""
        settled = False
        grace, turn_ms = self.clock.grace_ms, self.clock.turn_ms
        while not self.over:
            if self.bot_word is not None:
                if now_ms < self.bot_due_ms:
                    break
                word, played_at = self.bot_word, self.bot_due_ms
                self.bot_word, self.bot_due_ms = None, 0
                self._accept(self.turn, word, played_at)
                self._turn_begins(played_at, bots)
                settled = True
                continue
            if not self.turn_expired(now_ms):
                break
            settled = True
            ended_at = self.deadline_ms + grace
            seat = self.turn
            reason = OutReason.TIMEOUT if self.chain.has_legal_word() else OutReason.NO_LEGAL_MOVE
            self._put_out([seat], reason, ended_at)
            if self.over:
                break
            self.turn = self._next_after(seat)
            self.deadline_ms = ended_at + turn_ms
            self._turn_begins(ended_at, bots)
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
        self._turn_begins(now_ms, bots)
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
        """How the game ended (`room_result.ranked`)."""
        if not self.over:
            raise ValueError("a game in play has no result")
        return ranked(self.players, self.player(self.winner), self.words_played, bonus)

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

    def _turn_begins(self, now_ms: int, bots: BotSeat) -> None:
        """A turn began at `now_ms`. The bot seat takes it like a person: it picks its
        word now and plays it after a pause (`settle` does, once it is due), so the feed
        shows its turn first; a bot with no word its level plays is out at once
        (`bot_stuck`) and the next player gets a full turn."""
        while not self.over:
            player = self.player(self.turn)
            if player.bot is None:
                return
            word = bots.opponents[player.bot].choose(self.chain, bots.rng)
            if word is None:
                self._leave_game(player.seat, OutReason.BOT_STUCK, now_ms, None)
                continue
            low, high = bots.pause_ms
            self.bot_word, self.bot_due_ms = word, now_ms + bots.rng.randint(low, high)
            return

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
            self._turn_begins(now_ms, bots)

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
        self.bot_word, self.bot_due_ms = None, 0
