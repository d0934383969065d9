"""RecoverAtStart: put right, once at start-up, what a previous run of the server left.

A server that stopped without its shutdown (killed, crashed, a power cut) leaves
matches marked live that nobody plays any more, ladder pairings its driver was playing
(their bots busy until the lost-pairing rule's half hour), temporary files, the files
of an upload whose database row was never written, failed builds past their day, and
its bots' empty cgroups. Each is finished or removed here, and the result says how many.
"""

from __future__ import annotations

from typing import Protocol

import msgspec

from noitu.application.ports import Clock

#: On a database several instances share, a bot's files younger than this may be
#: another instance's upload in flight (a build takes at most a minute): kept.
ORPHAN_MIN_AGE_MS = 600_000


class LiveMatches(Protocol):
    async def abandon_live(self, now_ms: int, runner: str | None = None) -> int:
        """Finish every live match (only `runner`'s, when given) as ABANDONED; how many."""
        ...


class LivePairings(Protocol):
    async def end_live(self, instance: str | None) -> int:
        """Drop every live ladder pairing `instance` plays (every one for None), its
        bots free at once; how many."""
        ...


class KnownBots(Protocol):
    async def get_bot(self, bot_id: str) -> object | None:
        """The bot's row, or None when the database does not know it."""
        ...


class LeftFiles(Protocol):
    async def sweep(self) -> int:
        """Remove the temporary files a crash left; how many."""
        ...

    async def stored_bot_ids(self) -> set[str]: ...

    async def bot_files_modified_ms(self, bot_id: str) -> int | None:
        """When the bot's files last changed (the wall clock's milliseconds), or None
        when it has none."""
        ...

    async def delete_bot_files(self, bot_id: str) -> None: ...


class EmptyCgroups(Protocol):
    def remove_empty(self) -> int:
        """Remove the bots' cgroups that hold no process; how many."""
        ...


class FailedBuildSweep(Protocol):
    async def __call__(self) -> int:
        """Remove every owner's failed builds past their time; how many."""
        ...


class Recovered(msgspec.Struct, frozen=True):
    """What the start-up put right, each a count."""

    abandoned: int  # live matches finished as ABANDONED
    pairings: int  # live ladder pairings dropped, their bots free again
    swept: int  # temporary files and half-deleted bots removed
    orphans: int  # bots whose files had no database row, their files removed
    failed_builds: int
    stale_cgroups: int


class RecoverAtStart:
    """`runner`: whose live matches and ladder pairings to end (None: every one, as when
    this server is the database's only user). `orphan_min_age_ms`: files younger than
    this are kept, since on a shared database they may be another instance's upload in
    flight."""

    def __init__(
        self,
        matches: LiveMatches,
        pairings: LivePairings,
        bots: KnownBots,
        files: LeftFiles,
        failed_builds: FailedBuildSweep,
        cgroups: EmptyCgroups | None,
        clock: Clock,
        *,
        runner: str | None,
        orphan_min_age_ms: int,
    ) -> None:
        self._matches = matches
        self._pairings = pairings
        self._bots = bots
        self._files = files
        self._failed_builds = failed_builds
        self._cgroups = cgroups
        self._clock = clock
        self._runner = runner
        self._orphan_min_age_ms = orphan_min_age_ms

    async def __call__(self) -> Recovered:
        abandoned = await self._matches.abandon_live(self._clock.now_ms(), runner=self._runner)
        # After the matches: a pairing dropped is scheduled again only once its driver
        # runs, which is after this start-up.
        pairings = await self._pairings.end_live(self._runner)
        swept = await self._files.sweep()
        failed_builds = await self._failed_builds()
        stale_cgroups = self._cgroups.remove_empty() if self._cgroups is not None else 0
        orphans = await self._remove_orphans()
        return Recovered(abandoned, pairings, swept, orphans, failed_builds, stale_cgroups)

    async def _remove_orphans(self) -> int:
        removed = 0
        for bot_id in sorted(await self._files.stored_bot_ids()):
            if await self._bots.get_bot(bot_id) is not None:
                continue
            if self._orphan_min_age_ms > 0:
                modified = await self._files.bot_files_modified_ms(bot_id)
                if modified is None:  # gone meanwhile
                    continue
                if self._clock.now_ms() - modified < self._orphan_min_age_ms:
                    continue
            await self._files.delete_bot_files(bot_id)
            removed += 1
        return removed
