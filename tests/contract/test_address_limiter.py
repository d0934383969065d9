"""The AddressLimiter port (arena, spec B10): per client address and action, at most
the operator's figure in any sliding minute; a refusal counts nothing and says when the
oldest counted action leaves the window. Every adapter (memory, Redis) behaves alike,
and on Redis the counts hold across instances."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from noitu.adapters.arena.address_limiter import InMemoryAddressLimiter
from noitu.application.arena.admission import AddressAction, AddressLimits

T0 = 1_800_000_000_000
LIMITS = AddressLimits(owner_keys=3, uploads=5, rooms=2)


@pytest.fixture
def make_limiter(kind: str, request: pytest.FixtureRequest) -> Callable[[], Any]:
    """For Redis each call is another instance on the same store; for memory, one."""
    if kind == "memory":
        shared = InMemoryAddressLimiter(LIMITS)
        return lambda: shared
    from noitu.adapters.arena.redis_address_limiter import RedisAddressLimiter

    links = request.getfixturevalue("redis_links")
    return lambda: RedisAddressLimiter(links(), LIMITS)


async def test_each_action_has_its_own_figure_and_each_address_its_own_count(make_limiter):
    limiter = make_limiter()
    uploads = [await limiter.admit(AddressAction.UPLOAD, "10.0.0.1", T0 + i) for i in range(6)]
    assert uploads[:5] == [None] * 5 and uploads[5] == 60_000 - 5
    assert await limiter.admit(AddressAction.UPLOAD, "10.0.0.2", T0 + 5) is None
    rooms = [await limiter.admit(AddressAction.ROOM, "10.0.0.1", T0 + i) for i in range(3)]
    assert rooms == [None, None, 60_000 - 2]
    keys = [await limiter.admit(AddressAction.OWNER_KEY, "10.0.0.1", T0) for _ in range(4)]
    assert keys == [None, None, None, 60_000]


async def test_the_minute_slides_and_refusals_count_nothing(make_limiter):
    limiter = make_limiter()
    for i in range(2):
        assert await limiter.admit(AddressAction.ROOM, "a", T0 + i * 10_000) is None
    for i in range(5):
        assert await limiter.admit(AddressAction.ROOM, "a", T0 + 20_000 + i) is not None
    assert await limiter.admit(AddressAction.ROOM, "a", T0 + 59_999) == 1
    assert await limiter.admit(AddressAction.ROOM, "a", T0 + 60_000) is None
    assert await limiter.admit(AddressAction.ROOM, "a", T0 + 60_001) == 9_999


@pytest.mark.redis
@pytest.mark.parametrize("kind", ["redis"])
async def test_redis_the_counts_hold_across_instances_at_once(make_limiter):
    first, second = make_limiter(), make_limiter()
    answers = await asyncio.gather(
        *((first if i % 2 else second).admit(AddressAction.UPLOAD, "b", T0 + i) for i in range(20))
    )
    assert sum(answer is None for answer in answers) == LIMITS.uploads
