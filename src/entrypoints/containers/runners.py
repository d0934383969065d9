"""What runs the arena's bots in this process, chosen once, when the sandbox probe has
run: the sandbox's launcher and builder when the probe found one, else the direct ones
(trusted code only: the built-in bots, and the CLI's `--no-sandbox`).

The sandbox's Resource (`resources.open_runners`) makes the choice and hands it to
`ChosenRunners`, a plain Singleton the providers that run or build bots read: an async
Resource cannot be their dependency (they would answer Futures). Before the Resource
opened, reading it fails with `RunnersNotChosen`, so nothing built too early can run a
bot on a guess, sandboxed or not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from noitu.adapters.arena.bubblewrap import BubblewrapLauncher, BubblewrapProbe
from noitu.adapters.arena.build import DirectBuilder, SandboxBuilder
from noitu.adapters.arena.cgroups.mounts import find_cgroups
from noitu.adapters.arena.cgroups.tree import CgroupError
from noitu.adapters.arena.direct import DirectLauncher

if TYPE_CHECKING:
    from noitu.adapters.arena.cgroups.tree import CgroupTree
    from noitu.application.arena.ports import BotBuilder, BotLauncher, SandboxStatus

#: How a process runs bots: probe for the sandbox and use it when found; run directly
#: (no probe: the CLI's --no-sandbox, or a web instance whose bots run on the workers);
#: or not at all (the arena is off here).
RunnerChoice = Literal["probe", "direct", "off"]


class RunnersNotChosen(RuntimeError):
    """A bot's launcher or builder was asked for before the sandbox's Resource opened."""


@dataclass(frozen=True, slots=True)
class BotRunners:
    """What runs bots, as the probe left it."""

    #: "sandbox" (bubblewrap + cgroups) or "direct" (trusted code only).
    kind: Literal["sandbox", "direct"]
    #: What the probe found; None when it was not run.
    status: SandboxStatus | None
    launcher: BotLauncher
    builder: BotBuilder
    #: What builds uploads: only the sandbox's builder; None without a sandbox (uploads
    #: are refused).
    uploads: BotBuilder | None
    #: The sandbox's cgroups, whose empty leftovers a start-up sweeps; None directly.
    cgroups: CgroupTree | None


class ChosenRunners:
    """The runners the sandbox's Resource chose, read by the providers that need them."""

    def __init__(self) -> None:
        self._runners: BotRunners | None = None

    def choose(self, runners: BotRunners) -> None:
        self._runners = runners

    @property
    def runners(self) -> BotRunners:
        if self._runners is None:
            raise RunnersNotChosen(
                "what runs the arena's bots is chosen when the sandbox's Resource opens"
                " (container.arena_sandbox_resource.init(), or init_resources()); it has"
                " not opened, or the arena is off in this process"
            )
        return self._runners


def direct_cgroups() -> CgroupTree | None:
    """Cgroups for bots run without bubblewrap (trusted code), when the host allows."""
    try:
        return find_cgroups()
    except CgroupError:
        return None


def runners_for(probe: BubblewrapProbe, found: SandboxStatus | None) -> BotRunners:
    """The sandbox's runners when the probe found one; the direct ones otherwise."""
    if found is not None and found.available:
        sandbox = probe.make_sandbox()
        builder = SandboxBuilder(sandbox)
        return BotRunners(
            "sandbox", found, BubblewrapLauncher(sandbox), builder, builder, sandbox.cgroups
        )
    launcher = DirectLauncher(cgroups=direct_cgroups())
    return BotRunners("direct", found, launcher, DirectBuilder(), None, None)
