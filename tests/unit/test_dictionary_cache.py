"""The built-Lexicon cache: same Lexicon either way; a bad cache only costs a rebuild."""

from __future__ import annotations

import random

from noitu.adapters.noitu.dictionary_file import bot_index_of, load_lexicon
from noitu.domain.noitu.bots import BotIndex, HardOpponent
from noitu.domain.noitu.game import Game
from noitu.domain.noitu.opponent import Difficulty
from noitu.domain.noitu.rules import TurnClock
from support.dictionaries import LITTLE, write


def test_a_cached_lexicon_is_the_built_one(tmp_path):
    path = write(tmp_path, LITTLE + "đầu đàn\t2\tdanh|con đầu\tđộng|dẫn\n")
    built = load_lexicon(path, cache_dir=None)
    first = load_lexicon(path, cache_dir=tmp_path / "cache")
    assert len(list((tmp_path / "cache").iterdir())) == 1
    cached = load_lexicon(path, cache_dir=tmp_path / "cache")
    for lexicon in (first, cached):
        # Every attribute of a built Lexicon is listed for the snapshot (or is a cache).
        assert vars(lexicon).keys() == vars(built).keys()
        assert set(vars(built)) == {*built.SNAPSHOT_FIELDS, *built.CACHES}
        for name in built.SNAPSHOT_FIELDS:
            assert getattr(lexicon, name) == getattr(built, name), name
    # The bots' index comes back from the cache as it was built.
    index = bot_index_of(cached)
    assert set(vars(index)) == {"lexicon", "_class_words", *index.SNAPSHOT_FIELDS}
    assert index.fields() == BotIndex(built).fields()
    assert cached.resolve("hoà bình") == built.resolve("hòa bình")
    # The bots play the same game on either.
    moves = []
    for lexicon in (built, cached):
        game = Game.start(lexicon, TurnClock(), Difficulty.HARD, random.Random(4), 0)
        game.play("đầu mối", 1, HardOpponent(BotIndex(lexicon)), random.Random(4))
        moves.append([link.word.text for link in game.chain.links])
    assert moves[0] == moves[1]


def test_a_broken_cache_is_rebuilt_and_a_changed_file_gets_its_own(tmp_path):
    cache = tmp_path / "cache"
    path = write(tmp_path, LITTLE)
    load_lexicon(path, cache_dir=cache)
    (stored,) = cache.iterdir()
    stored.write_bytes(b"not a snapshot")
    assert len(load_lexicon(path, cache_dir=cache)) == len(load_lexicon(path, cache_dir=None))
    write(tmp_path, LITTLE + "đầu đàn\n")
    assert "đầu đàn" in load_lexicon(path, cache_dir=cache)
    assert len(list(cache.iterdir())) == 2


def test_an_unwritable_cache_still_loads(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert len(load_lexicon(write(tmp_path, LITTLE), cache_dir=blocker / "cache")) > 10


def test_the_cache_keeps_only_the_newest_files(tmp_path):
    cache = tmp_path / "cache"
    path = tmp_path / "dictionary.txt"
    for extra in range(6):
        path.write_text(LITTLE + f"đầu x{'abcdeg'[extra]}\n", encoding="utf-8")
        load_lexicon(str(path), cache_dir=cache)
    assert len(list(cache.glob("lexicon-*.marshal"))) == 4
