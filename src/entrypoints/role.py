"""A process's role: what it was started as, given to the container when it is built.

The settings say how the environment is (stores, queues, limits); the role says which
process this is, and the entry point that starts the process is the only one that
knows it:

- `web` (`noitu serve`, and what the tests build by default): serves both games;
- `worker` (`noitu arena worker`): runs the arena's jobs, `matches` at once;
- `cli` (`noitu arena match/check/ladder`, `noitu token`, `noitu words`): one command
  of an operator or an author, the arena's bots run without the sandbox when the
  author asked for it (`--no-sandbox`, the author's own files only).

The container reads the role (`Container(settings=..., role=...)`) where the process's
kind changes what it composes: which periodic tasks run, whether the sandbox is probed,
how many matches run at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

RoleKind = Literal["web", "worker", "cli"]


@dataclass(frozen=True, slots=True)
class Role:
    kind: RoleKind
    #: A worker's matches at once (B9); 0 for the other roles (the match queue's
    #: default for this machine's cores).
    matches: int = 0
    #: The CLI's `--no-sandbox`: trusted code (the author's own files) runs directly,
    #: and the sandbox is not even probed.
    no_sandbox: bool = False

    def __post_init__(self) -> None:
        if self.kind not in ("web", "worker", "cli"):
            raise ValueError(f"unknown process role {self.kind!r}")
        if (self.kind == "worker") != (self.matches > 0):
            raise ValueError("a worker, and only a worker, plays a number of matches at once")
        if self.no_sandbox and self.kind != "cli":
            raise ValueError("only a CLI command may run bots without the sandbox")

    @classmethod
    def worker(cls, matches: int) -> Role:
        return cls("worker", matches=matches)

    @classmethod
    def cli(cls, *, no_sandbox: bool = False) -> Role:
        return cls("cli", no_sandbox=no_sandbox)


#: `noitu serve`'s role.
WEB = Role("web")
