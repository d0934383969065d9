"""The ports that keep the arena's records (`records.py`) across restarts (spec B4, B5).

Metadata (owners, bots, matches) goes through `BotCatalogue` and `MatchArchive`, which
one SQL repository implements (SQLite by default, PostgreSQL for several instances);
files (sources, artefacts, replays) through `ArenaFiles`: a data directory by default,
or the arena's database with the data directory as a local cache (NOITU_ARENA_FILES,
spec B9). The metadata stores never read a clock themselves: every time is an argument.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Protocol

from noitu.application.arena.ports import Language
from noitu.application.arena.records import BotCursor, BotRecord, MatchCursor, MatchRecord
from noitu.application.arena.replay import MatchEvents
from noitu.application.arena.retention import Retention
from noitu.domain.arena.match import Result


class StorageError(Exception):
    """Base of the errors the stores raise on purpose."""


class AlreadyStored(StorageError):
    """A record with this id is stored already (ids are random: draw another)."""


class StorageUnavailable(StorageError):
    """The database cannot be reached or answered with an operational error."""


# --- metadata ports -------------------------------------------------------------------


class BotCatalogue(Protocol):
    """Owners, their bots and their upload events."""

    async def record_upload(self, owner: str, at_ms: int, *, window_ms: int, limit: int) -> bool:
        """Admit one upload of `owner` at `at_ms` when fewer than `limit` were admitted
        after `at_ms - window_ms`: store the event and say True; else store nothing and
        say False. Atomic across instances; creates the owner when new; forgets the
        owner's events that fell out of the window."""
        ...

    async def add_bot(self, bot: BotRecord, *, max_bots: int | None = None) -> bool:
        """Store a new bot (creating its owner when new). With `max_bots`, atomically
        refuse (False, nothing stored) when the owner has that many bots that built
        already. Raises AlreadyStored when the id is taken."""
        ...

    async def get_bot(self, bot_id: str) -> BotRecord | None: ...

    async def bots_of(self, owner: str) -> list[BotRecord]:
        """The owner's bots, newest first."""
        ...

    async def count_bots(self, owner: str) -> int:
        """How many of the owner's bots built (failed builds do not count)."""
        ...

    async def failed_builds(self, owner: str | None = None) -> list[BotRecord]:
        """The bots whose build failed (the owner's, or everyone's), newest first."""
        ...

    async def public_bots(self, limit: int, before: BotCursor | None = None) -> list[BotRecord]:
        """Public bots, newest first: at most `limit`, those after `before`."""
        ...

    async def set_public(self, bot_id: str, owner: str, public: bool) -> bool:
        """Publish or hide `owner`'s bot; False when it has no such bot."""
        ...

    async def delete_bot(self, bot_id: str, owner: str) -> bool:
        """Delete the row of `owner`'s bot (its files are the caller's); False when it
        has no such bot. Matches keep their seats (and the name they had)."""
        ...


class MatchArchive(Protocol):
    """Matches, live and finished."""

    async def add_match(self, match: MatchRecord) -> None:
        """Store a new match. Raises AlreadyStored when the id is taken."""
        ...

    async def start_match(self, match_id: str, started_ms: int) -> bool:
        """Record when play started; False unless the match is live (and not started)."""
        ...

    async def finish_match(
        self,
        match_id: str,
        result: Result,
        finished_ms: int,
        replay: str | None,
        stderr: tuple[bytes, bytes] = (b"", b""),
    ) -> bool:
        """Finish a live match with its result, its replay and the last bytes each bot
        wrote to stderr (P1, P2; at most `STDERR_TAIL_BYTES` each are kept), all in one
        write; False when it is not live (unknown, or already finished or abandoned: the
        first ending stands, and its stderr)."""
        ...

    async def match_stderr(self, match_id: str) -> tuple[bytes, bytes] | None:
        """The stderr tails stored with the match (P1, P2; empty for a person, a
        built-in bot, or a match finished without them); None for an unknown match."""
        ...

    async def get_match(self, match_id: str) -> MatchRecord | None: ...

    async def live_matches(self) -> list[MatchRecord]:
        """Live matches, oldest first."""
        ...

    async def finished_matches(
        self,
        limit: int,
        before: MatchCursor | None = None,
        *,
        bot: str | None = None,
        ladder: bool = False,
    ) -> list[MatchRecord]:
        """Finished matches newest first (finishing time, then id, both descending): at
        most `limit`, those after `before`; with `bot`, only those a seat of which is
        that bot (an uploaded bot's id or a built-in's name, never a person); with
        `ladder`, only ladder matches."""
        ...

    async def abandon_live(self, now_ms: int, runner: str | None = None) -> int:
        """At start-up: finish every live match (only `runner`'s, when given) as
        ABANDONED at `now_ms` (no winner, 0 turns, no replay); how many were."""
        ...

    async def replays_due(
        self, retention: Retention, now_ms: int, limit: int
    ) -> list[MatchRecord]:
        """The finished matches whose replay the retention rule deletes at `now_ms`
        (`retention.replays_due`'s rule and order, oldest first), at most `limit`."""
        ...

    async def mark_replay_deleted(self, match_id: str, at_ms: int) -> bool:
        """The match's replay and stderr tails are gone (B14): its `replay` becomes None,
        its tails empty, `replay_deleted_ms` `at_ms`; result, seats and the rest stay.
        False (nothing changed) unless it is finished with a replay kept."""
        ...


class Lease(Protocol):
    """One holder at a time across every process of a deployment (a row in the arena's
    database). A holder that dies loses it after `ttl_ms`; asking again while holding it
    extends it."""

    async def acquire(self, holder: str, now_ms: int, ttl_ms: int) -> bool: ...

    async def release(self, holder: str) -> None: ...


# --- files ----------------------------------------------------------------------------


class ReplayWriter(MatchEvents, Protocol):
    """A replay being written as the match happens (to a local file: events are recorded
    synchronously); nobody sees it before `finish`."""

    async def finish(self) -> str:
        """Store the whole replay; its name in the files store. Raises OSError or
        StorageError when it could not be stored (then `discard` it)."""
        ...

    def discard(self) -> None: ...


class ArenaFiles(Protocol):
    """Sources, artefacts and replays. Every write is atomic (a reader sees the old
    version or the new one, never half of one); names are made from ids checked against
    their patterns (ValueError otherwise), never from an upload. Names handed back are
    relative to the store and are what the records keep.

    What a bot is built from and launched from must be a local path: `local_source` and
    `local_artefact` hand one back, fetching the file into this machine's cache first
    when the store keeps it elsewhere (a database). Such paths are read-only to callers.
    """

    async def put_source(self, bot_id: str, language: Language, data: bytes) -> str: ...

    async def read_source(self, name: str) -> bytes:
        """The source's bytes (FileNotFoundError when it is not there)."""
        ...

    async def local_source(self, name: str) -> Path:
        """The source as a local file, to build from (FileNotFoundError when it is not
        there)."""
        ...

    def scratch(self) -> AbstractAsyncContextManager[Path]:
        """A fresh empty local directory (beside the store's own files, so `put_artefact`
        is a rename), removed with whatever is left in it on exit. Build artefacts here."""
        ...

    async def put_artefact(self, bot_id: str, directory: Path) -> str:
        """Move (or copy, across file systems) the artefact `directory` into the store,
        replacing the bot's previous artefact. Only regular files and directories are
        taken (ValueError for a symlink or anything else)."""
        ...

    async def local_artefact(self, name: str) -> Path:
        """The artefact as a local directory, to launch the bot from: the stored
        version, fetched into the cache when this machine has not got it.
        FileNotFoundError when the store has no such artefact (a data directory
        restored without its artefacts, say: they are rebuilt before play)."""
        ...

    def replay_writer(self, match_id: str) -> ReplayWriter: ...

    async def read_replay(self, name: str) -> bytes:
        """A finished replay's JSON Lines (FileNotFoundError when it is not there)."""
        ...

    async def read_replay_zstd(self, name: str) -> bytes | None:
        """The replay as stored, one zstd frame of its JSON Lines (spec B14), for a
        client that takes it so; None for a replay stored plain (before B14)."""
        ...

    async def delete_replay(self, name: str) -> int:
        """Delete a finished replay (a name the archive kept); the bytes it took in the
        store, 0 when it was not there (deleting twice is no error)."""
        ...

    async def delete_bot_files(self, bot_id: str) -> None:
        """Remove the bot's source and artefact (nothing happens when there are none)."""
        ...

    async def stored_bot_ids(self) -> set[str]:
        """Ids of the bots that have files (to find files a crash left without a row)."""
        ...

    async def bot_files_modified_ms(self, bot_id: str) -> int | None:
        """When the bot's files last changed (the wall clock's milliseconds), or None
        when it has none."""
        ...

    async def sweep(self, max_age_s: float = 3600.0) -> int:
        """Remove temporary files, scratch directories, half-deleted bots and stale
        cached copies older than `max_age_s` (what a crash or another machine's change
        left behind); how many were removed."""
        ...
