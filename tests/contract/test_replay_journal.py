"""The `ReplayJournal` port (application/arena/rooms/cluster_ports.py) against every
adapter: the in-memory journal of one process and the Redis journal of a cluster. For
Redis, the worker that appends and the process that reads are separate clients."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from noitu.adapters.arena.redis_replay_journal import RedisReplayJournal
from noitu.adapters.arena.replay_journal import InMemoryReplayJournal
from noitu.application.errors import Busy
from support.fakes import FakeClock

MATCH = "0A1B2C3D"
OTHER = "FFFF0000"
SETUP = b'{"event":"setup","matchId":"0A1B2C3D","seed":7,"turnLimit":200}'
APPLIED = [
    b'{"event":"applied","turn":%d,"player":"P%d","action":{"type":"PASS"},"fight":null}'
    % (turn, 1 + turn % 2)
    for turn in range(5)
]


@pytest.fixture
def journals(kind: str, clock: FakeClock, request: pytest.FixtureRequest) -> Callable[..., Any]:
    """`journals(**options)()` gives a journal of the parametrised kind on one shared
    store: for Redis each call another process, for memory the same journal."""
    links = None if kind == "memory" else request.getfixturevalue("redis_links")

    def make(**options: Any) -> Callable[[], Any]:
        if links is None:
            shared = InMemoryReplayJournal(clock, **options)
            return lambda: shared
        return lambda: RedisReplayJournal(links(), **options)

    return make


async def test_events_come_back_in_the_order_they_were_appended(journals) -> None:
    instance = journals()
    worker, reader = instance(), instance()
    await worker.append(MATCH, [SETUP])
    await worker.append(MATCH, APPLIED[:2])
    await worker.append(MATCH, APPLIED[2:])
    assert await reader.events(MATCH) == [SETUP, *APPLIED]


async def test_an_unknown_match_has_no_events_and_an_empty_append_adds_none(journals) -> None:
    journal = journals()()
    assert await journal.events(MATCH) == []
    await journal.append(MATCH, [])
    assert await journal.events(MATCH) == []


async def test_matches_keep_their_own_events(journals) -> None:
    journal = journals()()
    await journal.append(MATCH, [SETUP])
    await journal.append(OTHER, APPLIED[:1])
    assert await journal.events(MATCH) == [SETUP]
    assert await journal.events(OTHER) == APPLIED[:1]


async def test_a_dropped_journal_is_gone_and_only_that_one(journals) -> None:
    instance = journals()
    worker, reader = instance(), instance()
    await worker.append(MATCH, [SETUP, *APPLIED])
    await worker.append(OTHER, [SETUP])
    await reader.drop(MATCH)
    await reader.drop(MATCH)  # again: nothing there, no error
    assert await worker.events(MATCH) == []
    assert await worker.events(OTHER) == [SETUP]


async def test_an_event_keeps_every_byte_of_its_text(journals) -> None:
    journal = journals()()
    odd = '{"event":"received","player":"P2","line":"Búa \\u0000 \ufffd ✂","ms":3}'.encode()
    await journal.append(MATCH, [odd])
    assert await journal.events(MATCH) == [odd]


async def test_a_journal_is_forgotten_its_ttl_after_the_last_append(journals, elapse) -> None:
    journal = journals(ttl_ms=300)()
    await journal.append(MATCH, [SETUP])
    await elapse(200)
    await journal.append(MATCH, APPLIED[:1])  # the ttl starts again
    await elapse(200)
    assert await journal.events(MATCH) == [SETUP, APPLIED[0]]
    await elapse(400)
    assert await journal.events(MATCH) == []


@pytest.mark.redis
async def test_redis_away_is_busy(redis_links: Any) -> None:
    from noitu.bench.redis_server import free_port

    journal = RedisReplayJournal(redis_links(f"redis://127.0.0.1:{free_port()}/0"))
    with pytest.raises(Busy):
        await journal.append(MATCH, [SETUP])
    with pytest.raises(Busy):
        await journal.events(MATCH)
    with pytest.raises(Busy):
        await journal.drop(MATCH)


@pytest.mark.redis
async def test_redis_keeps_an_append_compressed_and_reads_an_item_from_before_b14(
    redis_links: Any,
) -> None:
    """Spec B14: the journal is kept compressed; an item a worker from before B14 wrote
    (one plain event) still reads, in its place."""
    link = redis_links()
    journal = RedisReplayJournal(link)
    key = f"{link.prefix}arena:journal:{MATCH}"
    await link.client.rpush(key, SETUP)  # as a worker from before B14 appended it
    received = [
        b'{"event":"received","player":"P1","line":"%s","ms":1}' % (b"x" * 1000)
        for _ in range(20)
    ]
    await journal.append(MATCH, received)
    assert await journal.events(MATCH) == [SETUP, *received]
    assert await link.client.llen(key) == 2
    stored = await link.client.execute_command("LRANGE", key, 1, 1, NEVER_DECODE=True)
    assert len(stored[0]) < sum(map(len, received)) / 10
