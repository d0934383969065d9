"""The I/O of one bot process, shared by both launchers (spec B2, B3, A6).

stdout and stderr are read all the time by background tasks. A small state machine
decides what every stdout byte is:

- while a request is outstanding, bytes build the reply line; the first newline ends it
  (`Reply`), and more than 65,536 code points (counted as bytes that are not UTF-8
  continuation bytes, newline excluded) fail at once with REPLY_TOO_LONG, so at most
  that much is ever buffered;
- at any other time a byte is EXTRA_OUTPUT, the moment it arrives. Bytes that follow a
  reply in the same read are held back until `ask()` has handed that reply over (and
  before the next request is written they are looked at first), so the caller can judge
  and apply the reply before learning of them;
- what arrived before a request is written is never its reply, however late the reader
  gets to it: at the instant of writing, `ask()` counts the bytes nobody has judged yet
  (the stream's buffer and, by FIONREAD, the pipe) and any is EXTRA_OUTPUT. So the
  verdict depends only on when the bytes arrived, not on how the event loop (asyncio's
  or uvloop's, whose pipes are socket pairs) scheduled the reader;
- the end of stdout (or the process's exit) is RESOURCE_LIMIT when the cgroup's OOM
  counter moved, INCOMPLETE_LINE when part of a reply was pending, EXITED otherwise.

The first failure is kept; everything after it, and everything after `close()` started,
is ignored.
"""

from __future__ import annotations

import asyncio
import contextlib
import select
from collections.abc import Callable
from dataclasses import dataclass

from noitu.adapters.arena.process_tree import Containment, ExitWatch
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


class PipeBotProcess:
    """`BotProcess` over a subprocess's stdin/stdout/stderr pipes."""

    def __init__(
        self, process: asyncio.subprocess.Process, containment: Containment, stderr_fd: int
    ) -> None:
        """`stderr_fd`: the read end of the process's stderr pipe (non-blocking), now
        owned by this object (closed by `close()`)."""
        assert process.stdin and process.stdout
        self._process = process
        self._containment = containment
        self._loop = asyncio.get_running_loop()
        self._request: _Request | None = None
        self._line = bytearray()
        self._points = 0
        self._leftover: bytes | None = None
        self._resume = asyncio.Event()
        self._failed: asyncio.Future[ProcessFailure] = self._loop.create_future()
        self._asked = 0
        self._stderr = StderrReader(stderr_fd)
        self._stdout_done = False
        self._ending = False
        self._closing = False
        self._close_task: asyncio.Task[None] | None = None
        self._stdout_fd = self._pipe_fd(1)
        self._exit = ExitWatch(process)
        self._reader = asyncio.create_task(self._read_stdout())
        self._stderr_reader = asyncio.create_task(self._stderr.run())
        watching = asyncio.create_task(self._watch_exit())
        self._tasks = [*self._exit.tasks, self._reader, self._stderr_reader, watching]

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.returncode

    # ------------------------------------------------------------ the port

    async def ask(self, line: str, timeout_s: float) -> Reply | ProcessFailure:
        if self._request is not None:
            raise RuntimeError("ask() while another request is outstanding")
        if "\n" in line or "\r" in line:
            raise ValueError("a request is one line")
        if self._closing:
            return ProcessFailure(FailureCode.EXITED, "Tiến trình bot đã bị đóng.")
        # Whatever the bot wrote before this request must be judged as such.
        self._take_leftover()
        await self._settle()
        if self.unread_stdout() > 0 and not self._failed.done():
            self._extra_output()  # it arrived before this request: never its reply
        failure = self.pending_failure()
        if failure is not None:
            return failure
        future: asyncio.Future[Reply | ProcessFailure] = self._loop.create_future()
        stdin = self._process.stdin
        assert stdin is not None
        try:
            stdin.write(line.encode("utf-8") + b"\n")
        except (OSError, RuntimeError):
            pass  # the bot is gone: its end shows up on stdout
        asked_at = self._loop.time()
        request = _Request(future, asked_at, asked_at + timeout_s, timeout_s)
        self._request = request
        self._asked += 1
        timer = self._loop.call_at(request.deadline, self._on_timeout, request)
        # A line the pipe took whole needs no drain (a task a turn, for nothing).
        drain = asyncio.create_task(self._drain()) if _buffered(stdin) else None
        try:
            return await future
        finally:
            timer.cancel()
            if drain is not None and not drain.done():
                drain.cancel()
            self._request = None
            self._resume.set()

    async def failure(self) -> ProcessFailure:
        if self._request is None:
            self._take_leftover()
        return await asyncio.shield(self._failed)

    def pending_failure(self) -> ProcessFailure | None:
        if self._request is None:
            self._take_leftover()
        return self._failed.result() if self._failed.done() else None

    def unread_stdout(self) -> int:
        """How many bytes the bot wrote to stdout that were not judged yet (in the
        stream's buffer, or still in the pipe)."""
        buffered = len(getattr(self._process.stdout, "_buffer", b""))
        if self._stdout_fd is None:
            return buffered
        try:
            return buffered + bytes_waiting(self._stdout_fd)
        except OSError:
            return buffered

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

    # ------------------------------------------------------------ internals

    def _pipe_fd(self, number: int) -> int | None:
        """The descriptor our end of the child's pipe `number` reads: asyncio's pipe
        transports name it "pipe", uvloop's (a socket pair) "socket"."""
        try:
            transport = self._process._transport  # type: ignore[attr-defined]
            pipe = transport.get_pipe_transport(number)
            for key in ("pipe", "socket"):
                end = pipe.get_extra_info(key)
                if end is not None:
                    return int(end.fileno())
        except Exception:  # noqa: BLE001 - a private transport shape: no descriptor, no fast path
            return None
        return None

    def _stdout_waiting(self) -> bool:
        """Bytes (or the end) sit in the pipe or the stream buffer, not yet judged."""
        if len(getattr(self._process.stdout, "_buffer", b"")) > 0:
            return True
        if self._stdout_fd is None:
            return False
        try:
            readable, _, _ = select.select([self._stdout_fd], [], [], 0)
        except (OSError, ValueError):
            return False
        return bool(readable)

    async def _settle(self) -> None:
        """Let the reader judge what already arrived before a request is written. When
        nothing did (nothing read and unjudged, nothing in the pipe: the usual case
        between instant bots), there is nothing to wait for."""
        if self._leftover is None and not self._stdout_waiting():
            return
        for _ in range(100):
            if self._failed.done() or self._stdout_done:
                return
            await asyncio.sleep(0)
            if not self._stdout_waiting() and self._leftover is None:
                await asyncio.sleep(0)
                if not self._stdout_waiting():
                    return
            self._take_leftover()

    async def _drain(self) -> None:
        stdin = self._process.stdin
        assert stdin is not None
        with contextlib.suppress(OSError, RuntimeError, asyncio.CancelledError):
            await stdin.drain()

    def _fail(self, code: FailureCode, detail: str) -> None:
        if self._closing or self._failed.done():
            return
        failure = ProcessFailure(code, detail)
        self._failed.set_result(failure)
        request = self._request
        if request is not None and not request.future.done():
            request.future.set_result(failure)

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
        self._line += piece
        self._points = points
        if newline < 0:
            return
        now = self._loop.time()
        line = bytes(self._line)
        self._line = bytearray()
        self._points = 0
        if now > request.deadline:
            self._on_timeout(request)
            return
        self._resume.clear()
        self._leftover = data[newline + 1 :]
        request.future.set_result(Reply(line, round((now - request.asked_at) * 1000)))

    def _take_leftover(self) -> None:
        rest, self._leftover = self._leftover, None
        if rest and not self._closing and not self._failed.done():
            self._extra_output()

    async def _read_stdout(self) -> None:
        stdout = self._process.stdout
        assert stdout is not None
        try:
            while True:
                chunk = await stdout.read(READ_SIZE)
                if not chunk:
                    break
                if self._closing or self._failed.done():
                    continue
                self._feed(chunk)
                if self._leftover is not None:
                    # Hold on until ask() handed the reply over.
                    await self._resume.wait()
                    self._take_leftover()
        except (OSError, ValueError):
            pass
        finally:
            self._stdout_done = True
        await self._ended()

    async def _watch_exit(self) -> None:
        await asyncio.shield(self._exit.exited)
        # stdout normally ends with the process; a child may still hold it open.
        while not self._reader.done():
            done, _ = await asyncio.wait({self._reader}, timeout=STDOUT_AFTER_EXIT_S)
            if done:
                return
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
        if request is not None and not request.future.done():
            closed = ProcessFailure(FailureCode.EXITED, "Tiến trình bot đã bị đóng.")
            request.future.set_result(closed)
        stdin = self._process.stdin
        assert stdin is not None
        with contextlib.suppress(OSError, RuntimeError):
            stdin.close()
        await self._exit.wait(CLOSE_GRACE_S)
        # Whether or not it left in time: it and everything it started go now.
        await self._containment.kill_all()
        await self._exit.wait(5.0)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._process.wait()), 1.0)
        self._exit.close()
        self._resume.set()
        _, pending = await asyncio.wait(self._tasks, timeout=0.5)
        for task in pending:
            task.cancel()
        for task in pending:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._stderr.catch_up()
        self._stderr.close()
        await self._containment.release()


def _buffered(stdin: asyncio.StreamWriter) -> bool:
    """Whether bytes written to `stdin` wait in its transport for the pipe."""
    try:
        return stdin.transport.get_write_buffer_size() > 0
    except (AttributeError, NotImplementedError, RuntimeError):
        return True  # not known: drain, as always
