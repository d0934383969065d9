"""A group room of nối từ (spec B10): people against people on one room card.

What a room adds to its games (`room_game.py`): the members in join order, the seats of
the next game, and who is there: the pages holding the live feed, the host, the members
who left by being away. Time is a plain integer of milliseconds handed in by the caller.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.opponent import Difficulty
from noitu.domain.noitu.room_game import (
    BotSeat,
    Player,
    RoomGame,
    RoomRefusal,
    RoomRuleBroken,
)
from noitu.domain.noitu.rules import TurnClock

BOT_USER_ID = 0  # the bot seat's member; Telegram user ids are > 0

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
