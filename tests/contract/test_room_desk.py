"""The `RoomDesk` port (application/arena/rooms/cluster_ports.py) against every adapter:
the in-memory desk of one process and the Redis desk of several. For Redis, the askers
and the worker are separate "instances" (their own clients on one server)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import msgspec
import pytest
import redis.asyncio as aioredis

from noitu.adapters.arena.redis_room_desk import RedisRoomDesk
from noitu.adapters.arena.room_desk import InMemoryRoomDesk
from noitu.application.arena.rooms.cluster_ports import ASK_WITHIN_S, DeskReply, DeskRequest
from noitu.application.errors import Busy

CODE = "A3C4E6"
OTHER = "FFFFFF"
#: The short waits the tests use (the port's default is 2 s).
ASK_S = 0.3
GRACE_S = 0.4
ORDER_ASK_S = ASK_WITHIN_S


def request(kind: str, command: bytes = b'{"seat": 0}') -> DeskRequest:
    return DeskRequest(kind=kind, command=msgspec.Raw(command))


def judged(asked: DeskRequest) -> DeskReply:
    """The test workers' answer: an error for `fail`, else a snapshot naming the request."""
    if asked.kind == "fail":
        return DeskReply(error="not_your_turn", message="Chưa đến lượt bạn.")
    return DeskReply(snapshot=msgspec.Raw(b'{"kind": "%s", "command": %s}' % (
        asked.kind.encode(), bytes(asked.command))))


class Worker:
    """A room's listener, answering as `judge` says (None: taking without answering)."""

    def __init__(
        self, desk: Any, code: str = CODE,
        judge: Callable[[DeskRequest], DeskReply | None] = judged, delay_s: float = 0.0,
    ) -> None:
        self.seen: list[DeskRequest] = []
        self.held: list[Any] = []
        self.error: BaseException | None = None
        self._listening = desk.listen(code)
        self._judge = judge
        self._delay_s = delay_s
        self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        try:
            async for asked in self._listening:
                self.seen.append(asked.request)
                if self._delay_s:
                    await asyncio.sleep(self._delay_s)
                reply = self._judge(asked.request)
                if reply is None:
                    self.held.append(asked)
                else:
                    await asked.answer(reply)
        except Busy as error:
            self.error = error

    async def stop(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        await self._listening.aclose()


@pytest.fixture
async def workers() -> AsyncIterator[list[Worker]]:
    """The workers a test started, stopped after it."""
    started: list[Worker] = []
    yield started
    for worker in started:
        await worker.stop()


@pytest.fixture
def desks(kind: str, request: pytest.FixtureRequest) -> Callable[..., Any]:
    """Makes a desk of the parametrised kind: each call another instance (for memory,
    the same desk: one process)."""
    if kind == "memory":
        shared: dict[float, InMemoryRoomDesk] = {}
        return lambda ask_s=ASK_S: shared.setdefault(
            ask_s, InMemoryRoomDesk(ask_s, taken_grace_s=GRACE_S)
        )
    make_link = request.getfixturevalue("redis_links")
    return lambda ask_s=ASK_S: RedisRoomDesk(make_link(), ask_s, taken_grace_s=GRACE_S)


@pytest.fixture
def start(workers: list[Worker]) -> Callable[..., Worker]:
    def make(desk: Any, code: str = CODE, **options: Any) -> Worker:
        worker = Worker(desk, code, **options)
        workers.append(worker)
        return worker

    return make


async def until(condition: Callable[[], Any], timeout_s: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not await condition():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.005)


async def test_a_request_reaches_the_worker_and_its_answer_comes_back(
    desks: Any, start: Any
) -> None:
    asker, host = desks(), desks()
    worker = start(host)
    placing = request("place", b'{"pieces": [[0, 1], [2, 3]], "note": "d\xc3\xa2u"}')
    answer = await asker.ask(CODE, placing)
    assert answer == judged(placing)
    assert answer.snapshot is not None and bytes(answer.snapshot) == (
        b'{"kind": "place", "command": {"pieces": [[0, 1], [2, 3]], "note": "d\xc3\xa2u"}}'
    )
    assert answer.error is None and answer.message == ""
    refused = await asker.ask(CODE, request("fail", b"{}"))
    assert refused == DeskReply(error="not_your_turn", message="Chưa đến lượt bạn.")
    assert refused.snapshot is None
    assert worker.seen == [placing, request("fail", b"{}")]
    assert await asker.waiting(CODE) == 0


async def test_an_answer_with_a_null_snapshot_and_a_message_comes_back_exactly(
    desks: Any, start: Any
) -> None:
    asker, host = desks(), desks()
    odd = DeskReply(snapshot=msgspec.Raw(b"null"), message="x")
    start(host, judge=lambda _: odd)
    answer = await asker.ask(CODE, request("get", b"null"))
    assert answer == odd and answer.snapshot is not None and bytes(answer.snapshot) == b"null"


async def test_requests_are_taken_in_the_order_they_were_asked(desks: Any, start: Any) -> None:
    # Six asks wait while they are queued one by one: the port's own 2 s window, not the
    # tests' short one, which a loaded machine can spend on the queueing alone.
    asker, host = desks(ORDER_ASK_S), desks(ORDER_ASK_S)
    asking = []
    for n in range(6):
        asking.append(asyncio.ensure_future(asker.ask(CODE, request(f"act{n}"))))
        await until(lambda n=n: _waiting_at_least(asker, n + 1))
    worker = start(host)
    answers = await asyncio.gather(*asking)
    assert [s.kind for s in worker.seen] == [f"act{n}" for n in range(6)]
    assert answers == [judged(request(f"act{n}")) for n in range(6)]


async def _waiting_at_least(desk: Any, n: int) -> bool:
    return await desk.waiting(CODE) >= n


async def test_a_request_asked_before_the_listening_began_is_delivered(
    desks: Any, start: Any
) -> None:
    asker, host = desks(), desks()
    asking = asyncio.ensure_future(asker.ask(CODE, request("act")))
    await until(lambda: _waiting_at_least(asker, 1))
    worker = start(host)
    assert await asking == judged(request("act"))
    assert worker.seen == [request("act")]


async def test_a_request_nobody_takes_is_busy_in_time_and_never_delivered_later(
    desks: Any, start: Any
) -> None:
    asker, host = desks(), desks()
    started = time.monotonic()
    with pytest.raises(Busy):
        await asker.ask(CODE, request("late"))
    assert ASK_S <= time.monotonic() - started < ASK_S + 1.0
    assert await asker.waiting(CODE) == 0
    worker = start(host)
    assert await asker.ask(CODE, request("next")) == judged(request("next"))
    await asyncio.sleep(0.05)
    assert worker.seen == [request("next")]


async def test_a_request_taken_at_the_last_moment_is_still_answered(
    desks: Any, start: Any
) -> None:
    asker, host = desks(), desks()
    worker = start(host, delay_s=ASK_S + GRACE_S / 2)
    assert await asker.ask(CODE, request("slow")) == judged(request("slow"))
    assert worker.seen == [request("slow")]


async def test_an_answer_after_the_asker_gave_up_is_harmless(desks: Any, start: Any) -> None:
    asker, host = desks(), desks()
    holding = start(host, judge=lambda r: None if r.kind == "hold" else judged(r))
    started = time.monotonic()
    with pytest.raises(Busy):
        await asker.ask(CODE, request("hold"))
    assert ASK_S + GRACE_S <= time.monotonic() - started < ASK_S + GRACE_S + 1.0
    [taken] = holding.held
    await taken.answer(judged(request("hold")))
    await taken.answer(judged(request("hold")))
    # The late answer reaches nobody else: the next asker gets its own.
    assert await asker.ask(CODE, request("next")) == judged(request("next"))
    assert holding.error is None


async def test_rooms_do_not_mix(desks: Any, start: Any) -> None:
    asker, host = desks(), desks()
    one = start(host, CODE)
    other = start(host, OTHER)
    assert await asker.ask(OTHER, request("b1")) == judged(request("b1"))
    assert await asker.ask(CODE, request("a1")) == judged(request("a1"))
    assert await asker.ask(OTHER, request("b2")) == judged(request("b2"))
    assert [r.kind for r in one.seen] == ["a1"]
    assert [r.kind for r in other.seen] == ["b1", "b2"]


async def test_concurrent_askers_each_get_their_own_answer(desks: Any, start: Any) -> None:
    askers = [desks(), desks(), desks()]
    host = desks()
    worker = start(host)
    asked = [request(f"act{n}", b'{"n": %d}' % n) for n in range(30)]
    answers = await asyncio.gather(
        *(askers[n % 3].ask(CODE, one) for n, one in enumerate(asked))
    )
    assert answers == [judged(one) for one in asked]
    assert sorted(worker.seen, key=asked.index) == asked


async def test_two_listeners_never_take_the_same_request(desks: Any, start: Any) -> None:
    asker = desks()
    first, second = start(desks()), start(desks())
    asked = [request(f"act{n}") for n in range(20)]
    answers = await asyncio.gather(*(asker.ask(CODE, one) for one in asked))
    assert answers == [judged(one) for one in asked]
    seen = first.seen + second.seen
    assert sorted(seen, key=asked.index) == asked


async def test_a_listener_that_stopped_takes_nothing_more(desks: Any, start: Any) -> None:
    asker, host = desks(), desks()
    gone = start(host)
    assert await asker.ask(CODE, request("one")) == judged(request("one"))
    await gone.stop()
    with pytest.raises(Busy):
        await asker.ask(CODE, request("two"))
    assert gone.seen == [request("one")]


async def test_a_cancelled_listener_stops_at_once(desks: Any) -> None:
    host = desks()
    listening = host.listen(CODE)

    async def run() -> None:
        async for _ in listening:
            pass

    for pause_s in (0.0, 0.05, 0.3):
        task = asyncio.ensure_future(run())
        await asyncio.sleep(pause_s)
        task.cancel()
        started = time.monotonic()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 2)
        assert time.monotonic() - started < 0.5
        listening = host.listen(CODE)


async def test_a_cancelled_ask_is_withdrawn(desks: Any, start: Any) -> None:
    asker, host = desks(), desks()
    asking = asyncio.ensure_future(asker.ask(CODE, request("gone")))
    await until(lambda: _waiting_at_least(asker, 1))
    asking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asking
    assert await asker.waiting(CODE) == 0
    worker = start(host)
    assert await asker.ask(CODE, request("next")) == judged(request("next"))
    assert worker.seen == [request("next")]


# -- Redis only -------------------------------------------------------------------------


@pytest.mark.redis
async def test_redis_away_ask_and_listen_are_busy_at_once(redis_links: Any) -> None:
    from noitu.bench.redis_server import free_port

    desk = RedisRoomDesk(redis_links(f"redis://127.0.0.1:{free_port()}/0"), ASK_S)
    started = time.monotonic()
    with pytest.raises(Busy):
        await desk.ask(CODE, request("act"))
    listening = desk.listen(CODE)
    with pytest.raises(Busy):
        await anext(listening)
    assert time.monotonic() - started < 2.5


@pytest.mark.redis
async def test_listening_ends_busy_when_redis_goes_away(
    tmp_path: Any, redis_links: Any
) -> None:
    from noitu.bench.redis_server import RedisServer

    with RedisServer(tmp_path / "redis") as server:
        asker = RedisRoomDesk(redis_links(server.url), ASK_S)
        host = RedisRoomDesk(redis_links(server.url), ASK_S)
        listening = host.listen(CODE)
        next_one = asyncio.ensure_future(anext(listening))
        asking = asyncio.ensure_future(asker.ask(CODE, request("act")))
        taken = await asyncio.wait_for(next_one, 5)
        await taken.answer(judged(taken.request))
        assert await asking == judged(request("act"))
        waiting = asyncio.ensure_future(anext(listening))
        await asyncio.sleep(0.1)
        server.kill()
        with pytest.raises(Busy):
            await asyncio.wait_for(waiting, 5)


@pytest.mark.redis
async def test_a_request_left_past_its_deadline_is_dropped_unanswered(
    redis_url: str, redis_links: Any, start: Any
) -> None:
    """An asker that lost Redis (or died) after adding its request never withdrew it:
    the worker must not act on it once its deadline passed."""
    desk = RedisRoomDesk(redis_links(), ASK_S)
    stream, reply = f"noitu:arena:desk:room:{CODE}", "noitu:arena:desk:reply:lost"
    async with aioredis.from_url(redis_url, decode_responses=True) as client:
        await client.xadd(stream, {
            "id": "lost", "deadline": int(time.time() * 1000) - 1,
            "request": msgspec.json.encode(request("stale")).decode(),
        })
        worker = start(desk)
        assert await desk.ask(CODE, request("fresh")) == judged(request("fresh"))
        assert worker.seen == [request("fresh")]
        assert await client.lrange(reply, 0, -1) == [""]  # a waiting asker hears `busy`
        assert 0 < await client.ttl(reply) <= 10
        assert 3500 < await client.ttl(stream) <= 3600
