"""The rules of Part B on the domain alone: checks, clock, scoring, endings (B4, B5)."""

from __future__ import annotations

import random

import pytest

from noitu.adapters.dictionary_file import lexicon_from_lines
from noitu.domain.noitu.bots import BotIndex, EasyOpponent, MediumOpponent
from noitu.domain.noitu.chain import Side
from noitu.domain.noitu.game import EndReason, Game, Status
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.opponent import Difficulty
from noitu.domain.noitu.rules import (
    MAX_CHAIN_WORDS,
    Rejection,
    TurnClock,
    draw_opening,
    typed_word_too_long,
)
from noitu.domain.noitu.scoring import Score, rarity_points, speed_points

T0 = 1_000_000


def new_game(lexicon: Lexicon, rules: TurnClock = TurnClock()) -> Game:
    return Game.start(lexicon, rules, Difficulty.MEDIUM, random.Random(1), T0)


@pytest.mark.parametrize(
    ("replies", "points"),
    [(0, 15), (1, 15), (2, 12), (3, 12), (4, 9), (7, 9), (8, 6), (15, 6), (16, 3), (31, 3), (32, 0), (5000, 0)],
)
def test_rarity_steps(replies, points):
    assert rarity_points(replies) == points


def test_speed_points_are_floored_and_zero_in_grace():
    assert speed_points(30_000, 30_000) == 10
    assert speed_points(29_999, 30_000) == 9
    assert speed_points(2_999, 30_000) == 0
    assert speed_points(3_000, 30_000) == 1
    assert speed_points(-1_500, 30_000) == 0


def test_score_parts_and_cap():
    score = Score.of(words_before=20, syllables=4, time_left_ms=30_000, turn_ms=30_000, replies_to_answered=1)
    assert (score.base, score.chain, score.length, score.speed, score.rarity) == (10, 30, 10, 10, 15)
    assert score.total == 75
    longest = Score.of(words_before=99, syllables=8, time_left_ms=30_000, turn_ms=30_000, replies_to_answered=1)
    assert longest.total == 95  # the most an 8-syllable word can earn
    assert Score(base=10, chain=30, length=60, speed=10, rarity=15).total == 100


def test_opening_is_the_best_connected_word_without_candidates(little):
    assert little.words[draw_opening(little, random.Random(3))] == "mở đầu"


def test_opening_prefers_common_candidates():
    replies = [f"đầu x{c}" for c in "abcdeghiklmnopqrstuvxy"][:20]
    lines = ["bắt đầu\t4", "mở đầu\t2", "khởi đầu\t3", *replies]
    lexicon = lexicon_from_lines(lines)
    drawn = {lexicon.words[draw_opening(lexicon, random.Random(seed))] for seed in range(40)}
    assert drawn == {"mở đầu"}


def test_check_order_syllables_dictionary_link_reuse(little):
    game = new_game(little)
    opponent = MediumOpponent(BotIndex(game.lexicon))
    rng = random.Random(1)
    assert game.play("đầu", T0, opponent, rng).rejection is Rejection.TOO_FEW_SYLLABLES
    # Not in the dictionary beats a wrong link.
    assert game.play("sinh nhật", T0, opponent, rng).rejection is Rejection.NOT_IN_DICTIONARY
    assert game.play("sinh viên", T0, opponent, rng).rejection is Rejection.WRONG_LINK
    assert len(game.chain) == 1 and game.deadline_ms == T0 + 30_000


def test_reuse_is_checked_after_the_link():
    lexicon = lexicon_from_lines(["ba ca", "ca da", "ca ea", "da ca"])
    game = new_game(lexicon)
    rng = random.Random(1)
    assert game.play("ca da", T0, MediumOpponent(BotIndex(game.lexicon)), rng).bot_word == lexicon.word_ids["da ca"]
    assert game.play("ca da", T0 + 1, MediumOpponent(BotIndex(game.lexicon)), rng).rejection is Rejection.ALREADY_USED
    # "da ca" is used too, but it is a wrong link first.
    assert game.play("da ca", T0 + 2, MediumOpponent(BotIndex(game.lexicon)), rng).rejection is Rejection.WRONG_LINK


def test_clock_deadline_grace_and_settle(little):
    game = new_game(little)
    assert not game.turn_expired(T0 + 32_000)
    assert game.turn_expired(T0 + 32_001)
    assert not game.settle(T0 + 32_000)
    assert game.settle(T0 + 32_001)
    assert (game.status, game.end_reason, game.deadline_ms) == (Status.LOST, EndReason.TIMEOUT, 0)
    with pytest.raises(ValueError):
        game.play("đầu tiên", T0 + 40_000, MediumOpponent(BotIndex(game.lexicon)), random.Random(1))


def test_deadline_moves_with_each_bot_reply(little):
    game = new_game(little)
    game.play("đầu tiên", T0 + 5_000, MediumOpponent(BotIndex(game.lexicon)), random.Random(1))
    assert game.deadline_ms == T0 + 35_000


def test_points_use_server_time_and_count_only_the_player(little):
    game = new_game(little)
    outcome = game.play("đầu tiên", T0 + 10_000, MediumOpponent(BotIndex(game.lexicon)), random.Random(1))
    assert outcome.accepted
    player, bot = game.chain.links[1], game.chain.links[2]
    # 10 + 2×1 + 0 + ⌊10×20/30⌋=6 + rarity(4)=9
    assert (player.by, player.points) == (Side.PLAYER, 27)
    # bot: 10 + 2×2 + 0 + 10 + rarity(tiên: 1 word)=15
    assert (bot.by, bot.points) == (Side.BOT, 39)
    assert game.score == 27


def test_dead_end_give_up_and_timeout_are_no_legal_move(little):
    game = new_game(little)
    game.play("đầu bếp", T0, MediumOpponent(BotIndex(game.lexicon)), random.Random(1))
    assert not game.chain.has_legal_word()
    game.give_up(T0 + 1)
    assert game.end_reason is EndReason.NO_LEGAL_MOVE
    assert game.suggestions == []


def test_give_up_with_a_legal_word_is_gave_up(little):
    game = new_game(little)
    game.give_up(T0)
    assert (game.status, game.end_reason) == (Status.LOST, EndReason.GAVE_UP)
    assert [little.words[w] for w in game.suggestions] == ["đầu bếp", "đầu tiên", "đầu óc"]


def test_bot_without_a_word_loses(little):
    game = new_game(little)
    outcome = game.play("đầu óc", T0, EasyOpponent(BotIndex(game.lexicon)), random.Random(1))
    assert outcome.accepted and outcome.bot_word is None
    assert (game.status, game.end_reason) == (Status.WON, EndReason.BOT_STUCK)


def test_max_chain_ends_after_the_players_word():
    """A chain that reaches 300 words ends as a player win; on a one-way dictionary
    (a0 a1 → a1 a2 → …) every reply is forced, so the 300th word is the player's."""
    lexicon = lexicon_from_lines([f"a{i} a{i + 1}" for i in range(MAX_CHAIN_WORDS + 10)])
    bot = EasyOpponent(BotIndex(lexicon))
    game = Game.start(lexicon, TurnClock(), Difficulty.EASY, random.Random(1), T0)
    assert game.chain.links[0].word.text == "a0 a1"  # best connected: ties go to code-point order
    while len(game.chain) < MAX_CHAIN_WORDS - 1:
        current = game.chain.links[-1].word.text.split()[1]
        outcome = game.play(f"{current} a{int(current[1:]) + 1}", T0, bot, random.Random(1))
        assert outcome.accepted and game.status is Status.PLAYING
    assert len(game.chain) == MAX_CHAIN_WORDS - 1
    game.play(f"a{MAX_CHAIN_WORDS - 1} a{MAX_CHAIN_WORDS}", T0, bot, random.Random(1))
    assert (game.status, game.end_reason, len(game.chain)) == (
        Status.WON, EndReason.MAX_MOVES, MAX_CHAIN_WORDS,
    )


def test_typed_word_limits():
    assert not typed_word_too_long("a" * 64)
    assert typed_word_too_long("a" * 65)
    assert not typed_word_too_long(" ".join("abcdefgh"))
    assert typed_word_too_long(" ".join("abcdefghi"))
