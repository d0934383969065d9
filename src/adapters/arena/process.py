"""The I/O of one bot process, shared by both launchers (spec B2, B3, A6).

The process's stdin and stdout are plain pipes this object owns, both non-blocking on
our side. A request is written with one `write` (what a full pipe did not take is
written as the pipe drains); stdout is read by a callback of the event loop's, the
moment it is readable, with no reader task and no stream buffer between the pipe and
the judge (a turn between instant bots is one write, one wake-up, one read). A small
state machine decides what every stdout byte is:

- while a request is outstanding, bytes build the reply line; the first newline ends it
  (`Reply`), and more than 65,536 code points (counted as bytes that are not UTF-8
  continuation bytes, newline excluded) fail at once with REPLY_TOO_LONG, so at most
  that much is ever buffered;
- at any other time a byte is EXTRA_OUTPUT, the moment it is read. Bytes that follow a
  reply in the same read are held back (and reading pauses) until the reply was handed
  over, so the caller can judge and apply the reply before learning of them; they are
  looked at first by anything asked next (`ask`, `pending_failure`, `failure`);
- what arrived before a request is written is never its reply, however late the event
  loop got to it: at the instant of writing, `ask()` counts the bytes in the pipe (by
  FIONREAD) and any is EXTRA_OUTPUT. So the verdict depends only on when the bytes
  arrived, not on how the event loop scheduled the reading;
- the end of stdout (or the process's exit) is RESOURCE_LIMIT when the cgroup's OOM
  counter moved, INCOMPLETE_LINE when part of a reply was pending, EXITED otherwise.

The first failure is kept; everything after it, and everything after `close()` started,
is ignored.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass

from noitu.adapters.arena.process_tree import Containment, ExitWatch, Spawned
from noitu.adapters.arena.stderr_reader import StderrReader, bytes_waiting
from noitu.application.arena.ports import MAX_REPLY_CODE_POINTS, ProcessFailure, Reply
from noitu.domain.arena.failure import FailureCode

#: What a bot whose reply passes the cap is told (the cap as a Vietnamese reader writes it).
REPLY_TOO_LONG = "Dòng trả lời dài quá {} ký tự.".format(f"{MAX_REPLY_CODE_POINTS:,}".replace(",", "."))

READ_SIZE = 64 * 1024
#: How long a process gets to exit after its stdin was closed (B2).
CLOSE_GRACE_S = 1.0
#: After stdout ended, how long to wait for the exit status (and a final OOM count).
EXIT_STATUS_WAIT_S = 0.5
#: After the process exited, how long stdout may stay open (held by a child).
STDOUT_AFTER_EXIT_S = 0.5

_CONTINUATION = bytes(range(0x80, 0xC0))


def code_points(data: bytes) -> int:
    """Unicode code points in UTF-8 `data` (bytes that are not continuation bytes)."""
    return len(data.translate(None, _CONTINUATION))


def _seconds(value: float) -> str:
    return f"{value:g}".replace(".", ",")


@dataclass(slots=True)
class _Request:
    future: asyncio.Future[Reply | ProcessFailure]
    asked_at: float
    deadline: float
    timeout_s: float
    timer: asyncio.TimerHandle | None = None


class PipeBotProcess:
    """`BotProcess` over a subprocess's stdin/stdout/stderr pipes."""

    def __init__(self, spawned: Spawned, containment: Containment) -> None:
        """`spawned`: the process and our ends of its three pipes, now owned by this
        object (closed by `close()`)."""
        self._process = spawned.process
        self._containment = containment
        self._loop = asyncio.get_running_loop()
        self._stdin_fd: int | None = spawned.stdin_fd
        self._stdout_fd: int | None = spawned.stdout_fd
        self._unsent = b""  # what the stdin pipe did not take yet
        self._request: _Request | None = None
        self._line = bytearray()
        self._points = 0
        self._leftover: bytes | None = None
        self._reading = False
        self._failed: asyncio.Future[ProcessFailure] = self._loop.create_future()
        self._asked = 0
        self._stderr = StderrReader(spawned.stderr_fd)
        self._stdout_done = False
        self._stdout_ended: asyncio.Future[None] = self._loop.create_future()
        self._ending = False
        self._closing = False
        self._close_task: asyncio.Task[None] | None = None
        self._exit = ExitWatch(self._process)
        self._read()
        self._stderr_reader = asyncio.create_task(self._stderr.run())
        watching = asyncio.create_task(self._watch_exit())
        self._tasks = [*self._exit.tasks, self._stderr_reader, watching]

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.returncode

    # ------------------------------------------------------------ the port

    def ask(self, line: str, timeout_s: float) -> asyncio.Future[Reply | ProcessFailure]:
        """The request is written before this returns; await the answer."""
        if self._outstanding() is not None:
            raise RuntimeError("ask() while another request is outstanding")
        if "\n" in line or "\r" in line:
            raise ValueError("a request is one line")
        future: asyncio.Future[Reply | ProcessFailure] = self._loop.create_future()
        if self._closing:
            future.set_result(ProcessFailure(FailureCode.EXITED, "Tiến trình bot đã bị đóng."))
            return future
        # Whatever the bot wrote before this request must be judged as such.
        self._take_leftover()
        if not self._failed.done() and self.unread_stdout() > 0:
            self._extra_output()  # it arrived before this request: never its reply
        failure = self.pending_failure()
        if failure is not None:
            future.set_result(failure)
            return future
        self._write(line.encode("utf-8") + b"\n")
        asked_at = self._loop.time()
        request = _Request(future, asked_at, asked_at + timeout_s, timeout_s)
        request.timer = self._loop.call_at(request.deadline, self._on_timeout, request)
        self._request = request
        self._asked += 1
        return future

    async def failure(self) -> ProcessFailure:
        if self._outstanding() is None:
            self._take_leftover()
        return await asyncio.shield(self._failed)

    def pending_failure(self) -> ProcessFailure | None:
        if self._outstanding() is None:
            self._take_leftover()
        return self._failed.result() if self._failed.done() else None

    def unread_stdout(self) -> int:
        """How many bytes the bot wrote to stdout that were not read yet (in the pipe)."""
        if self._stdout_fd is None:
            return 0
        try:
            return bytes_waiting(self._stdout_fd)
        except OSError:
            return 0

    def stderr_tail(self) -> bytes:
        """The last bytes of stderr, including what waits in the pipe now (a pass at
        once): taken at the end of a match, it ends with what the bot wrote before,
        although the reader's last pass may have been a pause ago."""
        self._stderr.catch_up()
        return self._stderr.tail()

    def on_stderr(self, listener: Callable[[bytes], None]) -> None:
        self._stderr.listen(listener)

    async def close(self) -> None:
        if self._close_task is None:
            self._close_task = asyncio.create_task(self._close())
        await asyncio.shield(self._close_task)

    # ------------------------------------------------------------ stdin

    def _write(self, data: bytes) -> None:
        """Write what the pipe takes now; the rest as it drains. A bot that is gone
        takes nothing (its end shows up on stdout)."""
        if self._stdin_fd is None:
            return
        if self._unsent:  # the bot has not read an earlier request: this one queues
            self._unsent += data
            return
        try:
            written = os.write(self._stdin_fd, data)
        except BlockingIOError:
            written = 0
        except OSError:
            return
        if written < len(data):
            self._unsent = data[written:]
            self._loop.add_writer(self._stdin_fd, self._on_writable)

    def _on_writable(self) -> None:
        fd = self._stdin_fd
        if fd is None:
            return
        try:
            written = os.write(fd, self._unsent)
        except BlockingIOError:
            return
        except OSError:
            written = len(self._unsent)  # gone: nothing more to write
        self._unsent = self._unsent[written:]
        if not self._unsent:
            self._loop.remove_writer(fd)

    def _close_stdin(self) -> None:
        fd, self._stdin_fd = self._stdin_fd, None
        if fd is not None:
            if self._unsent:
                self._loop.remove_writer(fd)
                self._unsent = b""
            os.close(fd)

    # ------------------------------------------------------------ stdout

    def _read(self) -> None:
        if not self._reading and self._stdout_fd is not None and not self._stdout_done:
            self._reading = True
            self._loop.add_reader(self._stdout_fd, self._on_readable)

    def _pause_reading(self) -> None:
        if self._reading and self._stdout_fd is not None:
            self._reading = False
            self._loop.remove_reader(self._stdout_fd)

    def _on_readable(self) -> None:
        fd = self._stdout_fd
        if fd is None:
            return
        try:
            chunk = os.read(fd, READ_SIZE)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._pause_reading()
            self._stdout_done = True
            if not self._stdout_ended.done():
                self._stdout_ended.set_result(None)
            self._tasks.append(asyncio.create_task(self._ended()))
            return
        if self._closing or self._failed.done():
            return
        self._feed(chunk)
        if self._leftover is not None:
            # Hold on until the reply was handed over (the caller's next step).
            self._pause_reading()
            self._loop.call_soon(self._release_hold)

    def _release_hold(self) -> None:
        self._take_leftover()
        self._read()

    def _outstanding(self) -> _Request | None:
        """The request waiting for its reply; one whose waiter gave up is forgotten."""
        request = self._request
        if request is not None and request.future.done():
            self._forget(request)
            return None
        return request

    def _forget(self, request: _Request) -> None:
        if request.timer is not None:
            request.timer.cancel()
        if self._request is request:
            self._request = None

    def _answer(self, request: _Request, answer: Reply | ProcessFailure) -> None:
        self._forget(request)
        if not request.future.done():
            request.future.set_result(answer)

    def _fail(self, code: FailureCode, detail: str) -> None:
        if self._closing or self._failed.done():
            return
        failure = ProcessFailure(code, detail)
        self._failed.set_result(failure)
        request = self._request
        if request is not None:
            self._answer(request, failure)

    def _on_timeout(self, request: _Request) -> None:
        if self._request is request and not request.future.done():
            seconds = _seconds(request.timeout_s)
            self._fail(FailureCode.TIMEOUT, f"Bot không trả lời trong {seconds} giây.")

    def _extra_output(self) -> None:
        if self._asked == 0:
            detail = (
                "Bot in ra stdout trước khi được hỏi; stdout chỉ dành cho dòng ACTION "
                "(log hãy ghi ra stderr)."
            )
        else:
            detail = (
                "Bot in thêm ra stdout ngoài dòng trả lời; mỗi YOUR_TURN chỉ được trả lời "
                "đúng một dòng (log hãy ghi ra stderr)."
            )
        self._fail(FailureCode.EXTRA_OUTPUT, detail)

    def _feed(self, data: bytes) -> None:
        """Judge newly read stdout bytes (at most one reply completes per call; what
        follows it waits in `_leftover`)."""
        request = self._request
        if request is None or request.future.done():
            self._extra_output()
            return
        newline = data.find(b"\n")
        piece = data if newline < 0 else data[:newline]
        points = self._points + code_points(piece)
        if points > MAX_REPLY_CODE_POINTS:
            self._line = bytearray()
            detail = REPLY_TOO_LONG
            if self._asked == 1:
                # A bot that prints as it starts, after its first request was written.
                detail += (
                    " Mọi thứ in ra stdout sau khi được hỏi lần đầu đều thuộc dòng trả lời"
                    " này (log hãy ghi ra stderr)."
                )
            self._fail(FailureCode.REPLY_TOO_LONG, detail)
            return
        if newline < 0:
            self._line += piece
            self._points = points
            return
        now = self._loop.time()
        line = bytes(self._line) + piece if self._line else piece
        self._line = bytearray()
        self._points = 0
        if now > request.deadline:
            self._on_timeout(request)
            return
        rest = data[newline + 1 :]
        self._leftover = rest or None
        self._answer(request, Reply(line, round((now - request.asked_at) * 1000)))

    def _take_leftover(self) -> None:
        rest, self._leftover = self._leftover, None
        if rest and not self._closing and not self._failed.done():
            self._extra_output()

    async def _watch_exit(self) -> None:
        await asyncio.shield(self._exit.exited)
        # stdout normally ends with the process; a child may still hold it open.
        while not self._stdout_done:
            try:
                await asyncio.wait_for(
                    asyncio.shield(self._stdout_ended), STDOUT_AFTER_EXIT_S
                )
                return
            except TimeoutError:
                if self._leftover is None:
                    await self._ended()
                    return

    async def _ended(self) -> None:
        """stdout ended, or the process exited: say how."""
        if self._ending:
            return
        self._ending = True
        if await self._exit.wait(EXIT_STATUS_WAIT_S):
            # What it wrote to stderr before it went (a traceback, say) is read before
            # its failure ends the match, so the stderr tail taken then has it.
            self._stderr.catch_up()
        if self._closing or self._failed.done():
            return
        if self._containment.oom_killed():
            limit = self._containment.memory_limit_mb
            self._fail(
                FailureCode.RESOURCE_LIMIT,
                f"Bot bị dừng vì dùng quá giới hạn bộ nhớ ({limit} MB)."
                if limit
                else "Bot bị dừng vì dùng quá giới hạn bộ nhớ.",
            )
        elif self._line:
            self._fail(
                FailureCode.INCOMPLETE_LINE,
                "Bot dừng khi dòng trả lời chưa kết thúc bằng ký tự xuống dòng.",
            )
        else:
            code = self._process.returncode
            if code is None:
                detail = "Bot đã đóng stdout."
            elif code < 0:
                detail = f"Tiến trình bot đã kết thúc (bị tín hiệu {-code})."
            else:
                detail = f"Tiến trình bot đã kết thúc (mã thoát {code})."
            self._fail(FailureCode.EXITED, detail)

    async def _close(self) -> None:
        self._closing = True
        request = self._request
        if request is not None:
            closed = ProcessFailure(FailureCode.EXITED, "Tiến trình bot đã bị đóng.")
            self._answer(request, closed)
        self._close_stdin()
        await self._exit.wait(CLOSE_GRACE_S)
        # Whether or not it left in time: it and everything it started go now.
        await self._containment.kill_all()
        await self._exit.wait(5.0)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._process.wait()), 1.0)
        self._exit.close()
        self._pause_reading()
        fd, self._stdout_fd = self._stdout_fd, None
        if fd is not None:
            os.close(fd)
        _, pending = await asyncio.wait(self._tasks, timeout=0.5)
        for task in pending:
            task.cancel()
        for task in pending:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._stderr.catch_up()
        self._stderr.close()
        await self._containment.release()
