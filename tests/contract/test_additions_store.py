"""The additions store's contract (spec B11), one module for its three adapters: memory,
a SQLite file and Redis. Two "instances" are two stores on the same backend, each with
its own Lexicon and live overlay."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from noitu.adapters.noitu.dictionary_file import bot_index_of, lexicon_from_lines
from noitu.adapters.noitu.words.memory import InMemoryAdditions
from noitu.adapters.noitu.words.redis import RedisAdditions
from noitu.adapters.noitu.words.sqlite import SqliteAdditions
from noitu.adapters.redis.client import RedisLink
from noitu.application.noitu.words.follow_additions import FollowAdditions
from noitu.application.noitu.words.ports import AdditionsStore
from noitu.domain.noitu.additions import Action, Overlay, WordChange
from support.dictionaries import LITTLE

ADDITION_ADAPTERS = ["memory", "sqlite", "redis"]


@pytest.fixture(params=ADDITION_ADAPTERS)
async def new_store(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Callable[[], AdditionsStore]]:
    """Makes stores on one backend: each call is another server instance."""
    shared = InMemoryAdditions()
    made: list[SqliteAdditions] = []
    links: list[RedisLink] = []
    url = request.getfixturevalue("redis_url") if request.param == "redis" else ""

    def make() -> AdditionsStore:
        if request.param == "memory":
            return shared
        if request.param == "sqlite":
            store = SqliteAdditions.in_data_dir(tmp_path)
            made.append(store)
            return store
        link = RedisLink.from_url(url)
        links.append(link)
        return RedisAdditions(link)

    yield make
    for store in made:
        store.close()
    for link in links:
        await link.aclose()


def change(word: str, action: Action = Action.ADD, tier: int = 4, at_ms: int = 1_000) -> WordChange:
    return WordChange(word, action, tier, at_ms)


async def test_changes_are_numbered_and_read_back_in_order(new_store) -> None:
    store = new_store()
    assert await store.changes_since(0, 10) == []
    assert await store.append(change("trà sữa")) == 1
    assert await store.append(change("tắc đường", tier=2, at_ms=2_000)) == 2
    assert await store.append(change("trà sữa", Action.REMOVE, at_ms=3_000)) == 3
    assert await store.changes_since(0, 10) == [
        change("trà sữa"),
        change("tắc đường", tier=2, at_ms=2_000),
        change("trà sữa", Action.REMOVE, at_ms=3_000),
    ]
    assert await store.changes_since(1, 1) == [change("tắc đường", tier=2, at_ms=2_000)]
    assert await store.changes_since(3, 10) == []


async def test_a_change_survives_a_new_store_on_the_same_backend(new_store) -> None:
    await new_store().append(change("mây trôi"))
    assert await new_store().changes_since(0, 10) == [change("mây trôi")]


async def test_two_instances_play_an_addition_after_one_poll(new_store) -> None:
    """What the server's poll (every FOLLOW_EVERY_S) does on each instance."""
    instances = []
    stores = []
    for _ in range(2):
        lexicon = lexicon_from_lines(LITTLE.splitlines())
        stores.append(new_store())
        instances.append(FollowAdditions(stores[-1], Overlay(lexicon), bot_index_of(lexicon)))
    second = instances[1]
    await stores[0].append(change("tình bạn"))
    for follow in instances:
        assert await follow() == 1
        lexicon = follow.overlay.lexicon
        word_id = lexicon.resolve("tình bạn")
        assert word_id is not None
        assert word_id in lexicon.starting_with[lexicon.syllable_id("tình")]
    assert await second() == 0
