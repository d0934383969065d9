"""The StartRateLimiter port: 10 starts per user in any sliding minute; a refused start
is not counted (spec B8). Every adapter (memory, Redis) must behave the same."""

from __future__ import annotations

import asyncio

import pytest

T0 = 1_800_000_000_000


async def test_ten_starts_then_no(start_limiter):
    assert [await start_limiter.allow(1, T0 + i) for i in range(10)] == [True] * 10
    assert not await start_limiter.allow(1, T0 + 10)
    assert await start_limiter.allow(2, T0 + 10)  # another user is not limited


async def test_the_minute_slides_and_refusals_are_not_counted(start_limiter):
    for i in range(10):
        assert await start_limiter.allow(7, T0 + i * 1_000)
    for i in range(5):  # refused: not counted, so they never push the window
        assert not await start_limiter.allow(7, T0 + 20_000 + i)
    assert not await start_limiter.allow(7, T0 + 59_999)
    # The first start leaves the window exactly 60 s after it was made.
    assert await start_limiter.allow(7, T0 + 60_000)
    assert not await start_limiter.allow(7, T0 + 60_500)
    assert await start_limiter.allow(7, T0 + 61_000)
    # A quiet minute later, ten again.
    assert [await start_limiter.allow(7, T0 + 200_000 + i) for i in range(11)] == [True] * 10 + [False]


async def test_starts_in_the_same_millisecond_each_count(start_limiter):
    assert [await start_limiter.allow(3, T0) for _ in range(11)] == [True] * 10 + [False]


@pytest.mark.redis
async def test_redis_the_limit_holds_across_instances_at_once(redis_links, limits):
    from noitu.adapters.noitu.redis.limiter import RedisStartRateLimiter

    first = RedisStartRateLimiter(redis_links(), limits)
    second = RedisStartRateLimiter(redis_links(), limits)
    results = await asyncio.gather(
        *((first if i % 2 else second).allow(5, T0 + i) for i in range(30))
    )
    assert sum(results) == 10


@pytest.mark.redis
async def test_redis_the_counter_expires(redis_links, redis_url, limits):
    import redis.asyncio as aioredis

    from noitu.adapters.noitu.redis.limiter import RedisStartRateLimiter

    limiter = RedisStartRateLimiter(redis_links(), limits)
    assert await limiter.allow(4, T0)
    async with aioredis.from_url(redis_url) as client:
        assert 59_000 < await client.pttl("noitu:starts:4") <= 60_000
