"""The webhook's memory of handled Telegram updates: one contract, both adapters.

With Redis, two "instances" (two clients) share what they have seen."""

from __future__ import annotations

import pytest

from noitu.adapters.noitu.redis.update_memory import RedisRecentUpdates
from noitu.adapters.noitu.telegram.webhook import RecentUpdates


@pytest.fixture
def two_instances(kind, request):
    if kind == "memory":
        shared = RecentUpdates(size=3)
        return shared, shared
    make_link = request.getfixturevalue("redis_links")
    return RedisRecentUpdates(make_link()), RedisRecentUpdates(make_link())


async def test_an_update_is_seen_once(two_instances):
    first, second = two_instances
    assert await first.first_time(1001)
    assert not await second.first_time(1001)
    assert not await first.first_time(1001)
    assert await second.first_time(1002)


async def test_the_memory_stays_bounded():
    recent = RecentUpdates(size=3)
    for update_id in range(1, 5):
        assert await recent.first_time(update_id)
    assert await recent.first_time(1)  # forgotten: only the last 3 are kept
    assert not await recent.first_time(4)
