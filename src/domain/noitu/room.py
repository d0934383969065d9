"""A group room of nối từ (spec B10): people against people on one room card.

The solo rules stay where they are: words are checked by `rules.check_word`, points
by `scoring.Score`, the opening by `rules.draw_opening`, the bot seat plays an
`Opponent` policy. What a room adds lives here: seats and turn order, the per-turn
clock with its late settlement, the bot seat's pause, players put out, the winner, the
standings, and who is there: the pages holding the live feed, the host, the members
who left by being away.

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
#: The bot seat takes its turn like a person: its word comes this long (ms, drawn
#: uniformly) after its turn began (B10 revised).
BOT_PAUSE_MS = (1_000, 2_000)

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
    # Presence (B10 revised): a member is present while one of its pages holds the feed.
    host_absent_ms: int = 2 * 60_000  # an absent host passes the role on, in the lobby
    member_absent_ms: int = 10 * 60_000  # an absent member has left, while no game runs
    feeds_per_member: int = 2  # open feeds per credential; another closes the oldest


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
class Member:
    user_id: int
    name: str
    bot: Difficulty | None = None
    #: Since when none of the member's pages holds the live feed (set at a join, before
    #: the page opens it); meaningless while one does. Always None for the bot.
    absent_since_ms: int | None = None

    @property
    def is_bot(self) -> bool:
        return self.bot is not None


@dataclass(frozen=True, slots=True)
class Page:
    """A page of a member holding the room's live feed. Its hold lasts until `until_ms`
    unless renewed, so a page whose server went away stops counting by itself."""

    user_id: int
    until_ms: int


@dataclass(frozen=True, slots=True)
class Review:
    """What applying the presence rules did: the members who left by being away, and
    whether anything the members see changed (someone left, the host passed)."""

    left: tuple[int, ...] = ()
    changed: bool = False


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
        twin = RoomGame.__new__(RoomGame)
        twin.lexicon, twin.clock = self.lexicon, self.clock
        twin.players = [replace(p) for p in self.players]
        twin.chain = self.chain.copy()
        twin.seats = self.seats.copy()
        twin.turn, twin.deadline_ms, twin.over = self.turn, self.deadline_ms, self.over
        twin.ended_ms, twin.winner, twin.steps = self.ended_ms, self.winner, self.steps
        twin.bot_word, twin.bot_due_ms = self.bot_word, self.bot_due_ms
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


@dataclass(slots=True)
class Room:
    """The members of one room card in join order, the host, the pages holding the live
    feed, and the latest game.

    Presence (B10 revised): a member is present while one of its pages holds the feed.
    The host is the first present member in join order; a host absent for
    `host_absent_ms` in the lobby passes the role to the first present member, and gets
    it back once it is present and first again. A member absent for `member_absent_ms`
    while no game runs has left. `review` applies these rules at a given time."""

    members: list[Member] = field(default_factory=list)
    game: RoomGame | None = None
    host_id: int | None = None
    pages: dict[str, Page] = field(default_factory=dict)  # by page id, oldest hold first

    @property
    def playing(self) -> bool:
        return self.game is not None and not self.game.over

    @property
    def host(self) -> int | None:
        """The host's user id (the bot is never the host)."""
        member = self.member(self.host_id) if self.host_id is not None else None
        if member is not None and not member.is_bot:
            return member.user_id
        return self._first_host()

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

    def join(self, user_id: int, name: str, limits: RoomLimits, now_ms: int) -> Member:
        """A person joins, or joins again and keeps their place. Either way they are
        absent until their page holds the feed: joining again lets go of the pages of
        their previous credential (those feeds close)."""
        member = self.member(user_id)
        if member is not None:
            member.name = name or member.name
            for page_id in self.pages_of(user_id):
                del self.pages[page_id]
            member.absent_since_ms = now_ms
            return member
        if len(self.members) >= limits.max_members:
            raise RoomRuleBroken(RoomRefusal.ROOM_FULL)
        member = Member(user_id, name, absent_since_ms=now_ms)
        self.members.append(member)
        self._settle_host()
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
        The host passes to the first present member in join order (else the first)."""
        member = self.member(user_id)
        if member is None:
            return
        self._remove(member)
        if self.playing and self.game is not None:
            player = self.game.player_of(user_id)
            if player is not None and player.alive:
                self.game.leave(player.seat, now_ms, bots)

    # --- presence ----------------------------------------------------------------------

    def present(self, user_id: int) -> bool:
        return any(page.user_id == user_id for page in self.pages.values())

    def pages_of(self, user_id: int) -> list[str]:
        """The member's pages holding the feed, oldest hold first."""
        return [page_id for page_id, page in self.pages.items() if page.user_id == user_id]

    def hold(self, page_id: str, user_id: int, until_ms: int, limits: RoomLimits) -> list[str]:
        """A page of the member holds the feed from now until `until_ms`: the member is
        present. Past `feeds_per_member` pages, the oldest let go; answers those (their
        feeds close)."""
        member = self.member(user_id)
        if member is None or member.is_bot:
            raise ValueError("only a person who is a member holds the feed")
        self.pages.pop(page_id, None)
        self.pages[page_id] = Page(user_id, until_ms)
        member.absent_since_ms = None
        mine = self.pages_of(user_id)
        dropped = mine[: max(len(mine) - limits.feeds_per_member, 0)]
        for old in dropped:
            del self.pages[old]
        self._settle_host()
        return dropped

    def renew(self, page_ids: Iterable[str], until_ms: int) -> list[str]:
        """The pages still hold the feed until `until_ms`; answers those that no longer
        hold it here (let go, or their hold ran out)."""
        missing = []
        for page_id in page_ids:
            page = self.pages.get(page_id)
            if page is None:
                missing.append(page_id)
            elif page.until_ms < until_ms:
                self.pages[page_id] = replace(page, until_ms=until_ms)
        return missing

    def release(self, page_id: str, now_ms: int) -> None:
        """The page let go of the feed; its member is absent from now if it was the
        member's last page."""
        page = self.pages.pop(page_id, None)
        if page is not None:
            self._absent(page.user_id, now_ms)

    def review(self, now_ms: int, limits: RoomLimits) -> Review:
        """The presence rules at `now_ms`: holds that ran out let go (their member absent
        since then); while no game runs, members absent for `member_absent_ms` leave and
        a host absent for `host_absent_ms` passes the role to the first present member."""
        host_before = self.host
        ran_out: dict[int, int] = {}  # user -> when their last hold ran out
        for page_id, page in list(self.pages.items()):
            if page.until_ms <= now_ms:
                del self.pages[page_id]
                ran_out[page.user_id] = max(ran_out.get(page.user_id, 0), page.until_ms)
        for user_id, until_ms in ran_out.items():
            self._absent(user_id, until_ms)
        for member in self.people:
            self._absent(member.user_id, now_ms)  # no page and no time: absent from now
        left: list[int] = []
        if not self.playing:
            for member in self.people:
                away = member.absent_since_ms
                if away is not None and now_ms - away >= limits.member_absent_ms:
                    self._remove(member)
                    left.append(member.user_id)
        self._settle_host()
        host = self.member(self.host_id) if self.host_id is not None else None
        if (
            host is not None and not self.playing
            and self._absent_for(host, now_ms) >= limits.host_absent_ms
        ):
            first = self._first_present()
            if first is not None:
                self.host_id = first.user_id
        return Review(tuple(left), bool(left) or self.host != host_before)

    def next_review_ms(self, now_ms: int, limits: RoomLimits) -> int | None:
        """The first time after `now_ms` at which `review` may change the room: a hold
        running out, an absent member's time to leave, the host's time to pass."""
        times = [page.until_ms for page in self.pages.values()]
        if not self.playing:
            for member in self.people:
                if member.absent_since_ms is not None and not self.present(member.user_id):
                    times.append(member.absent_since_ms + limits.member_absent_ms)
            host = self.member(self.host_id) if self.host_id is not None else None
            if (
                host is not None and host.absent_since_ms is not None
                and not self.present(host.user_id) and self._first_present() is not None
            ):
                times.append(host.absent_since_ms + limits.host_absent_ms)
        later = [t for t in times if t > now_ms]
        return min(later) if later else None

    # --- inside ------------------------------------------------------------------------

    def _absent(self, user_id: int, since_ms: int) -> None:
        member = self.member(user_id)
        if (
            member is not None and not member.is_bot and member.absent_since_ms is None
            and not self.present(user_id)
        ):
            member.absent_since_ms = since_ms

    def _absent_for(self, member: Member, now_ms: int) -> int:
        if member.absent_since_ms is None or self.present(member.user_id):
            return 0
        return now_ms - member.absent_since_ms

    def _first_present(self) -> Member | None:
        return next((m for m in self.people if self.present(m.user_id)), None)

    def _first_host(self) -> int | None:
        first = self._first_present() or next(iter(self.people), None)
        return first.user_id if first is not None else None

    def _settle_host(self) -> None:
        """The host is a person of the room; a present member earlier in join order than
        the host takes the role (back)."""
        current = self.member(self.host_id) if self.host_id is not None else None
        if current is None or current.is_bot:
            self.host_id = self._first_host()
            return
        first = self._first_present()
        if first is not None and self.members.index(first) < self.members.index(current):
            self.host_id = first.user_id

    def _remove(self, member: Member) -> None:
        self.members.remove(member)
        for page_id in self.pages_of(member.user_id):
            del self.pages[page_id]
        self._settle_host()

    def _check_host_in_lobby(self, by: int) -> None:
        if by != self.host:
            raise RoomRuleBroken(RoomRefusal.NOT_HOST)
        if self.playing:
            raise RoomRuleBroken(RoomRefusal.GAME_RUNNING)

    def copy(self) -> Room:
        return Room(
            [replace(m) for m in self.members],
            self.game.copy() if self.game is not None else None,
            self.host_id,
            dict(self.pages),
        )
