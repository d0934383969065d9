"""The bot policies' contracts (spec B6): legal words, None when stuck, immediate wins,
determinism, the hard search's node cap and exactness, the vocabularies of easy and
medium, and the Lexicon's retrograde outcome the hard bot leans on. No timing here: see
`noitu bench`."""

from __future__ import annotations

import random

import pytest

from noitu.adapters.noitu.dictionary_file import lexicon_from_lines
from noitu.domain.noitu.bots import BotIndex, EasyOpponent, HardOpponent, MediumOpponent
from noitu.domain.noitu.bots.counters import edges_to_exhausted
from noitu.domain.noitu.bots.hard import DRAWLESS
from noitu.domain.noitu.bots.index import WIN
from noitu.domain.noitu.bots.vocabulary import (
    EASY_VOCABULARY,
    MEDIUM_VOCABULARY,
    OPEN_COMMON,
    WordClass,
)
from noitu.domain.noitu.chain import Chain, Side
from noitu.domain.noitu.lexicon import Lexicon

POLICIES = (EasyOpponent, MediumOpponent, HardOpponent)

# From "da": "da xo" wins at once (no word starts with "xo"); the others do not.
STATIC_WIN = [
    "ca da", "da ba", "da me", "da xo", "ba ca", "ba ne", "me ne", "ne ca", "ne da",
]
# From "da": "da ba" wins once "ba ca", the only word starting with "ba", is used.
EXHAUSTED_WIN = ["xe ba", "ba ca", "ca da", "da ba", "da me", "me ne", "ne ca", "ne me"]

SYLLABLES = [c + v for c in "bcdghklmnprstv" for v in "aeu"]


def lexicon_of(lines: list[str]) -> Lexicon:
    return lexicon_from_lines(lines, "test")


def chain_of(lexicon: Lexicon, *words: str) -> Chain:
    chain = Chain(lexicon)
    for i, word in enumerate(words):
        chain.append(lexicon.word_ids[word], Side.BOT if i % 2 == 0 else Side.PLAYER, 0)
    return chain


def random_lexicon(seed: int, syllables: int = 12, words: int = 60) -> Lexicon:
    rng = random.Random(seed)
    chosen = rng.sample(SYLLABLES, syllables)
    words = min(words, syllables * syllables // 2)
    found: set[str] = set()
    while len(found) < words:
        found.add(f"{rng.choice(chosen)} {rng.choice(chosen)}")
    return lexicon_of(sorted(found))


def random_position(lexicon: Lexicon, seed: int, moves: int) -> Chain:
    rng = random.Random(seed)
    chain = Chain(lexicon)
    chain.append(rng.randrange(len(lexicon)), Side.BOT, 0)
    for _ in range(moves):
        legal = list(chain.legal_words())
        if not legal:
            break
        chain.append(rng.choice(legal), Side.PLAYER, 0)
    return chain


def is_legal(chain: Chain, word: int) -> bool:
    return chain.lexicon.first[word] == chain.current and word not in chain.used


# --- every policy ----------------------------------------------------------------------


@pytest.mark.parametrize("policy", POLICIES)
def test_returns_a_legal_unused_word(policy) -> None:
    for seed in range(40):
        lexicon = random_lexicon(seed)
        chain = random_position(lexicon, seed, moves=seed % 15)
        if not chain.has_legal_word():
            continue
        word = policy(BotIndex(chain.lexicon)).choose(chain, random.Random(seed))
        assert word is not None and is_legal(chain, word)


@pytest.mark.parametrize("policy", POLICIES)
def test_none_when_no_word_is_left(policy) -> None:
    lexicon = lexicon_of(["ca da", "da ba", "ba ca"])
    dead_end = chain_of(lexicon, "ca da", "da ba", "ba ca")  # "ca da" is used: stuck
    assert not dead_end.has_legal_word()
    assert policy(BotIndex(dead_end.lexicon)).choose(dead_end, random.Random(1)) is None
    nothing_starts = chain_of(lexicon_of(["ca da", "ba ca"]), "ca da")
    assert policy(BotIndex(nothing_starts.lexicon)).choose(nothing_starts, random.Random(1)) is None


@pytest.mark.parametrize("policy", POLICIES)
def test_does_not_change_the_chain(policy) -> None:
    lexicon = random_lexicon(3)
    chain = random_position(lexicon, 3, moves=6)
    before = (list(chain.links), set(chain.used), dict(chain.used_from))
    policy(BotIndex(chain.lexicon)).choose(chain, random.Random(3))
    after = (list(chain.links), set(chain.used), dict(chain.used_from))
    assert before == after


@pytest.mark.parametrize("policy", POLICIES)
def test_deterministic_for_a_seed(policy) -> None:
    for seed in range(20):
        lexicon = random_lexicon(100 + seed, syllables=15, words=90)
        chain = random_position(lexicon, seed, moves=seed % 9)
        first = policy(BotIndex(chain.lexicon)).choose(chain, random.Random(seed))
        again = [policy(BotIndex(chain.lexicon)).choose(chain, random.Random(seed)) for _ in range(3)]
        assert again == [first] * 3


def test_a_shared_instance_stays_deterministic() -> None:
    """The server keeps one opponent per difficulty for every game."""
    lexicon = random_lexicon(5, syllables=15, words=90)
    positions = [random_position(lexicon, seed, moves=4) for seed in range(10)]
    hard = HardOpponent(BotIndex(lexicon))
    first = [hard.choose(chain, random.Random(9)) for chain in positions]
    assert [hard.choose(chain, random.Random(9)) for chain in positions] == first


# --- immediate wins ----------------------------------------------------------------------


@pytest.mark.parametrize("policy", (MediumOpponent, HardOpponent))
def test_takes_an_immediate_win(policy) -> None:
    lexicon = lexicon_of(STATIC_WIN)
    chain = chain_of(lexicon, "ca da")
    winning = lexicon.word_ids["da xo"]
    assert chain.replies_after(winning) == 0
    for seed in range(30):
        assert policy(BotIndex(chain.lexicon)).choose(chain, random.Random(seed)) == winning


@pytest.mark.parametrize("policy", (MediumOpponent, HardOpponent))
def test_takes_a_win_made_by_used_words(policy) -> None:
    lexicon = lexicon_of(EXHAUSTED_WIN)
    chain = chain_of(lexicon, "xe ba", "ba ca", "ca da")
    winning = lexicon.word_ids["da ba"]
    assert chain.replies_after(winning) == 0
    index = BotIndex(lexicon)
    assert edges_to_exhausted(index, chain)[lexicon.syllable_id("da")] == [index.edge_of[winning]]
    for seed in range(30):
        assert policy(BotIndex(chain.lexicon)).choose(chain, random.Random(seed)) == winning


def test_hard_avoids_handing_over_an_immediate_win() -> None:
    # From "da": "da ba" lets the other side answer "ba xo" and win; "da me" is safe.
    lexicon = lexicon_of(["ca da", "da ba", "da me", "ba xo", "ba ca", "me ca", "ca me"])
    chain = chain_of(lexicon, "ca da")
    for seed in range(20):
        assert HardOpponent(BotIndex(chain.lexicon)).choose(chain, random.Random(seed)) == lexicon.word_ids["da me"]


# --- medium ------------------------------------------------------------------------------


def first_class_with_a_legal_word(index: BotIndex, chain: Chain, vocabulary) -> WordClass | None:
    for word_class in vocabulary:
        if any(w not in chain.used for w in index.words_in(word_class, chain.current)):
            return word_class
    return None


def test_medium_plays_in_the_quarter_leaving_fewest_replies() -> None:
    classes = set()
    # All tier 1: with about 20 words per syllable some words are open, with 10 none are.
    dense = random_lexicon(11, syllables=40, words=800)
    sparse = random_lexicon(11, syllables=20, words=200)
    for lexicon in (dense, sparse):
        index = BotIndex(lexicon)
        for seed in range(40):
            chain = random_position(lexicon, seed, moves=seed % 5)
            word_class = first_class_with_a_legal_word(index, chain, MEDIUM_VOCABULARY)
            if word_class is None:
                continue
            legal = [w for w in index.words_in(word_class, chain.current) if w not in chain.used]
            replies = sorted(chain.replies_after(w) for w in legal)
            if replies[0] == 0:
                continue
            threshold = replies[(len(replies) + 3) // 4 - 1]
            word = MediumOpponent(index).choose(chain, random.Random(seed))
            assert word in legal and chain.replies_after(word) <= threshold
            classes.add(word_class)
    assert OPEN_COMMON in classes and len(classes) > 1  # both kinds of position were seen


# --- vocabularies ------------------------------------------------------------------------------

# From "da": two open common words ("mo" starts 20 common words), two other common words
# ("xe" starts one common word; "gi" starts none, so "da gi" wins at once), an open rare
# word ("ke" starts 20 common words), an answerable rare word ("hu" starts one common
# word) and a rare word no common word answers ("ne" starts only a rare word).
VOCABULARY_TEST = [
    "ca da\t1",
    "da mo\t1", "da ca mo\t2",
    "da xe\t2", "da gi\t1",
    "da ke\t3",
    "da hu\t4",
    "da ne\t4",
    "xe ca\t1", "hu ca\t1", "ne ca\t3",
    *(f"mo q{c}\t1" for c in "abcdeghiklmnopqrstuv"),
    *(f"ke r{c}\t2" for c in "abcdeghiklmnopqrstuv"),
]


def words_of(lexicon: Lexicon, *texts: str) -> set[int]:
    return {lexicon.word_ids[t] for t in texts}


def vocabulary_position(lexicon: Lexicon, *used: str) -> Chain:
    """"ca da" to answer, with `used` played before it."""
    return chain_of(lexicon, *used, "ca da")


def test_easy_plays_open_common_words_then_common_then_open_rare_then_is_stuck() -> None:
    lexicon = lexicon_of(VOCABULARY_TEST)
    easy = EasyOpponent(BotIndex(lexicon))
    steps = [
        ((), {"da mo", "da ca mo"}),
        (("da mo", "da ca mo"), {"da xe", "da gi"}),
        (("da mo", "da ca mo", "da xe", "da gi"), {"da ke"}),
    ]
    for used, expected in steps:
        chain = vocabulary_position(lexicon, *used)
        chosen = {easy.choose(chain, random.Random(seed)) for seed in range(60)}
        assert chosen == words_of(lexicon, *expected), used
    # "da hu" and "da ne" are legal, but easy knows no such rare word: it is stuck.
    chain = vocabulary_position(lexicon, "da mo", "da ca mo", "da xe", "da gi", "da ke")
    assert chain.has_legal_word()
    assert {easy.choose(chain, random.Random(seed)) for seed in range(20)} == {None}


def test_medium_keeps_to_its_open_words_before_a_win_with_another_word() -> None:
    lexicon = lexicon_of(VOCABULARY_TEST)
    medium = MediumOpponent(BotIndex(lexicon))
    killer = lexicon.word_ids["da gi"]
    chain = vocabulary_position(lexicon)
    assert chain.replies_after(killer) == 0
    chosen = {medium.choose(chain, random.Random(seed)) for seed in range(60)}
    assert chosen and chosen <= words_of(lexicon, "da mo", "da ca mo")
    # Without an open word, the common words: the immediate win.
    chain = vocabulary_position(lexicon, "da mo", "da ca mo")
    assert {medium.choose(chain, random.Random(seed)) for seed in range(30)} == {killer}
    # Without a common word, the answerable rare ones ("da ke", "da hu"): the one that
    # leaves the fewest replies, as the quarter of two words is one.
    chain = vocabulary_position(lexicon, "da mo", "da ca mo", "da xe", "da gi")
    chosen = {medium.choose(chain, random.Random(seed)) for seed in range(30)}
    assert chosen == words_of(lexicon, "da hu")
    # Only "da ne" is left, which no common word answers: medium is stuck.
    chain = vocabulary_position(lexicon, "da mo", "da ca mo", "da xe", "da gi", "da ke", "da hu")
    assert chain.has_legal_word()
    assert medium.choose(chain, random.Random(1)) is None


def test_the_vocabularies_are_classes_of_words() -> None:
    lexicon = lexicon_of(VOCABULARY_TEST)
    index = BotIndex(lexicon)
    da = lexicon.syllable_id("da")

    def texts(word_class: WordClass) -> set[str]:
        return {lexicon.words[w] for w in index.words_in(word_class, da)}

    assert [texts(c) for c in EASY_VOCABULARY] == [
        {"da mo", "da ca mo"},
        {"da mo", "da ca mo", "da xe", "da gi"},
        {"da ke"},
    ]
    assert MEDIUM_VOCABULARY[:2] == EASY_VOCABULARY[:2]
    assert texts(MEDIUM_VOCABULARY[2]) == {"da ke", "da hu"}
    # In code-point order, like the Lexicon's own index.
    common = index.words_in(EASY_VOCABULARY[1], da)
    assert list(common) == sorted(common)
    # An index back from its snapshot fields answers the same.
    again = BotIndex.from_fields(lexicon, index.fields())
    assert again.words_in(EASY_VOCABULARY[2], da) == index.words_in(EASY_VOCABULARY[2], da)


# --- hard ----------------------------------------------------------------------------------


def test_hard_respects_a_tiny_node_cap() -> None:
    lexicon = random_lexicon(21, syllables=25, words=300)
    for seed, cap in enumerate((1, 2, 3, 5, 8, 13)):
        chain = random_position(lexicon, seed, moves=2)
        hard = HardOpponent(BotIndex(lexicon), node_limit=cap)
        word = hard.choose(chain, random.Random(seed))
        if chain.has_legal_word():
            assert word is not None and is_legal(chain, word)
        assert hard.last_search.positions <= cap


def test_hard_default_search_stays_within_20000_positions() -> None:
    lexicon = random_lexicon(22, syllables=30, words=400)
    hard = HardOpponent(BotIndex(lexicon))
    for seed in range(15):
        chain = random_position(lexicon, seed, moves=seed)
        hard.choose(chain, random.Random(seed))
        assert hard.last_search.positions <= 20_000


def _undo(chain: Chain, word: int) -> None:
    """Take the last word back (the reference search plays on the chain itself)."""
    chain.links.pop()
    chain.used.discard(word)
    chain.used_from[chain.lexicon.first[word]] -= 1


def _drawing_moves_left(chain: Chain, index: BotIndex, syllable: int) -> int:
    lexicon = chain.lexicon
    return sum(not index.outcome[lexicon.last[w]] for w in chain.legal_words(syllable))


def _leaf(chain: Chain, index: BotIndex, syllable: int) -> int:
    """The hard bot's static value, computed from scratch: the Lexicon's outcome; for a
    syllable of outcome 0, -DRAWLESS with no drawing move left, DRAWLESS with a move
    into a syllable of outcome 0 that has none left, else 0."""
    lexicon = chain.lexicon
    if index.outcome[syllable]:
        return index.static[syllable]
    if not _drawing_moves_left(chain, index, syllable):
        return -DRAWLESS
    for word in chain.legal_words(syllable):
        target = lexicon.last[word]
        if not index.outcome[target] and not _drawing_moves_left(chain, index, target):
            return DRAWLESS
    return 0


def _full_width(chain: Chain, index: BotIndex, syllable: int, depth: int) -> int:
    """Plain negamax over words, no pruning, the hard bot's leaf values."""
    legal = list(chain.legal_words(syllable))
    if not legal:
        return -WIN - depth
    if any(chain.replies_after(w) == 0 for w in legal):
        return WIN + depth
    if depth <= 1:
        return _leaf(chain, index, syllable)
    best = -2 * WIN
    for word in legal:
        chain.append(word, Side.BOT, 0)
        best = max(best, -_full_width(chain, index, chain.lexicon.last[word], depth - 1))
        _undo(chain, word)
    return best


def test_hard_plays_a_best_move_of_the_full_4_ply_search() -> None:
    """Alpha-beta, move ordering and the static cut-offs change nothing: the move
    played is worth as much as the best one by a full-width 4-ply search."""
    decisive = drawless = 0
    for seed in range(400):
        rng = random.Random(seed)
        size = rng.randint(6, 12)
        lexicon = random_lexicon(1000 + seed, syllables=size, words=rng.randint(2 * size, 4 * size))
        chain = random_position(lexicon, seed, moves=rng.randint(0, 12))
        legal = list(chain.legal_words())
        if not legal:
            continue
        index = BotIndex(lexicon)
        values = {}
        for word in legal:
            if chain.replies_after(word) == 0:
                values[word] = 2 * WIN
                continue
            chain.append(word, Side.BOT, 0)
            values[word] = -_full_width(chain, index, lexicon.last[word], 3)
            _undo(chain, word)
        chosen = HardOpponent(index).choose(chain, random.Random(seed))
        assert values[chosen] == max(values.values()), (seed, lexicon.words[chosen])
        decisive += len(set(values.values())) > 1 and max(values.values()) < 2 * WIN
        drawless += any(abs(v) == DRAWLESS for v in values.values())
    assert decisive >= 40  # positions where the choice was not a given
    assert drawless >= 5  # and where a drawless syllable was in sight


# --- the bots' retrograde outcome of a Lexicon -------------------------------------------------------


def test_outcome_of_syllables(little: Lexicon) -> None:
    outcome = {little.syllable_names[s]: o for s, o in enumerate(BotIndex(little).outcome)}
    assert outcome["chức"] == -1  # no word starts with it
    assert outcome["viên"] == 2  # "viên chức" ends the game
    assert outcome["sinh"] == -3  # only "sinh viên", into a win for the other side
    assert outcome["tiên"] == 4  # "tiên sinh" leaves the other side lost
    assert outcome["đầu"] == 2  # "đầu óc" ends the game


def test_ranked_edges_put_the_best_move_first(little: Lexicon) -> None:
    index = BotIndex(little)
    for syllable, edges in enumerate(index.edges_ranked):
        assert sorted(edges) == sorted(index.edges_from[syllable])
        targets = [index.outcome[index.edge_last[e]] for e in edges]
        # A quick win first (the other side lost soonest), then slower wins, draws,
        # slow losses, quick losses.
        keys = [(0, -o) if o < 0 else ((1, 0) if o == 0 else (2, -o)) for o in targets]
        assert keys == sorted(keys)
