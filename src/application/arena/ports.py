"""Ports of the bot runner (spec B2, B3, A6): building uploads, starting bot processes,
talking to them one line at a time, and telling whether the sandbox can run at all.

Only value types and small Protocols live here; the adapters are in
`noitu.adapters.arena`. Every failure a bot process can have is a `ProcessFailure`
carrying a `FailureCode` from the domain and a short Vietnamese text for its owner.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Literal, Protocol

from noitu.domain.arena.failure import FailureCode

#: A reply is at most this many Unicode code points, newline not counted (A6).
MAX_REPLY_CODE_POINTS = 65_536
#: How much of a bot's stderr is kept for its owner (the last bytes of the match).
STDERR_TAIL_BYTES = 8 * 1024
#: How much of a compiler's own output is kept for the owner.
BUILD_MESSAGES_BYTES = 16 * 1024


class Language(StrEnum):
    """A bot's language; what each one is lives in `languages.LANGUAGES`."""

    PYTHON = "python"
    CPP = "cpp"
    JAVA = "java"
    JAR = "jar"


@dataclass(frozen=True, slots=True)
class Artefact:
    """What runs: `directory` holds `bot.py`, `bot` (C++), `Main.class` and friends, or
    `bot.jar`, depending on `language`. Launchers only read it."""

    language: Language
    directory: Path


#: Which build limit stopped a compile. CPU is a throttle (1 CPU), not a limit one hits.
BuildLimit = Literal["wall", "memory", "pids"]


@dataclass(frozen=True, slots=True)
class BuildResult:
    ok: bool
    artefact: Artefact | None
    #: The compiler's or checker's own text for the bot's owner (capped), or our
    #: refusal; empty when there is nothing to say.
    messages: str
    #: Set when the build was stopped by one of its fixed limits.
    limit: BuildLimit | None = None


@dataclass(frozen=True, slots=True)
class Reply:
    """One reply line: its bytes without the newline, and the milliseconds from the
    moment the request line was written to the moment the newline was read."""

    line: bytes
    ms: int


@dataclass(frozen=True, slots=True)
class ProcessFailure:
    """Why a bot process failed. `code` is one of START_FAILED, RESOURCE_LIMIT,
    INCOMPLETE_LINE, EXITED, EXTRA_OUTPUT, TIMEOUT, REPLY_TOO_LONG; `detail` is a short
    Vietnamese sentence for the bot's owner."""

    code: FailureCode
    detail: str


@dataclass(frozen=True, slots=True)
class SandboxStatus:
    available: bool
    #: One line. When not available: exactly why (and what to install or allow);
    #: when available: what is in use (e.g. "bubblewrap 0.8.0, cgroup v1").
    reason: str


class BotBuilder(Protocol):
    async def build(
        self, source: Path, language: Language, into: Path, *, shown_as: str | None = None
    ) -> BuildResult:
        """Compile or check `source` (an upload of `language`) in the sandbox and, when
        it is good, put the artefact into the directory `into` (created if missing).
        The messages name the file `shown_as` (the name it was uploaded under) wherever
        the compiler names the file it compiled."""
        ...


class BotProcess(Protocol):
    """One running bot. Its stdout and stderr are read all the time in the background.

    - `ask` writes `line` plus a newline and waits at most `timeout_s` (wall clock,
      from the moment the line is written) for the reply line. A process failure that
      happens meanwhile is returned instead of a reply; so is one that happened before.
    - Output that is not the reply to an outstanding request (before the first request,
      after a reply and before the next one) is EXTRA_OUTPUT. Bytes that follow a
      reply in the same read are judged only after `ask` has handed that reply over,
      so the caller judges and applies the reply first.
    - `pending_failure()` is the first failure recorded, if any, whenever it happened
      (also one `ask` returned). `failure()` waits for it.
    - After `close()` has started, nothing the process does is a failure any more:
      `failure()` then never resolves (cancel the waiter), and an `ask` still waiting,
      or a later one, returns EXITED ("Tiến trình bot đã bị đóng.").
    - One request at a time (`ask` while another is outstanding raises RuntimeError);
      `line` must not contain a newline (ValueError).
    """

    def ask(self, line: str, timeout_s: float) -> Awaitable[Reply | ProcessFailure]:
        """Awaiting the result gives the answer. The pipes' adapter writes the line at
        once and returns a future (no task a turn); a coroutine writes it when first
        awaited. Cancelling the future gives the request up."""
        ...

    async def failure(self) -> ProcessFailure: ...

    def pending_failure(self) -> ProcessFailure | None: ...

    def stderr_tail(self) -> bytes: ...

    def on_stderr(self, listener: Callable[[bytes], None]) -> None:
        """Hand `listener` every byte the bot writes to stderr from now on, as it
        arrives, after what was already read (when none of it was dropped yet): the
        whole stderr, for an author's own machine."""
        ...

    async def close(self) -> None:
        """Close stdin, give the process 1 s to exit, then kill it and everything it
        started; release its resources (cgroups, staging files). Idempotent."""
        ...


class BotLauncher(Protocol):
    async def launch(self, artefact: Artefact) -> BotProcess | ProcessFailure:
        """Start one process of `artefact`; a START_FAILED failure when it cannot."""
        ...
