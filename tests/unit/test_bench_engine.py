"""The pieces of `noitu bench engine` and `memory` that decide what gets timed: the move
validation is the server's own checks, the long-game policy plays legal words, positions
have the bot to move (no timing asserted)."""

from __future__ import annotations

import random

from noitu.adapters.noitu.dictionary_file import lexicon_from_lines
from noitu.bench.engine import typed_words, validate
from noitu.bench.machine import median_dict, percentile
from noitu.bench.positions import SurvivorPolicy, chain_of, make_positions
from noitu.domain.noitu.bots import BotIndex
from noitu.domain.noitu.chain import Chain, Side
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.rules import MAX_CHAIN_WORDS, check_word, draw_opening
from support.dictionaries import random_words


def dense_lexicon() -> Lexicon:
    return lexicon_from_lines(random_words(1, syllables=24, words=520), "dense")


def test_validation_answers_as_the_server_does(little: Lexicon) -> None:
    chain = chain_of(little, [little.word_ids["mở đầu"]])
    assert validate("đầu tiên", chain) == "accepted"
    assert validate("  ĐẦU   TIÊN ", chain) == "accepted"  # normalized first
    assert validate("sinh viên", chain) == "wrong_link"
    assert validate("mở đầu", chain) == "wrong_link"
    assert validate("đầu", chain) == "too_few_syllables"
    assert validate("đầu cuối", chain) == "not_in_dictionary"
    assert validate("đầu " * 9, chain) == "bad_request"  # over 8 tokens
    chain.append(little.word_ids["đầu óc"], Side.PLAYER, 0)
    assert validate("óc đầu", chain) == "not_in_dictionary"


def test_typed_words_are_what_their_kind_says() -> None:
    lexicon = dense_lexicon()
    typed = typed_words(lexicon, count=50)
    assert all(w in lexicon for w in typed["exact"])
    assert all(lexicon.resolve(w) is None for w in typed["not_in_dictionary"])
    assert len(typed["messy"]) == len(typed["exact"])


def test_the_survivor_plays_legal_words_to_the_end() -> None:
    lexicon = dense_lexicon()
    survivor = SurvivorPolicy(BotIndex(lexicon))
    rng = random.Random(3)
    chain = Chain(lexicon)
    chain.append(draw_opening(lexicon, rng), Side.BOT, 0)
    while len(chain) < MAX_CHAIN_WORDS:
        word = survivor.choose(chain, rng)
        if word is None:
            assert not chain.has_legal_word()
            break
        assert check_word(chain, lexicon.words[word]) == (None, word)
        chain.append(word, Side.PLAYER, 0)
    assert len(chain) > 100  # it plays to last


def test_positions_have_the_bot_to_move() -> None:
    lexicon = dense_lexicon()
    positions = make_positions(
        lexicon, BotIndex(lexicon), per_kind=20, midgame_games=6, deep_games=3
    )
    kinds = {p.kind for p in positions}
    assert kinds == {"opening", "midgame", "deep"}
    for position in positions:
        assert len(position.words) % 2 == 0  # the opening is the bot's: bot to move
        chain = chain_of(lexicon, position.words)
        assert len(chain.used) == len(position.words)  # no word twice
        if position.kind == "opening":
            assert len(position.words) == 2
        if position.kind == "deep":
            assert 100 <= len(position.words) < MAX_CHAIN_WORDS


def test_statistics() -> None:
    assert percentile([1, 2, 3, 4], 0.5) == 2 and percentile([1, 2, 3, 4], 0.99) == 4
    assert percentile([], 0.5) == 0.0
    merged = median_dict([{"a": 1, "b": {"c": 2}}, {"a": 3, "b": {"c": 4}}, {"a": 2, "x": "y"}])
    assert merged == {"a": 2, "b": {"c": 3}, "x": "y"}


def test_a_line_dictionary_has_no_lasting_move() -> None:
    line = lexicon_from_lines(["ca da", "da xo"], "tiny")
    chain = chain_of(line, [line.word_ids["ca da"]])
    assert SurvivorPolicy(BotIndex(line)).choose(chain, random.Random(1)) == line.word_ids["da xo"]
    chain.append(line.word_ids["da xo"], Side.PLAYER, 0)
    assert SurvivorPolicy(BotIndex(line)).choose(chain, random.Random(1)) is None
