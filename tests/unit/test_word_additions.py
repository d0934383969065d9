"""B11's live overlay on the domain alone: which words may join, families on addition,
tiers, removal mid-game, and the bots' index following the Lexicon."""

from __future__ import annotations

import asyncio
import random
import threading

import pytest

from noitu.adapters.noitu.dictionary_file import lexicon_from_lines
from noitu.adapters.noitu.words.memory import InMemoryAdditions
from noitu.application.noitu.words.follow_additions import FollowAdditions
from noitu.domain.noitu.additions import ADDED_TIER, Action, Overlay, Unfit, WordChange, unfit
from noitu.domain.noitu.bots import BotIndex, make_opponents
from noitu.domain.noitu.game import Game, Status
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.opponent import Difficulty
from noitu.domain.noitu.rules import Rejection, TurnClock
from support.dictionaries import LITTLE

T0 = 1_000_000


def fresh() -> Lexicon:
    return lexicon_from_lines(LITTLE.splitlines(), "little")


def add(overlay: Overlay, word: str, tier: int = ADDED_TIER, at_ms: int = T0) -> bool:
    return overlay.apply(WordChange(word, Action.ADD, tier, at_ms))


def remove(overlay: Overlay, word: str, at_ms: int = T0) -> bool:
    return overlay.apply(WordChange(word, Action.REMOVE, ADDED_TIER, at_ms))


@pytest.mark.parametrize(
    ("word", "reason"),
    [
        ("trà sữa", None),
        ("mạng xã hội", None),
        ("trà", Unfit.ONE_SYLLABLE),
        ("trà-sữa", Unfit.ONE_SYLLABLE),
        ("trà sữa!", Unfit.NOT_LETTERS),
        ("năm 2024", Unfit.NOT_LETTERS),
        ("cà fê", Unfit.FOREIGN_LETTER),
        ("bơm xtrăng", Unfit.NOT_VIETNAMESE),
        ("đi " * 9 + "về", Unfit.TOO_LONG),
    ],
)
def test_the_filter_says_why_a_word_cannot_join(word, reason):
    assert unfit(word) is reason


def test_an_added_word_is_playable_with_tier_4_unless_given():
    lexicon = fresh()
    overlay = Overlay(lexicon)
    assert add(overlay, "tình bạn")
    assert add(overlay, "bạn bè", tier=1)
    assert lexicon.tiers[lexicon.resolve("tình bạn")] == ADDED_TIER
    assert lexicon.tiers[lexicon.resolve("bạn bè")] == 1
    assert overlay.added("tình bạn").at_ms == T0
    assert [a.word for a in overlay.recent(10)] == ["bạn bè", "tình bạn"]
    assert overlay.version == 2


def test_a_variant_of_a_known_word_joins_its_family():
    lexicon = fresh()
    overlay = Overlay(lexicon)
    before = len(lexicon.word_ids)
    assert not add(overlay, "lí do")  # "lý do" is shipped
    assert not add(overlay, "hòa bình")
    assert len(lexicon.word_ids) == before
    assert add(overlay, "hoà nhã")
    assert not add(overlay, "hòa nhã")  # joins the added "hoà nhã"
    assert lexicon.words[lexicon.resolve("hòa nhã")] == "hoà nhã"
    assert overlay.added("hòa nhã").word == "hoà nhã"


def test_the_overlay_matches_a_lexicon_built_with_the_same_words():
    lexicon = fresh()
    overlay = Overlay(lexicon)
    for word in ("tình bạn", "bạn bè", "óc chó", "núc nác", "chức năng"):
        add(overlay, word, tier=2)
    remove(overlay, "đầu bếp")
    remove(overlay, "óc chó")
    kept = [line for line in LITTLE.splitlines() if not line.startswith("đầu bếp")]
    kept += [f"{w}\t2" for w in ("tình bạn", "bạn bè", "núc nác", "chức năng")]
    built = lexicon_from_lines(sorted(kept, key=lambda line: line.split("\t")[0]), "built")
    assert {w for w in lexicon.word_ids if w in lexicon} == set(built.word_ids)
    for word in built.word_ids:
        syllable = word.split(" ")[0]
        mine = lexicon.syllable_id(syllable)
        theirs = built.syllable_id(syllable)
        assert [lexicon.words[w] for w in lexicon.starting_with[mine]] == [
            built.words[w] for w in built.starting_with[theirs]
        ]
        assert lexicon.out_degree[mine] == built.out_degree[theirs]
        assert lexicon.common_out_degree[mine] == built.common_out_degree[theirs]


def test_the_bots_index_refreshed_in_place_equals_a_new_one():
    lexicon = fresh()
    index = BotIndex(lexicon)
    overlay = Overlay(lexicon)
    add(overlay, "óc chó", tier=1)
    add(overlay, "chó mèo", tier=1)
    remove(overlay, "bếp núc")
    index.refresh()
    rebuilt = BotIndex(lexicon)
    assert index.fields() == rebuilt.fields()
    óc = lexicon.syllable_id("óc")
    assert [lexicon.words[w] for w in index.common_starting_with(óc)] == ["óc chó"]
    bếp = lexicon.syllable_id("bếp")
    assert index.edges_from[bếp] == ()  # the removed word is no move


def test_an_addition_plays_in_a_game_under_way_and_the_bot_answers_with_it():
    lexicon = fresh()
    index = BotIndex(lexicon)
    opponents = make_opponents(index)
    game = Game.start(lexicon, TurnClock(), Difficulty.EASY, random.Random(1), T0)
    assert game.chain.current_syllable == "đầu"
    refused = game.play("đầu gối", T0 + 1_000, opponents[Difficulty.EASY], random.Random(1))
    assert refused.rejection is Rejection.NOT_IN_DICTIONARY
    overlay = Overlay(lexicon)
    add(overlay, "đầu gối")
    add(overlay, "gối ôm", tier=1)
    index.refresh()
    played = game.play("đầu gối", T0 + 2_000, opponents[Difficulty.EASY], random.Random(1))
    assert played.accepted
    assert lexicon.words[played.bot_word] == "gối ôm"


def test_removal_mid_game_keeps_the_chain_and_stops_new_moves():
    lexicon = fresh()
    index = BotIndex(lexicon)
    opponents = make_opponents(index)
    game = Game.start(lexicon, TurnClock(), Difficulty.EASY, random.Random(1), T0)
    outcome = game.play("đầu tiên", T0 + 1_000, opponents[Difficulty.EASY], random.Random(1))
    assert lexicon.words[outcome.bot_word] == "tiên sinh"
    overlay = Overlay(lexicon)
    assert remove(overlay, "tiên sinh")
    assert remove(overlay, "sinh viên")
    index.refresh()
    assert [link.word.text for link in game.chain.links] == ["mở đầu", "đầu tiên", "tiên sinh"]
    refused = game.play("sinh viên", T0 + 2_000, opponents[Difficulty.EASY], random.Random(1))
    assert refused.rejection is Rejection.NOT_IN_DICTIONARY
    assert lexicon.id_of_any("tiên sinh") == outcome.bot_word  # a stored chain still decodes
    assert not remove(overlay, "sinh viên")  # already out
    assert add(overlay, "sinh viên")  # back, with its old id
    assert lexicon.resolve("sinh viên") == lexicon.id_of_any("sinh viên")
    back = game.play("sinh viên", T0 + 3_000, opponents[Difficulty.EASY], random.Random(1))
    assert back.accepted
    assert lexicon.words[back.bot_word] == "viên chức"
    assert game.status is Status.PLAYING


async def test_two_polls_at_once_apply_each_change_once():
    """The server's poll and an operator's button may follow the store at the same time."""

    class SlowStore(InMemoryAdditions):
        async def changes_since(self, version: int, limit: int) -> list[WordChange]:
            await asyncio.sleep(0.01)
            return await super().changes_since(version, limit)

    store = SlowStore()
    lexicon = fresh()
    follow = FollowAdditions(store, Overlay(lexicon), BotIndex(lexicon))
    await store.append(WordChange("tình bạn", Action.ADD, ADDED_TIER, T0))
    await store.append(WordChange("bạn bè", Action.ADD, ADDED_TIER, T0))
    await asyncio.gather(follow(), follow())
    assert follow.overlay.version == 2
    await store.append(WordChange("bè phái", Action.ADD, ADDED_TIER, T0))
    await follow()
    assert lexicon.resolve("bè phái") is not None


def test_a_removed_word_still_names_its_id_for_the_stores_codecs():
    """Stored chains (Redis sessions and rooms) are decoded through `word_ids`."""
    lexicon = fresh()
    word_id = lexicon.word_ids["tiên sinh"]
    assert remove(Overlay(lexicon), "tiên sinh")
    assert lexicon.word_ids.get("tiên sinh") == word_id
    assert lexicon.resolve("tiên sinh") is None
    assert "tiên sinh" not in lexicon
    assert not lexicon.is_live(word_id)


def test_suggestions_see_added_words_and_not_removed_ones():
    lexicon = fresh()
    overlay = Overlay(lexicon)
    game = Game.start(lexicon, TurnClock(), Difficulty.EASY, random.Random(1), T0)
    add(overlay, "đầu gối", tier=1)  # tier 1 and no reply after it: the first suggestion
    remove(overlay, "đầu bếp")
    game.give_up(T0 + 1_000)
    assert [lexicon.words[w] for w in game.suggestions] == ["đầu gối", "đầu tiên", "đầu óc"]


class HeldBuild:
    """Builds the bots' index once the test lets it go: until then the build waits in
    whichever thread runs it (on the event loop itself, it would hold the loop until
    its timeout and the test fails)."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self._go = threading.Event()
        self.builds = 0

    def __call__(self, lexicon: Lexicon) -> BotIndex:
        self.started.set()
        if not self._go.wait(5):
            raise TimeoutError("the build was never let go: it held the event loop")
        self.builds += 1
        return BotIndex(lexicon)

    async def under_way(self) -> None:
        assert await asyncio.to_thread(self.started.wait, 5), "no build started"

    def release(self) -> None:
        self._go.set()


async def test_the_loop_serves_moves_while_the_bots_index_is_rebuilt():
    """The rebuild runs off the event loop; until it is done, a move and the bot both
    see the words as they were, and then both see the new ones."""
    lexicon = fresh()
    index = BotIndex(lexicon)
    opponent = make_opponents(index)[Difficulty.EASY]
    store = InMemoryAdditions()
    build = HeldBuild()
    follow = FollowAdditions(store, Overlay(lexicon), index, build_index=build)
    game = Game.start(lexicon, TurnClock(), Difficulty.EASY, random.Random(1), T0)
    await store.append(WordChange("đầu gối", Action.ADD, ADDED_TIER, T0))
    await store.append(WordChange("gối ôm", Action.ADD, 1, T0))
    following = asyncio.create_task(follow())
    await build.under_way()
    refused = game.play("đầu gối", T0 + 1_000, opponent, random.Random(1))
    assert refused.rejection is Rejection.NOT_IN_DICTIONARY
    assert follow.overlay.version == 0
    build.release()
    assert await following == 2
    played = game.play("đầu gối", T0 + 2_000, opponent, random.Random(1))
    assert played.accepted
    assert lexicon.words[played.bot_word] == "gối ôm"
    assert index.fields() == BotIndex(lexicon).fields()


async def test_a_removal_reaches_the_words_and_the_bot_together():
    lexicon = fresh()
    index = BotIndex(lexicon)
    opponent = make_opponents(index)[Difficulty.EASY]
    store = InMemoryAdditions()
    build = HeldBuild()
    follow = FollowAdditions(store, Overlay(lexicon), index, build_index=build)
    await store.append(WordChange("tiên sinh", Action.REMOVE, ADDED_TIER, T0))
    following = asyncio.create_task(follow())
    await build.under_way()
    before = Game.start(lexicon, TurnClock(), Difficulty.EASY, random.Random(1), T0)
    answered = before.play("đầu tiên", T0 + 1_000, opponent, random.Random(1))
    assert lexicon.words[answered.bot_word] == "tiên sinh"  # still a word: both agree
    build.release()
    assert await following == 1
    after = Game.start(lexicon, TurnClock(), Difficulty.EASY, random.Random(1), T0)
    unanswered = after.play("đầu tiên", T0 + 1_000, opponent, random.Random(1))
    assert unanswered.accepted and unanswered.bot_word is None  # the bot has no word left
    assert after.status is Status.WON
    refused = before.play("sinh viên", T0 + 2_000, opponent, random.Random(1))
    assert refused.accepted  # the chain under way keeps "tiên sinh"


async def test_a_failed_rebuild_changes_nothing_and_the_next_poll_applies_once():
    lexicon = fresh()
    index = BotIndex(lexicon)
    store = InMemoryAdditions()
    overlay = Overlay(lexicon)
    fields = index.fields()

    def broken(_: Lexicon) -> BotIndex:
        raise MemoryError("no room for the index")

    await store.append(WordChange("tình bạn", Action.ADD, ADDED_TIER, T0))
    with pytest.raises(MemoryError):
        await FollowAdditions(store, overlay, index, build_index=broken)()
    assert overlay.version == 0
    assert lexicon.resolve("tình bạn") is None
    assert index.fields() == fields

    build = HeldBuild()
    follow = FollowAdditions(store, overlay, index, build_index=build)
    following = asyncio.create_task(follow())
    await build.under_way()
    await store.append(WordChange("bạn bè", Action.ADD, ADDED_TIER, T0))
    second = asyncio.create_task(follow())  # an operator's button meanwhile: it waits
    build.release()
    assert (await following, await second) == (1, 1)
    assert overlay.version == 2 and build.builds == 2
    assert lexicon.resolve("tình bạn") is not None and lexicon.resolve("bạn bè") is not None
    assert index.fields() == BotIndex(lexicon).fields()


def test_a_preview_leaves_the_lexicon_as_it_is_and_gives_the_same_ids():
    lexicon = fresh()
    overlay = Overlay(lexicon)
    changes = [
        WordChange("đầu gối", Action.ADD, ADDED_TIER, T0),
        WordChange("tiên sinh", Action.REMOVE, ADDED_TIER, T0),
    ]
    words = list(lexicon.words)
    ahead = overlay.preview(changes)
    assert lexicon.words == words and lexicon.resolve("đầu gối") is None
    assert "tiên sinh" in lexicon and overlay.version == 0
    assert overlay.preview([WordChange("lí do", Action.ADD, ADDED_TIER, T0)]) is None
    for change in changes:
        overlay.apply(change)
    assert ahead.fields() == lexicon.fields() and ahead.retired == lexicon.retired
    index = BotIndex(fresh())
    with pytest.raises(ValueError, match="other words"):
        index.adopt(BotIndex(ahead))
