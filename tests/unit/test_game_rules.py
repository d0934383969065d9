"""The rules of Part B on the domain alone: checks, clock, scoring, endings (B4, B5)."""

from __future__ import annotations

import random

import pytest

from noitu.adapters.noitu.dictionary_file import lexicon_from_lines
from noitu.domain.noitu.bots import BotIndex, EasyOpponent, MediumOpponent, make_opponents
from noitu.domain.noitu.chain import Chain, Side
from noitu.domain.noitu.game import EndReason, Game, Status
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.opponent import Difficulty
from noitu.domain.noitu.rules import (
    COMMON_TIER,
    MAX_CHAIN_WORDS,
    OPEN_MIN_COMMON_REPLIES,
    OPENING_MIN_REPLIES,
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
    # Every answer to "đầu" leads where no word starts: no opening is open, so the pool is
    # the common words whose last syllable starts 20 words.
    replies = [f"đầu x{c}" for c in "abcdeghiklmnopqrstuvxy"][:20]
    lines = ["bắt đầu\t4", "mở đầu\t2", "khởi đầu\t3", *replies]
    lexicon = lexicon_from_lines(lines)
    assert lexicon.open_opening_candidates == ()
    drawn = {lexicon.words[draw_opening(lexicon, random.Random(seed))] for seed in range(40)}
    assert drawn == {"mở đầu"}


LETTERS_20 = "abcdeghiklmnopqrstuv"
# "đầu" starts 20 common words, each answered (by a rare word back to "đầu"); "sau" starts
# 20 common words, one of which ("sau ra") leads where no word starts; "mai" starts 20
# words, none of them common. "ô" starts only "ô đầu", and "đầu ô" answers "đầu".
OPENINGS = [
    "mở đầu\t1", "khởi đầu\t2", "bắt đầu\t3", "ô đầu\t1", "đầu ô\t1",
    *(f"đầu q{c}\t1" for c in LETTERS_20[:19]), *(f"q{c} đầu\t3" for c in LETTERS_20[:19]),
    "trước sau\t1",
    *(f"sau r{c}\t1" for c in LETTERS_20), *(f"r{c} sau\t3" for c in LETTERS_20[1:]),
    "nay mai\t1", *(f"mai s{c}\t3" for c in LETTERS_20), *(f"s{c} mai\t3" for c in LETTERS_20),
]


def test_opening_is_an_open_common_word_that_offers_no_immediate_win():
    lexicon = lexicon_from_lines(OPENINGS)
    # "ô đầu" is open too, but "đầu ô" would then leave no reply (its only word is used).
    assert {lexicon.words[w] for w in lexicon.open_opening_candidates} == {"mở đầu", "khởi đầu"}
    for difficulty in Difficulty:
        games = [
            Game.start(lexicon, TurnClock(), difficulty, random.Random(seed), T0)
            for seed in range(40)
        ]
        drawn = {game.chain.links[0].word.text for game in games}
        assert drawn == {"mở đầu", "khởi đầu"}, difficulty
    # Without them, the common words whose last syllable starts 20 words.
    fallback = lexicon_from_lines([line for line in OPENINGS if "đầu" not in line])
    assert fallback.open_opening_candidates == ()
    drawn = {fallback.words[draw_opening(fallback, random.Random(seed))] for seed in range(40)}
    assert drawn == {"trước sau", "nay mai"}


def test_open_openings_are_exactly_those_a_game_finds():
    """Against a brute force over real chains: the opening played, every answer tried."""
    seen = [0, 0]
    for seed in range(30):
        rng = random.Random(seed)
        names = [f"{c}{v}" for c in "bcdghklmnt" for v in "aeiou"][: rng.randint(6, 9)]
        # Two syllables only end words (an answer into one ends the game), and only words
        # from the first few syllables lead there.
        live, dead, risky = names[:-2], names[-2:], names[:3]
        found = {}
        for _ in range(rng.randint(300, 500)):
            first = rng.choice(live)
            last = rng.choice(dead) if first in risky and rng.random() < 0.1 else rng.choice(live)
            # A middle syllable, for more words per pair of first and last syllables.
            middle = rng.choice(("", "xa ", "xe ", "xi ", "xo ", "ya ", "ye ", "yi ", "yo "))
            found[f"{first} {middle}{last}"] = rng.choice((1, 1, 2, 3, 4))
        lexicon = lexicon_from_lines([f"{w}\t{t}" for w, t in sorted(found.items())])
        expected = []
        for opening in range(len(lexicon)):
            answered = lexicon.last[opening]
            if lexicon.tiers[opening] > COMMON_TIER:
                continue
            if lexicon.out_degree[answered] < OPENING_MIN_REPLIES:
                continue
            if lexicon.common_out_degree[answered] < OPEN_MIN_COMMON_REPLIES:
                continue
            chain = Chain(lexicon)
            chain.append(opening, Side.BOT, 0)
            if all(chain.replies_after(w) > 0 for w in chain.legal_words()):
                expected.append(opening)
        assert list(lexicon.open_opening_candidates) == expected, seed
        seen[0] += len(expected)
        seen[1] += len(lexicon.common_opening_candidates) - len(expected)
    assert seen[0] > 20 and seen[1] > 20  # both kinds were there


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


# An operator's file whose only answers to "cạo" and "đầu" are longer than a player may
# type (9 syllables): the loader skips them, so they are neither replies nor bot moves.
UNTYPABLE_TAIL = "một hai ba bốn năm sáu bảy tám"
UNTYPABLE = [
    "ca dao",
    "dao cạo",
    f"cạo {UNTYPABLE_TAIL}",
    "mở đầu",
    f"đầu {UNTYPABLE_TAIL}",
]


@pytest.mark.parametrize("difficulty", list(Difficulty))
def test_bots_never_play_a_word_no_player_can_type(difficulty):
    lexicon = lexicon_from_lines(UNTYPABLE)
    opponent = make_opponents(BotIndex(lexicon))[difficulty]
    game = Game.start(lexicon, TurnClock(), difficulty, random.Random(1), T0)
    assert game.chain.links[0].word.text == "ca dao"
    outcome = game.play("dao cạo", T0, opponent, random.Random(1))
    assert outcome.accepted and outcome.bot_word is None
    assert (game.status, game.end_reason) == (Status.WON, EndReason.BOT_STUCK)


def test_a_reply_no_player_can_type_leaves_a_true_dead_end():
    lexicon = lexicon_from_lines(UNTYPABLE)
    opening = lexicon.word_ids["mở đầu"]
    game = Game.restore(
        lexicon, TurnClock(), Difficulty.MEDIUM, [(opening, Side.BOT, 0)],
        status=Status.PLAYING, end_reason=None, deadline_ms=T0 + 30_000, ended_ms=0, score=0,
    )
    assert not game.chain.has_legal_word()
    game.give_up(T0)
    assert (game.status, game.end_reason) == (Status.LOST, EndReason.NO_LEGAL_MOVE)
    assert game.suggestions == []
