"""Benchmark only: the server's CPU per route, for `noitu bench http`.

With NOITU_BENCH_CPU=1, `noitu serve` wraps its app in `CpuByRoute`. It counts every
HTTP request per route, and times one in `SAMPLE_EVERY` of them: that request's ASGI
call is driven step by step, and the CPU time of the event loop's thread
(`time.thread_time`) is counted during each step of that request only, so what other
requests do while it waits (for a lock, say) is not counted in it. (A thread's clock is
a system call of ~2 µs here; timing every request cost 4% of the server's CPU.) The
totals per route are answered as JSON on GET `CPU_PATH`, with the garbage collector's
passes (a `gc.callbacks` hook: per generation, collections and their seconds, and the
longest pause since the previous answer):
`{"routes": {"start": [requests, timed, seconds], ...}, "gc": {"2": [collections,
seconds, longest]}, "thread_s": ..., "process_s": ...}`.

What is not counted is the work outside the app: uvicorn's protocol parsing the bytes
and the event loop itself. The benchmark gets it as the server's whole CPU (from
/proc) minus the sum over the routes, and divides it evenly over the requests.
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Coroutine, Generator
from typing import Any

CPU_PATH = "/_bench/cpu"
SAMPLE_EVERY = 4  # requests of a route per timed one

Scope = dict[str, Any]


class _Timed:
    """Awaits a coroutine, adding the thread CPU of each of its steps to `spent[0]`."""

    __slots__ = ("coroutine", "spent")

    def __init__(self, coroutine: Coroutine[Any, Any, Any], spent: list[float]) -> None:
        self.coroutine = coroutine
        self.spent = spent

    def __await__(self) -> Generator[Any, Any, Any]:
        coroutine, spent, clock = self.coroutine, self.spent, time.thread_time
        value: Any = None
        error: BaseException | None = None
        while True:
            began = clock()
            try:
                yielded = coroutine.send(value) if error is None else coroutine.throw(error)
            except StopIteration as stop:
                spent[0] += clock() - began
                return stop.value
            except BaseException:
                spent[0] += clock() - began
                raise
            spent[0] += clock() - began
            try:
                value, error = (yield yielded), None
            except BaseException as thrown:  # noqa: BLE001 (cancellation: the coroutine gets it)
                value, error = None, thrown


def route_of(path: str) -> str:
    """"start", "move", … for the game's API; "other" for anything else."""
    if "/api/" in path:
        return path.rpartition("/")[2] or "other"
    return "other"


class CpuByRoute:
    """An ASGI wrapper counting requests and their CPU seconds per route."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.routes: dict[str, list[Any]] = {}  # route -> [requests, timed, seconds]
        self.collections: dict[str, list[float]] = {}
        self._collecting_since = 0.0
        gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        now = time.perf_counter()
        if phase == "start":
            self._collecting_since = now
            return
        pause = now - self._collecting_since
        cell = self.collections.setdefault(str(info["generation"]), [0, 0.0, 0.0])
        cell[0] += 1
        cell[1] += pause
        cell[2] = max(cell[2], pause)

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] == CPU_PATH and scope["method"] == "GET":
            await self._answer(send)
            return
        cell = self.routes.setdefault(route_of(scope["path"]), [0, 0, 0.0])
        cell[0] += 1
        if cell[0] % SAMPLE_EVERY:
            await self.app(scope, receive, send)
            return
        spent = [0.0]
        try:
            await _Timed(self.app(scope, receive, send), spent)
        finally:
            cell[1] += 1
            cell[2] += spent[0]

    async def _answer(self, send: Any) -> None:
        body = json.dumps({
            "routes": self.routes,
            "gc": self.collections,
            "thread_s": time.thread_time(),
            "process_s": time.process_time(),
        }).encode()
        await send({
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode())],
        })
        await send({"type": "http.response.body", "body": body})
        for cell in self.collections.values():
            cell[2] = 0.0  # the longest pause is "since the previous answer"
