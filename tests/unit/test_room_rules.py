"""The group room's rules on the domain alone (spec B10): seats and turns, the clock and
its late settlement, players put out, a closing word, the cap, standings, the host."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from noitu.adapters.noitu.dictionary_file import lexicon_from_lines
from noitu.domain.noitu.bots import BotIndex, make_opponents
from noitu.domain.noitu.chain import Chain
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.opponent import Difficulty
from noitu.domain.noitu.room import BOT_NAMES, BOT_USER_ID, Review, Room, RoomLimits
from noitu.domain.noitu.room_game import (
    BOT_PAUSE_MS,
    BotSeat,
    OutReason,
    Player,
    RoomGame,
    RoomRefusal,
    RoomRuleBroken,
)
from noitu.domain.noitu.rules import MAX_CHAIN_WORDS, Rejection, TurnClock
from noitu.domain.noitu.scoring import Score
from support.dictionaries import chain_dictionary

T0 = 1_000_000
CLOCK = TurnClock()
LIMITS = RoomLimits()


class StuckOpponent:
    """A policy that never knows a word."""

    def choose(self, chain: Chain, rng: random.Random) -> int | None:
        return None


def bots_for(lexicon: Lexicon) -> BotSeat:
    return BotSeat(make_opponents(BotIndex(lexicon)), random.Random(1))


def players(count: int) -> list[Player]:
    return [Player(seat, 100 + seat, f"P{seat}") for seat in range(1, count + 1)]


def new_game(lexicon: Lexicon, count: int = 3) -> tuple[RoomGame, BotSeat]:
    bots = bots_for(lexicon)
    return RoomGame.start(lexicon, CLOCK, players(count), bots, T0), bots


def words(game: RoomGame) -> list[str]:
    return [link.word.text for link in game.chain.links]


def out_reasons(game: RoomGame) -> dict[int, OutReason | None]:
    return {p.seat: p.out_reason for p in game.players}


# --- turns -------------------------------------------------------------------------------


def test_seat_one_answers_the_opening_then_seats_in_order(little):
    game, bots = new_game(little)
    assert words(game) == ["mở đầu"] and game.seats == [0]
    assert game.turn == 1 and game.deadline_ms == T0 + 30_000
    assert game.play(1, "đầu tiên", T0 + 1_000, bots).accepted
    assert game.turn == 2 and game.deadline_ms == T0 + 31_000
    assert game.play(2, "tiên sinh", T0 + 2_000, bots).accepted
    assert game.turn == 3
    assert game.seats == [0, 1, 2]


def test_a_rejected_word_keeps_the_turn_and_the_clock(little):
    game, bots = new_game(little)
    move = game.play(1, "tiên sinh", T0 + 5_000, bots)
    assert not move.accepted and move.rejection is Rejection.WRONG_LINK
    assert game.turn == 1 and game.deadline_ms == T0 + 30_000


def test_points_are_solo_points_with_the_chain_counting_every_word(little):
    game, bots = new_game(little)
    game.play(1, "đầu tiên", T0, bots)  # speed 10, chain 2×1, rarity of "đầu" (4 words): 9
    game.play(2, "tiên sinh", T0 + 15_000, bots)  # speed 5, chain 2×2, "tiên" (1 word): 15
    assert [link.points for link in game.chain.links] == [0, 10 + 2 + 10 + 9, 10 + 4 + 5 + 15]
    assert [p.score for p in game.players] == [31, 34, 0]


def test_turns_skip_players_who_are_out(little):
    game, bots = new_game(little, 4)
    game.give_up(2, T0 + 1_000, bots)  # out of turn
    game.play(1, "đầu tiên", T0 + 2_000, bots)
    assert game.turn == 3
    game.play(3, "tiên sinh", T0 + 3_000, bots)
    game.give_up(4, T0 + 4_000, bots)  # on turn: seat 1 is next, seat 2 being out
    assert game.turn == 1


def test_checks_in_order_watching_out_not_your_turn(little):
    game, bots = new_game(little)
    with pytest.raises(RoomRuleBroken) as refused:
        game.check_turn(999)
    assert refused.value.refusal is RoomRefusal.WATCHING
    with pytest.raises(RoomRuleBroken) as refused:
        game.check_turn(102)
    assert refused.value.refusal is RoomRefusal.NOT_YOUR_TURN
    game.give_up(2, T0, bots)
    with pytest.raises(RoomRuleBroken) as refused:
        game.check_turn(102)
    assert refused.value.refusal is RoomRefusal.OUT_OF_GAME
    assert game.check_turn(101).seat == 1


# --- the clock ---------------------------------------------------------------------------


def test_a_move_counts_in_the_grace_without_speed_points(little):
    game, bots = new_game(little)
    assert not game.turn_expired(T0 + 32_000)
    game.play(1, "đầu tiên", T0 + 32_000, bots)
    assert game.chain.links[1].points == 10 + 2 + 0 + 9


def test_a_turn_run_out_puts_the_player_out_and_the_next_has_a_full_turn(little):
    game, bots = new_game(little)
    assert not game.settle(T0 + 32_000, bots)
    assert game.settle(T0 + 32_001, bots)
    assert out_reasons(game) == {1: OutReason.TIMEOUT, 2: None, 3: None}
    assert game.turn == 2
    assert game.deadline_ms == T0 + 30_000 + 2_000 + 30_000  # old deadline + grace + turn
    assert words(game) == ["mở đầu"]  # the next continues from the same syllable


def test_several_expired_turns_settle_in_order_at_once(little):
    game, bots = new_game(little, 4)
    # Nobody connected for 70 s: seat 1's turn ended at T0+32 s, seat 2's at T0+64 s.
    assert game.settle(T0 + 70_000, bots)
    assert out_reasons(game) == {1: OutReason.TIMEOUT, 2: OutReason.TIMEOUT, 3: None, 4: None}
    assert game.turn == 3 and game.deadline_ms == T0 + 94_000
    # Seat 3 still has its whole turn from when seat 2's ended: speed points from it.
    game.play(3, "đầu tiên", T0 + 79_000, bots)
    assert game.chain.links[1].points == 10 + 2 + 5 + 9


def test_a_late_settlement_replays_what_settling_on_time_would_have_done(little):
    on_time, bots = new_game(little, 5)
    for now in range(T0, T0 + 200_000, 500):
        on_time.settle(now, bots)
    late, late_bots = new_game(little, 5)
    late.settle(T0 + 199_500, late_bots)
    for game in (on_time, late):
        assert game.over and game.winner == 5
        assert game.ended_ms == T0 + 4 * 32_000
    assert [(p.out_reason, p.out_step) for p in on_time.players] == [
        (p.out_reason, p.out_step) for p in late.players
    ]
    assert on_time.result(50) == late.result(50)


def test_the_last_player_in_wins_after_timeouts(little):
    game, bots = new_game(little)
    game.play(1, "đầu tiên", T0 + 1_000, bots)
    game.settle(T0 + 1_000 + 64_001, bots)  # seats 2 and 3 ran out in turn
    assert game.over and game.winner == 1 and game.deadline_ms == 0
    result = game.result(LIMITS.winner_bonus)
    assert [(s.seat, s.bonus, s.out_reason) for s in result.standings] == [
        (1, 50, None), (3, 0, OutReason.TIMEOUT), (2, 0, OutReason.TIMEOUT),
    ]
    assert result.words == 1 and result.counts


# --- giving up and leaving ---------------------------------------------------------------


def test_give_up_on_turn_gives_the_next_a_full_turn_from_now(little):
    game, bots = new_game(little)
    game.give_up(1, T0 + 10_000, bots)
    assert out_reasons(game)[1] is OutReason.GAVE_UP
    assert game.turn == 2 and game.deadline_ms == T0 + 40_000


def test_give_up_out_of_turn_leaves_the_clock_alone(little):
    game, bots = new_game(little)
    game.give_up(3, T0 + 10_000, bots)
    assert out_reasons(game)[3] is OutReason.GAVE_UP
    assert game.turn == 1 and game.deadline_ms == T0 + 30_000


def test_leaving_puts_a_player_out_as_left_and_the_last_in_wins(little):
    game, bots = new_game(little, 2)
    game.leave(2, T0 + 1_000, bots)
    assert game.over and game.winner == 1
    result = game.result(50)
    # No word after the opening: no bonus, no score, no announcement.
    assert result.words == 0 and not result.counts
    assert [(s.seat, s.bonus, s.out_reason) for s in result.standings] == [
        (1, 0, None), (2, 0, OutReason.LEFT),
    ]


# --- endings -----------------------------------------------------------------------------


def test_a_closing_word_wins_at_once(little):
    game, bots = new_game(little, 4)
    game.give_up(4, T0, bots)
    game.play(1, "đầu óc", T0 + 1_000, bots)  # nothing starts with "óc"
    assert game.over and game.winner == 1
    result = game.result(50)
    # The others went out together (earlier seat first), after seat 4 went out alone.
    assert [(s.seat, s.out_reason) for s in result.standings] == [
        (1, None), (2, OutReason.NO_LEGAL_MOVE), (3, OutReason.NO_LEGAL_MOVE),
        (4, OutReason.GAVE_UP),
    ]
    assert result.winner_standing.total == result.winner_standing.score + 50


def test_the_cap_ranks_survivors_by_points():
    lexicon = lexicon_from_lines(chain_dictionary(MAX_CHAIN_WORDS + 50).splitlines())
    bots = bots_for(lexicon)
    game = RoomGame.start(lexicon, CLOCK, players(3), bots, T0)
    game.give_up(3, T0, bots)
    now = T0
    while not game.over:
        # Seat 1 answers in the grace (no speed points), seat 2 at once: seat 2 leads.
        spent = 31_000 if game.turn == 1 else 0
        now += spent
        (answer,) = game.chain.legal_words()
        assert game.play(game.turn, lexicon.words[answer], now, bots).accepted
    assert len(game.chain) == MAX_CHAIN_WORDS
    assert game.player(1).alive and game.player(2).alive
    assert game.player(2).score > game.player(1).score
    result = game.result(50)
    assert [(s.seat, s.out_reason, s.bonus) for s in result.standings] == [
        (2, None, 50), (1, None, 0), (3, OutReason.GAVE_UP, 0),
    ]
    assert result.words == MAX_CHAIN_WORDS - 1


def test_a_closing_word_wins_even_as_the_last_word_the_cap_allows():
    lexicon = lexicon_from_lines(chain_dictionary(MAX_CHAIN_WORDS).splitlines())
    bots = bots_for(lexicon)
    game = RoomGame.start(lexicon, CLOCK, players(2), bots, T0)
    while not game.over:
        (answer,) = game.chain.legal_words()
        game.play(game.turn, lexicon.words[answer], T0, bots)
    assert len(game.chain) == MAX_CHAIN_WORDS
    loser = 3 - game.winner
    assert game.player(loser).out_reason is OutReason.NO_LEGAL_MOVE


def test_standings_rank_survivors_by_points_then_earlier_seat_and_the_out_last_first(little):
    table = [Player(s, 100 + s, f"P{s}") for s in range(1, 7)]
    for player, score in zip(table, (40, 20, 30, 30, 5, 5), strict=True):  # seat 2 won
        player.score = score
    table[4].out_reason, table[4].out_step = OutReason.TIMEOUT, 1
    table[5].out_reason, table[5].out_step = OutReason.GAVE_UP, 2
    game = RoomGame.restore(
        little, CLOCK, table, [(0, 0, 0), (1, 2, 20)],
        turn=0, deadline_ms=0, over=True, ended_ms=T0, winner=2, steps=2,
    )
    assert [s.seat for s in game.result(50).standings] == [2, 1, 3, 4, 6, 5]


# --- the bot seat ------------------------------------------------------------------------


def bot_table() -> list[Player]:
    return [Player(1, 101, "An"), Player(2, BOT_USER_ID, "Bot", Difficulty.MEDIUM),
            Player(3, 103, "Ba")]


def test_the_bot_seat_takes_its_turn_and_plays_after_a_pause(little):
    bots = bots_for(little)
    game = RoomGame.start(little, CLOCK, bot_table(), bots, T0)
    game.play(1, "đầu tiên", T0 + 3_000, bots)
    # Its turn shows first, with a person's clock; its word is not played yet.
    assert game.turn == 2 and game.seats == [0, 1] and game.deadline_ms == T0 + 33_000
    pause = game.bot_due_ms - (T0 + 3_000)
    assert BOT_PAUSE_MS[0] <= pause <= BOT_PAUSE_MS[1]
    assert game.due_ms() == game.bot_due_ms
    assert not game.settle(game.bot_due_ms - 1, bots) and game.seats == [0, 1]
    assert game.settle(game.bot_due_ms + 400, bots)
    assert game.seats == [0, 1, 2] and words(game)[2] == "tiên sinh"
    # Its speed points count the pause; the next turn starts when the word was due.
    played_at = T0 + 3_000 + pause
    expected = Score.of(
        words_before=2, syllables=2, time_left_ms=30_000 - pause, turn_ms=30_000,
        replies_to_answered=little.out_degree[little.syllable_id("tiên")],
    ).total
    assert game.chain.links[2].points == game.player(2).score == expected
    assert expected < Score.of(
        words_before=2, syllables=2, time_left_ms=30_000, turn_ms=30_000,
        replies_to_answered=little.out_degree[little.syllable_id("tiên")],
    ).total
    assert game.turn == 3 and game.deadline_ms == played_at + 30_000
    assert game.bot_word is None


def test_the_bot_pauses_are_drawn_from_the_injected_random_source(little):
    def pauses(seed: int) -> list[int]:
        bots = BotSeat(make_opponents(BotIndex(little)), random.Random(seed))
        drawn = []
        for _ in range(12):
            table = [Player(1, BOT_USER_ID, "Bot", Difficulty.EASY), Player(2, 102, "An")]
            game = RoomGame.start(little, CLOCK, table, bots, T0)
            drawn.append(game.bot_due_ms - T0)
        return drawn

    assert pauses(4) == pauses(4)
    assert all(BOT_PAUSE_MS[0] <= p <= BOT_PAUSE_MS[1] for p in pauses(4))
    assert len(set(pauses(4))) > 1


def test_a_late_settlement_plays_the_bot_when_it_was_due(little):
    bots = bots_for(little)
    on_time = RoomGame.start(little, CLOCK, bot_table(), bots, T0)
    late_bots = bots_for(little)
    late = RoomGame.start(little, CLOCK, bot_table(), late_bots, T0)
    for now in range(T0, T0 + 200_000, 250):
        on_time.settle(now, bots)
    late.settle(T0 + 199_750, late_bots)
    assert on_time.links() == late.links() and len(on_time.links()) >= 2
    assert [(p.out_reason, p.out_step) for p in on_time.players] == [
        (p.out_reason, p.out_step) for p in late.players
    ]
    assert (on_time.over, on_time.winner, on_time.ended_ms) == (late.over, late.winner, late.ended_ms)


def test_a_stuck_bot_is_out_at_once_and_the_next_has_a_full_turn(little):
    bots = BotSeat({d: StuckOpponent() for d in Difficulty}, random.Random(1))
    table = [Player(1, 101, "An"), Player(2, BOT_USER_ID, "Bot", Difficulty.EASY),
             Player(3, 103, "Ba")]
    game = RoomGame.start(little, CLOCK, table, bots, T0)
    game.play(1, "đầu tiên", T0 + 3_000, bots)
    assert game.player(2).out_reason is OutReason.BOT_STUCK
    assert game.turn == 3 and game.deadline_ms == T0 + 33_000


def test_a_bot_on_seat_one_opens_the_answers(little):
    bots = bots_for(little)
    table = [Player(1, BOT_USER_ID, "Bot", Difficulty.HARD), Player(2, 102, "An")]
    game = RoomGame.start(little, CLOCK, table, bots, T0)
    assert game.turn == 1 and game.seats == [0]
    game.settle(game.bot_due_ms, bots)
    assert game.seats[:2] == [0, 1]
    assert game.over or game.turn == 2


def test_a_game_survives_restore(little):
    game, bots = new_game(little)
    game.play(1, "đầu tiên", T0 + 1_000, bots)
    game.give_up(3, T0 + 2_000, bots)
    twin = RoomGame.restore(
        little, CLOCK, [Player(p.seat, p.user_id, p.name, p.bot, p.score, p.out_reason,
                               p.out_step) for p in game.players],
        game.links(), turn=game.turn, deadline_ms=game.deadline_ms, over=game.over,
        ended_ms=game.ended_ms, winner=game.winner, steps=game.steps,
    )
    assert twin.links() == game.links() and twin.chain.used == game.chain.used
    twin.play(2, "tiên sinh", T0 + 3_000, bots)
    assert words(game) == ["mở đầu", "đầu tiên"]  # the original is untouched


def test_a_bot_word_waiting_for_its_pause_survives_copy_and_restore(little):
    bots = bots_for(little)
    game = RoomGame.start(little, CLOCK, bot_table(), bots, T0)
    game.play(1, "đầu tiên", T0 + 1_000, bots)
    twin = RoomGame.restore(
        little, CLOCK, [replace(p) for p in game.players], game.links(), turn=game.turn,
        deadline_ms=game.deadline_ms, over=game.over, ended_ms=game.ended_ms,
        winner=game.winner, steps=game.steps, bot_word=game.bot_word,
        bot_due_ms=game.bot_due_ms,
    )
    for other in (twin, game.copy()):
        assert (other.bot_word, other.bot_due_ms) == (game.bot_word, game.bot_due_ms)
        other.settle(game.bot_due_ms, bots)
        assert words(other)[-1] == "tiên sinh" and game.seats == [0, 1]


# --- the room ----------------------------------------------------------------------------


def room_of(count: int) -> Room:
    room = Room()
    for user in range(1, count + 1):
        room.join(user, f"U{user}", LIMITS, T0)
    return room


def test_members_play_in_join_order_and_the_rest_watch():
    room = room_of(10)
    assert [room.lobby_seat(u, LIMITS) for u in (1, 8, 9)] == [1, 8, None]
    assert room.watchers(LIMITS) == 2
    room.join(3, "U3 again", LIMITS, T0)  # joining again keeps the place
    assert room.lobby_seat(3, LIMITS) == 3 and len(room.members) == 10


def test_a_room_holds_32_members():
    room = room_of(LIMITS.max_members)
    with pytest.raises(RoomRuleBroken) as refused:
        room.join(99, "late", LIMITS, T0)
    assert refused.value.refusal is RoomRefusal.ROOM_FULL


def test_the_host_starts_with_two_to_eight_players(little):
    bots = bots_for(little)
    room = room_of(1)
    with pytest.raises(RoomRuleBroken) as refused:
        room.start(1, little, CLOCK, bots, T0, LIMITS)
    assert refused.value.refusal is RoomRefusal.NOT_ENOUGH_PLAYERS
    room = room_of(10)
    with pytest.raises(RoomRuleBroken) as refused:
        room.start(2, little, CLOCK, bots, T0, LIMITS)
    assert refused.value.refusal is RoomRefusal.NOT_HOST
    game = room.start(1, little, CLOCK, bots, T0, LIMITS)
    assert [p.user_id for p in game.players] == list(range(1, 9))
    with pytest.raises(RoomRuleBroken) as refused:
        room.start(1, little, CLOCK, bots, T0, LIMITS)
    assert refused.value.refusal is RoomRefusal.GAME_RUNNING
    assert room.seat_of(9, LIMITS) is None and room.watchers(LIMITS) == 2


def test_a_watcher_takes_a_free_seat_at_the_next_game(little):
    bots = bots_for(little)
    room = room_of(9)
    room.start(1, little, CLOCK, bots, T0, LIMITS)
    room.leave(4, T0 + 1_000, bots)
    assert room.game is not None and room.game.player(4).out_reason is OutReason.LEFT
    assert room.seat_of(9, LIMITS) is None  # watching this game
    for seat in range(1, 9):
        if room.playing:
            room.game.give_up(seat, T0 + 2_000, bots)
    assert not room.playing
    assert room.seat_of(9, LIMITS) == 8
    game = room.start(1, little, CLOCK, bots, T0 + 3_000, LIMITS)
    assert [p.user_id for p in game.players] == [1, 2, 3, 5, 6, 7, 8, 9]


def test_the_host_passes_to_the_next_member_in_join_order(little):
    room = room_of(3)
    room.set_bot(1, Difficulty.EASY, LIMITS)
    room.leave(1, T0, bots_for(little))
    assert room.host == 2
    room.leave(2, T0, bots_for(little))
    room.leave(3, T0, bots_for(little))
    assert room.host is None  # the bot is never the host


def test_one_bot_seat_added_changed_and_removed_by_the_host(little):
    room = room_of(2)
    with pytest.raises(RoomRuleBroken) as refused:
        room.set_bot(2, Difficulty.EASY, LIMITS)
    assert refused.value.refusal is RoomRefusal.NOT_HOST
    room.set_bot(1, Difficulty.EASY, LIMITS)
    room.join(4, "U4", LIMITS, T0)
    room.set_bot(1, Difficulty.HARD, LIMITS)
    assert [(m.user_id, m.name) for m in room.members] == [
        (1, "U1"), (2, "U2"), (BOT_USER_ID, BOT_NAMES[Difficulty.HARD]), (4, "U4"),
    ]
    assert room.lobby_seat(BOT_USER_ID, LIMITS) == 3
    game = room.start(1, little, CLOCK, bots_for(little), T0, LIMITS)
    with pytest.raises(RoomRuleBroken) as refused:
        room.set_bot(1, None, LIMITS)
    assert refused.value.refusal is RoomRefusal.GAME_RUNNING
    assert game.player(3).bot is Difficulty.HARD
    while room.playing:
        game.give_up(game.alive[0].seat if game.alive[0].bot is None else game.alive[1].seat,
                     T0 + 1_000, bots_for(little))
    room.set_bot(1, None, LIMITS)
    assert room.bot is None and len(room.members) == 3


def test_the_bot_counts_toward_the_eight_seats():
    room = room_of(LIMITS.max_players)
    with pytest.raises(RoomRuleBroken) as refused:
        room.set_bot(1, Difficulty.MEDIUM, LIMITS)
    assert refused.value.refusal is RoomRefusal.ROOM_FULL


def test_a_room_copy_is_independent(little):
    room = room_of(3)
    room.start(1, little, CLOCK, bots_for(little), T0, LIMITS)
    twin = room.copy()
    assert twin.game is not None
    twin.game.give_up(2, T0, bots_for(little))
    twin.join(7, "U7", LIMITS, T0)
    assert room.game is not None and room.game.player(2).alive and len(room.members) == 3


# --- presence (B10 revised) --------------------------------------------------------------

MINUTE = 60_000


def hold(room: Room, user: int, now: int, page: str | None = None) -> list[str]:
    return room.hold(page or f"p{user}-{now}", user, now + 10 * MINUTE, LIMITS)


def test_a_member_is_present_while_one_of_its_pages_holds_the_feed():
    room = room_of(2)
    assert not room.present(1) and room.member(1).absent_since_ms == T0
    hold(room, 1, T0 + 1_000, "a")
    hold(room, 1, T0 + 2_000, "b")
    assert room.present(1) and room.member(1).absent_since_ms is None
    room.release("a", T0 + 3_000)
    assert room.present(1)
    room.release("b", T0 + 4_000)
    assert not room.present(1) and room.member(1).absent_since_ms == T0 + 4_000


def test_a_third_page_of_a_member_lets_go_of_the_oldest():
    room = room_of(2)
    assert hold(room, 1, T0, "a") == [] and hold(room, 1, T0 + 1, "b") == []
    assert hold(room, 1, T0 + 2, "c") == ["a"]
    assert room.pages_of(1) == ["b", "c"]
    assert hold(room, 2, T0 + 3, "d") == []  # another member's pages do not count


def test_a_hold_that_runs_out_leaves_its_member_absent_since_then():
    room = room_of(2)
    room.hold("a", 1, T0 + MINUTE, LIMITS)
    assert room.renew(["a", "gone"], T0 + 2 * MINUTE) == ["gone"]
    assert room.next_review_ms(T0, LIMITS) == T0 + 2 * MINUTE
    room.review(T0 + 2 * MINUTE - 1, LIMITS)
    assert room.present(1)
    room.review(T0 + 3 * MINUTE, LIMITS)
    assert not room.present(1) and room.member(1).absent_since_ms == T0 + 2 * MINUTE


def test_an_absent_host_passes_the_role_after_two_minutes_in_the_lobby_and_gets_it_back():
    room = room_of(3)
    assert room.host == 1  # the first member, absent until its page opens
    hold(room, 2, T0 + 1_000)
    hold(room, 3, T0 + 1_000)
    assert room.host == 1
    assert room.next_review_ms(T0 + 1_000, LIMITS) == T0 + LIMITS.host_absent_ms
    assert room.review(T0 + LIMITS.host_absent_ms - 1, LIMITS) == Review()
    assert room.host == 1
    assert room.review(T0 + LIMITS.host_absent_ms, LIMITS).changed
    assert room.host == 2  # the first present member in join order
    hold(room, 1, T0 + 3 * MINUTE)
    assert room.host == 1  # present and first again


def test_a_host_keeps_the_role_while_nobody_else_is_there():
    room = room_of(2)
    assert room.next_review_ms(T0, LIMITS) == T0 + LIMITS.member_absent_ms
    room.review(T0 + 5 * MINUTE, LIMITS)
    assert room.host == 1
    hold(room, 2, T0 + 5 * MINUTE)  # someone comes: the host has been away long enough
    assert room.review(T0 + 5 * MINUTE, LIMITS).changed
    assert room.host == 2


def test_the_host_does_not_pass_for_absence_while_a_game_runs(little):
    bots = bots_for(little)
    room = room_of(3)
    hold(room, 2, T0)
    room.start(1, little, CLOCK, bots, T0, LIMITS)
    assert room.review(T0 + 3 * MINUTE, LIMITS) == Review()
    assert room.host == 1
    room.game.give_up(1, T0 + 3 * MINUTE, bots)
    room.game.give_up(3, T0 + 3 * MINUTE, bots)
    assert not room.playing
    room.review(T0 + 3 * MINUTE, LIMITS)
    assert room.host == 2  # the lobby again: away for over 2 minutes, it passes now


def test_a_member_absent_ten_minutes_while_no_game_runs_has_left(little):
    bots = bots_for(little)
    room = room_of(4)
    hold(room, 2, T0)
    hold(room, 3, T0)
    room.start(1, little, CLOCK, bots, T0 + 1_000, LIMITS)
    # In a game nobody leaves for being away.
    assert room.review(T0 + 11 * MINUTE, LIMITS).left == ()
    while room.playing:
        room.game.settle(room.game.deadline_ms + 2_001, bots)
    review = room.review(T0 + 11 * MINUTE, LIMITS)
    assert review.left == (1, 4) and review.changed
    assert [m.user_id for m in room.members] == [2, 3]
    assert room.host == 2


def test_a_member_away_less_than_ten_minutes_stays_and_the_bot_never_leaves(little):
    room = room_of(2)
    room.set_bot(1, Difficulty.EASY, LIMITS)
    hold(room, 1, T0 + 2 * MINUTE)
    room.review(T0 + 10 * MINUTE - 1, LIMITS)
    assert [m.user_id for m in room.members] == [1, 2, BOT_USER_ID]
    room.review(T0 + 10 * MINUTE, LIMITS)
    assert [m.user_id for m in room.members] == [1, BOT_USER_ID]


def test_joining_again_lets_go_of_the_old_pages():
    room = room_of(2)
    hold(room, 1, T0, "a")
    room.join(1, "U1", LIMITS, T0 + 5_000)
    assert room.pages_of(1) == [] and room.member(1).absent_since_ms == T0 + 5_000


def test_a_member_who_leaves_takes_its_pages_and_the_host_goes_to_the_first_present(little):
    room = room_of(3)
    hold(room, 3, T0)
    room.leave(1, T0, bots_for(little))
    assert room.host == 3 and room.pages_of(1) == []
