"""The Resources' generators: what opens and closes, each yielding None when the settings
leave its part out (see `entrypoints/container.py`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING

from noitu.adapters.arena.bubblewrap import BubblewrapProbe
from noitu.adapters.arena.local_jobs import InProcessMatches
from noitu.adapters.arena.sql.migrations import upgrade
from noitu.adapters.periodic import Periodic
from noitu.application.arena.jobs import MATCH_JOB, JobKind, MatchOutcome
from noitu.application.arena.rooms.ports import RoomFeed
from noitu.domain.arena.room import Room
from noitu.entrypoints.containers.runners import (
    BotRunners,
    ChosenRunners,
    RunnerChoice,
    runners_for,
)

if TYPE_CHECKING:
    from saq import Queue
    from sqlalchemy.ext.asyncio import AsyncEngine

    from noitu.adapters.noitu.redis.rooms import RedisRoomFeed as RedisGroupFeed
    from noitu.adapters.redis.client import RedisLink


async def redis_connection(link: RedisLink | None) -> AsyncIterator[RedisLink | None]:
    """The Redis link (NOITU_STORE=redis; None with the memory store), closed last."""
    try:
        yield link
    finally:
        if link is not None:
            await link.aclose()


async def job_queue_connection(
    queues: dict[JobKind, Queue] | None,
) -> AsyncIterator[dict[JobKind, Queue] | None]:
    """The SAQ job queues' connections (NOITU_ARENA_QUEUE=saq: one queue per job kind;
    None with the local queue, which holds nothing open)."""
    if queues is None:
        yield None
        return
    from noitu.adapters.arena.saq_jobs import close_queues, connect_queues

    try:
        await connect_queues(queues)
        yield queues
    finally:
        await close_queues(queues)


async def in_process_matches(
    _runners: object,
    matches: InProcessMatches | None,
    play_match: Callable[[], Callable[[Room], Awaitable[MatchOutcome]]],
) -> AsyncIterator[InProcessMatches | None]:
    """One machine's match jobs (NOITU_ARENA_QUEUE=local), played here by `PlayMatch`
    (built once the bots' runners are chosen: `_runners`, the sandbox's Resource), the
    ones still waiting or playing stopped at the end (after the rooms closed); None on
    several machines (the workers play them)."""
    if matches is not None:
        matches.handle(MATCH_JOB, play_match())
    try:
        yield matches
    finally:
        if matches is not None:
            await matches.stop()


async def arena_database(engine: AsyncEngine | None) -> AsyncIterator[AsyncEngine | None]:
    """The arena's database, migrated to the latest schema before anything reads it;
    its engine disposed at the end. None when the arena is off."""
    if engine is None:
        yield None
        return
    try:
        await upgrade(engine)
        yield engine
    finally:
        await engine.dispose()


async def open_runners(
    probe: BubblewrapProbe, choice: RunnerChoice, chosen: ChosenRunners
) -> AsyncIterator[BotRunners | None]:
    """What runs bots here, chosen once (`runners.py`): the sandbox probed (unless the
    role and settings say bots run directly here, or not at all), the runners handed
    to `chosen` for the providers that read them. The sandbox's staging folder goes at
    the end."""
    if choice == "off":
        yield None
        return
    found = await probe.probe() if choice == "probe" else None
    runners = runners_for(probe, found)
    chosen.choose(runners)
    try:
        yield runners
    finally:
        if runners.kind == "sandbox":
            probe.make_sandbox().close()


async def open_group_feed(
    feed: RedisGroupFeed | None, link: RedisLink | None
) -> AsyncIterator[None]:
    """Nối từ's group feed on Redis (None with the memory store, which holds nothing
    open), closed at the end. `link` is the Redis connection's Resource, named so that
    it closes after the feed."""
    try:
        yield
    finally:
        if feed is not None:
            await feed.aclose()


async def run_periodic(periodic: Periodic, *opened: object) -> AsyncIterator[Periodic]:
    """The process's periodic tasks (`entrypoints/periodic_tasks.py`: which ones is the
    process's role's choice), started with it and stopped, every run in progress
    cancelled, before the Resources they use close (`opened` names them)."""
    periodic.start()
    try:
        yield periodic
    finally:
        await periodic.stop()


async def open_room_feed(feed: RoomFeed | None, link: RedisLink | None) -> AsyncIterator[None]:
    """The arena's room feed (None when the arena is off), stopped at the end, before
    the Redis connection (`link`) closes."""
    try:
        yield
    finally:
        if feed is not None:
            await feed.stop()
