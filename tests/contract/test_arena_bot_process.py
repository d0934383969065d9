"""Contract of BotLauncher/BotProcess (spec B2, B3, A6), for every launcher: the
bubblewrap sandbox, the direct launcher with cgroups, the direct launcher alone.

One test bot per process failure code, and bots that must be accepted."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from noitu.adapters.arena.bubblewrap import BubblewrapLauncher
from noitu.adapters.arena.direct import DirectLauncher
from noitu.adapters.arena.sandbox import Sandbox
from noitu.application.arena.ports import (
    MAX_REPLY_CODE_POINTS,
    Artefact,
    BotLauncher,
    BotProcess,
    Language,
    ProcessFailure,
    Reply,
)
from noitu.domain.arena.failure import FailureCode
from support.arena_bots import python_artefact, sandbox_fixture

LAUNCHERS = ["bubblewrap", "direct-cgroup", "direct"]


@pytest.fixture(scope="session")
def arena_sandbox() -> Iterator[Sandbox]:
    yield from sandbox_fixture()


@pytest.fixture(params=LAUNCHERS)
def launcher(request: pytest.FixtureRequest, arena_sandbox: Sandbox) -> BotLauncher:
    if request.param == "bubblewrap":
        return BubblewrapLauncher(arena_sandbox)
    if request.param == "direct-cgroup":
        return DirectLauncher(cgroups=arena_sandbox.cgroups)
    return DirectLauncher()


@pytest.fixture
async def start(launcher: BotLauncher, tmp_path: Path) -> AsyncIterator[Callable[..., object]]:
    """start("echo") launches tests/support/arena_bots/echo.py; all are closed after."""
    started: list[BotProcess] = []

    async def start_bot(name: str) -> BotProcess:
        bot = await launcher.launch(python_artefact(name, tmp_path))
        assert not isinstance(bot, ProcessFailure), bot
        started.append(bot)
        return bot

    yield start_bot
    for bot in started:
        await bot.close()


def code_of(result: Reply | ProcessFailure | None) -> FailureCode | None:
    return result.code if isinstance(result, ProcessFailure) else None


# ---------------------------------------------------------------- accepted


async def test_several_requests_in_a_row(start) -> None:
    bot = await start("echo")
    for n in range(1, 21):
        reply = await bot.ask(f'{{"n":{n}}}', 5.0)
        assert isinstance(reply, Reply), reply
        assert reply.line == f'ok {n} {{"n":{n}}}'.encode()
        assert 0 <= reply.ms < 2000
    assert bot.pending_failure() is None


async def test_a_reply_in_many_small_chunks_is_one_line(start) -> None:
    bot = await start("chunks")
    for _ in range(2):
        reply = await bot.ask("{}", 5.0)
        assert isinstance(reply, Reply), reply
        assert reply.line == b'{"type":"ACTION","sequence":40,"action":{"type":"PASS"}}'
        # 57 bytes, 1 ms apart: the time runs to the newline, from the request.
        assert reply.ms >= 50
    assert bot.pending_failure() is None


async def test_exactly_65536_code_points_are_accepted_65537_are_not(start) -> None:
    bot = await start("exact_limit")
    reply = await bot.ask("{}", 10.0)
    assert isinstance(reply, Reply), reply
    text = reply.line.decode("utf-8")
    assert len(text) == MAX_REPLY_CODE_POINTS
    assert len(reply.line) == (1 + 2 + 3 + 4) * MAX_REPLY_CODE_POINTS // 4
    too_long = await bot.ask("{}", 10.0)
    assert code_of(too_long) is FailureCode.REPLY_TOO_LONG


async def test_a_stderr_flood_never_blocks_or_fails_the_bot(start) -> None:
    bot = await start("stderr_flood")
    for timeout_s in (25.0, 2.0):  # a first request's clock, then a later one's (A6)
        reply = await bot.ask("{}", timeout_s)
        assert isinstance(reply, Reply), reply
        assert reply.line == b"DONE"
    tail = bot.stderr_tail()
    assert 0 < len(tail) <= 8 * 1024
    assert tail.endswith(b"END-OF-FLOOD\n")
    assert bot.pending_failure() is None


# ---------------------------------------------------------------- failures


async def test_no_whole_line_in_time_is_timeout(start) -> None:
    bot = await start("slow")
    began = time.monotonic()
    result = await bot.ask("{}", 0.3)
    elapsed = time.monotonic() - began
    assert code_of(result) is FailureCode.TIMEOUT
    assert "0,3 giây" in result.detail
    assert 0.3 <= elapsed < 1.5
    assert bot.pending_failure() == result


async def test_the_65537th_code_point_fails_at_once_without_a_newline(start) -> None:
    bot = await start("too_long")
    began = time.monotonic()
    result = await bot.ask("{}", 20.0)
    assert code_of(result) is FailureCode.REPLY_TOO_LONG
    # The bot writes the 65,537th character after 0.3 s and no newline ever: only
    # counting as the bytes arrive fails it long before the 20 s timeout.
    assert 0.25 <= time.monotonic() - began < 5.0


async def test_output_before_the_first_request_is_extra_output(start) -> None:
    bot = await start("chatty_start")
    failure = await asyncio.wait_for(bot.failure(), 10.0)
    assert failure.code is FailureCode.EXTRA_OUTPUT
    assert "trước khi được hỏi" in failure.detail
    assert await bot.ask("{}", 1.0) == failure


def hold_the_loop_until(condition: Callable[[], bool], timeout_s: float = 10.0) -> None:
    """Block the event loop (no reader task runs) until `condition()` holds."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "the bot never got there"
        time.sleep(0.01)


async def test_a_flood_that_arrived_before_the_request_is_extra_output_unread_or_not(
    start,
) -> None:
    bot = await start("flood_start")
    # The flood is in the pipe, and no reader has looked at it yet: it still arrived
    # before the request, so it is not the reply (that would be REPLY_TOO_LONG).
    hold_the_loop_until(lambda: bot.unread_stdout() > 0)
    assert bot.pending_failure() is None
    result = await bot.ask("{}", 10.0)
    assert code_of(result) is FailureCode.EXTRA_OUTPUT
    assert "trước khi được hỏi" in result.detail


async def test_output_that_comes_after_the_first_request_is_its_reply(start) -> None:
    bot = await start("too_long")  # it reads its request, then writes 65,537 characters
    result = await bot.ask("{}", 10.0)
    assert code_of(result) is FailureCode.REPLY_TOO_LONG
    # The first reply: what a bot prints as it starts would be judged as this line.
    assert "stderr" in result.detail


def test_under_uvloop_the_pipe_is_seen_before_the_request_is_written(tmp_path: Path) -> None:
    """The server runs on uvloop (uvicorn's default when installed), whose pipes to a
    child are socket pairs: unread bytes there count too."""
    uvloop = pytest.importorskip("uvloop")

    async def scenario() -> tuple[int, Reply | ProcessFailure]:
        bot = await DirectLauncher().launch(python_artefact("flood_start", tmp_path))
        assert not isinstance(bot, ProcessFailure)
        try:
            hold_the_loop_until(lambda: bot.unread_stdout() > 0)
            return bot.unread_stdout(), await bot.ask("{}", 10.0)
        finally:
            await bot.close()

    unread, result = uvloop.run(scenario())
    assert unread >= 64 * 1024
    assert code_of(result) is FailureCode.EXTRA_OUTPUT


async def test_a_second_line_in_the_same_write_comes_after_the_reply(start) -> None:
    bot = await start("two_lines")
    reply = await bot.ask("{}", 5.0)
    assert reply == Reply(b"FIRST", reply.ms)
    failure = await asyncio.wait_for(bot.failure(), 5.0)
    assert failure.code is FailureCode.EXTRA_OUTPUT


async def test_the_next_request_never_takes_output_written_before_it(start) -> None:
    bot = await start("two_lines")
    reply = await bot.ask("{}", 5.0)
    assert isinstance(reply, Reply) and reply.line == b"FIRST"
    # Asked again at once: SECOND was written before this request, so it is not its
    # reply but EXTRA_OUTPUT.
    again = await bot.ask("{}", 5.0)
    assert code_of(again) is FailureCode.EXTRA_OUTPUT


async def test_output_while_not_asked_is_extra_output_when_it_arrives(start) -> None:
    bot = await start("late_extra")
    reply = await bot.ask("{}", 5.0)
    assert isinstance(reply, Reply) and reply.line == b"REPLY"
    assert bot.pending_failure() is None
    began = time.monotonic()
    failure = await asyncio.wait_for(bot.failure(), 5.0)
    assert failure.code is FailureCode.EXTRA_OUTPUT
    assert time.monotonic() - began < 2.0
    assert bot.pending_failure() == failure


async def test_exiting_when_asked_is_exited(start) -> None:
    bot = await start("exit_after_one")
    assert isinstance(await bot.ask("{}", 5.0), Reply)
    result = await bot.ask("{}", 5.0)
    assert code_of(result) is FailureCode.EXITED
    assert "mã thoát 3" in result.detail


async def test_exiting_while_not_asked_is_exited_and_asking_does_not_raise(start) -> None:
    bot = await start("exit_at_once")
    failure = await asyncio.wait_for(bot.failure(), 10.0)
    assert failure.code is FailureCode.EXITED
    for _ in range(3):
        assert await bot.ask('{"type":"YOUR_TURN"}', 1.0) == failure


async def test_asking_a_bot_that_just_exited_does_not_raise(start) -> None:
    bot = await start("exit_at_once")
    await asyncio.sleep(0.3)  # probably gone; the pipe may be broken already
    result = await bot.ask("x" * 200_000, 2.0)
    assert code_of(result) is FailureCode.EXITED


async def test_exiting_in_the_middle_of_a_line_is_incomplete_line(start) -> None:
    bot = await start("partial_exit")
    result = await bot.ask("{}", 5.0)
    assert code_of(result) is FailureCode.INCOMPLETE_LINE


async def test_an_exit_is_told_even_when_a_child_keeps_stdout_open(start) -> None:
    bot = await start("orphan_stdout")
    assert isinstance(await bot.ask("{}", 5.0), Reply)
    began = time.monotonic()
    result = await bot.ask("{}", 10.0)
    assert code_of(result) is FailureCode.EXITED
    assert time.monotonic() - began < 3.0


async def test_a_memory_hog_is_resource_limit(start, launcher: BotLauncher) -> None:
    if isinstance(launcher, DirectLauncher) and launcher.cgroups is None:
        pytest.skip("the direct launcher without cgroups has no memory limit to hit")
    bot = await start("hog")
    result = await bot.ask("{}", 20.0)
    assert code_of(result) is FailureCode.RESOURCE_LIMIT, (result, bot.stderr_tail()[-200:])
    assert "384 MB" in result.detail
    last = bot.stderr_tail().decode().strip().splitlines()[-1]
    reached = int(last.split()[1])
    print(f"memory hog killed after {reached} MiB allocated")
    # Killed near the cap: 384 MiB minus the interpreter itself, never beyond.
    assert 250 <= reached <= 384, last


async def test_close_ignores_late_output_and_kills_after_one_second(start) -> None:
    bot = await start("stubborn")
    assert isinstance(await bot.ask("{}", 5.0), Reply)
    began = time.monotonic()
    await bot.close()
    took = time.monotonic() - began
    assert 0.9 <= took < 4.0
    assert bot.pending_failure() is None  # "still here" came after close() began
    assert bot.returncode is not None  # type: ignore[attr-defined]
    await bot.close()  # idempotent
    assert code_of(await bot.ask("{}", 1.0)) is FailureCode.EXITED


async def test_close_of_a_bot_that_exits_on_eof_is_quick(start) -> None:
    bot = await start("echo")
    assert isinstance(await bot.ask("{}", 5.0), Reply)
    began = time.monotonic()
    await bot.close()
    assert time.monotonic() - began < 0.9
    assert bot.pending_failure() is None


async def test_a_missing_artefact_is_start_failed(launcher: BotLauncher, tmp_path: Path) -> None:
    for artefact in (
        Artefact(Language.PYTHON, tmp_path / "nowhere"),
        Artefact(Language.CPP, tmp_path),
    ):
        result = await launcher.launch(artefact)
        assert isinstance(result, ProcessFailure)
        assert result.code is FailureCode.START_FAILED
