"""The job queue port (spec B9): work a web process hands over, and who runs it.

A job has a kind, a payload and a result (msgspec structs, or a frozen dataclass of the
domain such as a room's card, so that any queue can carry
them as JSON), and terms: how long it may run once taken, and how long its runner may
stay silent before it is taken for dead. Two sides, each its own Protocol:

- `Jobs`, the side that submits a job and waits for its result. A job that no runner
  takes within the queue's take-within time is `JobNotTaken`; one that was taken but
  ran past its timeout, or whose runner went silent, is `JobLost`; one whose handler
  raised is `JobFailed`. Cancelling the waiting aborts the job (a runner that holds it
  cancels its handler).
- `JobRunner`, the side that runs them: a handler per kind, and `run()` taking jobs,
  at most its slots of each kind at once (each kind has its own: B14, waiting matches
  never delay a build, nor builds a match), until it is cancelled.

Jobs of a kind are taken in the fair order of B10 (`fair_order.py`): each comes with
its place in line (`InLine`: who it counts for, and for a room's match what kind of
match and, as its card says, its rank and arrival).

Builds of uploads (`BUILD_JOB`) and matches (`MATCH_JOB`: the card of the room it is
played in, a person's room or a ladder match's, played by `PlayMatch`) are the kinds.

Payloads and results name things (a bot id, a file's name in `ArenaFiles`), never a
path or bytes: the runner may be on another machine with its own store.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Generic, Protocol, TypeVar

import msgspec

from noitu.application.arena.ports import BuildLimit, Language
from noitu.domain.arena.match import Result
from noitu.domain.arena.room import Room

#: A build's own wall-clock limit (B2: 60 s), as the sandbox's builder enforces it.
BUILD_WALL_S = 60.0
#: What a build job may take beyond the compile: reading the source, storing the
#: artefact, the sandbox's set-up and clean-up.
BUILD_MARGIN_S = 15.0
#: How long a job may wait for a runner to take it (B9: 30 s), unless configured.
TAKE_WITHIN_S = 30.0


class JobKind(StrEnum):
    BUILD = "build"
    MATCH = "match"


P = TypeVar("P")
R = TypeVar("R", bound=msgspec.Struct)


class InLine(msgspec.Struct, frozen=True, kw_only=True):
    """Where a job stands in its kind's fair order (`fair_order.py`): its tags (who it
    counts for, `fair_order.who`), whether it is a spectacle or a ladder match, and
    its rank and arrival (ms) when its submitter knows them (a room's match: its card
    keeps them); None: the queue ranks it among its own jobs of the kind running or
    waiting as it arrives, and it arrives then."""

    tags: frozenset[str] = frozenset()
    spectacle: bool = False
    ladder: bool = False
    rank: int | None = None
    arrival_ms: int | None = None


#: A job nobody in particular asked for: rank 0, in the order jobs come.
NOBODY = InLine()


@dataclass(frozen=True, slots=True)
class JobType(Generic[P, R]):
    """What a kind of job carries and the terms it runs on."""

    kind: JobKind
    payload: type[P]
    result: type[R]
    #: How long a job may run once a runner took it (seconds).
    timeout_s: float
    #: A runner silent this long while it holds a job is taken for dead (seconds).
    heartbeat_s: float
    #: How long a job may wait for a runner before it is withdrawn (seconds); None:
    #: the queue's own take-within time.
    take_within_s: float | None = None


class BuildJob(msgspec.Struct, frozen=True, kw_only=True):
    """Build an upload: its source is already in the files store under `source`."""

    bot_id: str
    language: Language
    source: str
    #: The name the compiler's messages give the file (the uploaded one).
    shown_as: str


class BuildVerdict(msgspec.Struct, frozen=True, kw_only=True):
    """What came of a build: the artefact's name in the files store when it built."""

    ok: bool
    artefact: str | None
    #: The compiler's or checker's text for the bot's owner (capped), or our refusal.
    messages: str
    limit: BuildLimit | None = None
    #: The files store had no room left for the artefact (the upload is refused).
    store_full: bool = False


BUILD_JOB: JobType[BuildJob, BuildVerdict] = JobType(
    JobKind.BUILD,
    BuildJob,
    BuildVerdict,
    timeout_s=BUILD_WALL_S + BUILD_MARGIN_S,
    heartbeat_s=15.0,
)


class MatchOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """What came of a match job: its id once made (None when its room closed, or
    another worker held it, before the match was made), its result once archived,
    and when it ended (ms)."""

    match_id: str | None
    result: Result | None = None
    ended_ms: int | None = None


#: How long a match waits for a worker before its room is abandoned (30 minutes, as
#: a waiting room).
MATCH_TAKE_WITHIN_S = 30 * 60.0
#: The longest a match may run once taken: placement, then 200 turns of which a
#: person's half may each take their 60 s (far more than any real match).
MATCH_TIMEOUT_S = 4 * 3600.0
#: The queue takes a match job whose worker was silent this long for lost. Longer than
#: the 30 s within which the room board's own beats have every process abandon a dead
#: worker's matches (B9), and than a Redis outage that must abandon nothing: a queue's
#: sweep after an outage of 15 s would otherwise cut matches that were fine.
MATCH_HEARTBEAT_S = 60.0

MATCH_JOB: JobType[Room, MatchOutcome] = JobType(
    JobKind.MATCH,
    Room,
    MatchOutcome,
    timeout_s=MATCH_TIMEOUT_S,
    heartbeat_s=MATCH_HEARTBEAT_S,
    # A match waits for a worker as long as a waiting room is kept (B9: in PLACEMENT,
    # its place in the queue shown), not the 30 s of a build.
    take_within_s=MATCH_TAKE_WITHIN_S,
)


@dataclass(frozen=True, slots=True)
class Finished(Generic[R]):
    result: R
    #: How long the job waited for a runner to take it (ms).
    waited_ms: int


class JobError(Exception):
    """A job that gave no result; the message says why (for the log, not a player)."""


class JobNotTaken(JobError):
    """No runner took the job in time; it was withdrawn."""


class JobLost(JobError):
    """The job was taken, then ran past its timeout or its runner went silent."""


class JobFailed(JobError):
    """The job's handler raised."""


class Jobs(Protocol):
    """The side that submits jobs and waits for their results."""

    async def submit(
        self, job_type: JobType[P, R], payload: P, line: InLine = NOBODY
    ) -> Finished[R]:
        """Hand the job over, to be taken at its place in `line`, and wait for its
        result. Raises `JobNotTaken`, `JobLost` or `JobFailed` (see the module's
        docstring); cancelling the call aborts it."""
        ...

    async def enqueue(
        self, job_type: JobType[P, R], payload: P, key: str, line: InLine = NOBODY
    ) -> None:
        """Hand the job over, to be taken at its place in `line`, and return at once:
        its outcome is its runner's to record (a match's, on its room's card and in the
        archive). A job of the same `key` not finished yet is not handed over twice.
        Raises `JobError` when the queue cannot be reached."""
        ...


class JobRunner(Protocol):
    """The side that takes jobs and runs them."""

    def handle(self, job_type: JobType[P, R], handler: Callable[[P], Awaitable[R]]) -> None:
        """Run the jobs of `job_type`'s kind with `handler` from now on."""
        ...

    async def run(self) -> None:
        """Take jobs and run them, at most this runner's slots of each kind at once,
        until cancelled; then take no more, let those running end within their timeout
        (or hand them back to the queue), and return."""
        ...
