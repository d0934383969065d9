"""`RoomDesk` in one process: the asker and the room's worker share the event loop.

Each room has a line of pending requests; `listen` hands them out in order, `ask` waits
for the answer. A request is in one of three states: waiting in line, taken by the
listener, or given up. Taking and withdrawing happen without an await between the
check and the change, so a request is either handed to a listener or withdrawn, never
both:

- within `ask_within_s` the asker waits for the answer;
- then a request still waiting in line is withdrawn (never handed out afterwards) and
  the asker gets `Busy`;
- a request the listener took before that is being judged: the asker waits up to
  `taken_grace_s` more for its answer, then gives up with `Busy` too (its outcome is
  then what the next snapshot shows).

An answer to a request whose asker gave up is dropped.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncGenerator

from noitu.application.arena.rooms.cluster_ports import ASK_WITHIN_S, DeskReply, DeskRequest
from noitu.application.errors import Busy

__all__ = ["TAKEN_GRACE_S", "InMemoryRoomDesk"]

#: How much longer an asker waits for the answer to a request the worker took before
#: `ask_within_s` ran out (judging a request takes milliseconds; this covers a worker
#: that took it at the last moment).
TAKEN_GRACE_S = 1.0


class _Pending:
    __slots__ = ("answered", "request", "taken")

    def __init__(self, request: DeskRequest, answered: asyncio.Future[DeskReply]) -> None:
        self.request = request
        self.answered = answered
        self.taken = False


class _Asked:
    """A request handed to the listener, and the way to answer it."""

    __slots__ = ("_pending",)

    def __init__(self, pending: _Pending) -> None:
        self._pending = pending

    @property
    def request(self) -> DeskRequest:
        return self._pending.request

    async def answer(self, reply: DeskReply) -> None:
        answered = self._pending.answered
        if not answered.done():  # given up (cancelled) or answered already: dropped
            answered.set_result(reply)


class _Line:
    """A room's pending requests and its listeners' wake-up call."""

    __slots__ = ("listeners", "pending", "wakeup")

    def __init__(self) -> None:
        self.pending: deque[_Pending] = deque()
        self.wakeup = asyncio.Event()
        self.listeners = 0


class InMemoryRoomDesk:
    def __init__(
        self, ask_within_s: float = ASK_WITHIN_S, *, taken_grace_s: float = TAKEN_GRACE_S
    ) -> None:
        self._ask_within_s = ask_within_s
        self._taken_grace_s = taken_grace_s
        self._lines: dict[str, _Line] = {}

    def _line(self, code: str) -> _Line:
        line = self._lines.get(code)
        if line is None:
            line = self._lines[code] = _Line()
        return line

    def _forget_if_idle(self, code: str) -> None:
        line = self._lines.get(code)
        if line is not None and not line.pending and line.listeners == 0:
            del self._lines[code]

    async def waiting(self, code: str) -> int:
        """The room's requests waiting to be taken."""
        line = self._lines.get(code)
        return 0 if line is None else len(line.pending)

    async def ask(self, code: str, request: DeskRequest) -> DeskReply:
        line = self._line(code)
        pending = _Pending(request, asyncio.get_running_loop().create_future())
        line.pending.append(pending)
        line.wakeup.set()
        try:
            try:
                return await asyncio.wait_for(
                    asyncio.shield(pending.answered), self._ask_within_s
                )
            except TimeoutError:
                if not pending.taken:
                    raise Busy() from None
            try:
                return await asyncio.wait_for(
                    asyncio.shield(pending.answered), self._taken_grace_s
                )
            except TimeoutError:
                raise Busy() from None
        finally:
            # Given up (or cancelled): an answer coming later is dropped, and a request
            # still in line is withdrawn before any listener can take it.
            pending.answered.cancel()
            if not pending.taken:
                line.pending.remove(pending)
                self._forget_if_idle(code)

    async def listen(self, code: str) -> AsyncGenerator[_Asked, None]:
        line = self._line(code)
        line.listeners += 1
        try:
            while True:
                while not line.pending:
                    line.wakeup.clear()
                    await line.wakeup.wait()
                pending = line.pending.popleft()
                pending.taken = True
                yield _Asked(pending)
        finally:
            line.listeners -= 1
            self._forget_if_idle(code)
