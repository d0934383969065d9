"""What the arena keeps across restarts (spec B4, B5): the records, plain frozen values
the stores keep and hand back, and the rules for the ids and names in them. Times are
milliseconds since the epoch that the caller reads from its `Clock`.

Identity (B5): an owner is a browser's owner key — 128 random bits as 32 hex digits,
made on the first upload and kept by the page. Only its SHA-256 (`owner_hash`) is ever
stored or compared; the key itself never reaches a store or a log.

Names never come from an upload: bot ids are random (`new_bot_id`), match ids are
8 upper-case hex digits, and every path in the files store is built by the adapter from
ids checked against `BOT_ID_PATTERN` / `MATCH_ID_PATTERN`. The upload's file name gives
only the display name, cleaned by `bot_display_name`.
"""

from __future__ import annotations

import hashlib
import random
import re
import unicodedata
from dataclasses import dataclass
from enum import StrEnum

from noitu.application.arena.ports import STDERR_TAIL_BYTES, Language
from noitu.application.arena.replay import SeatKind
from noitu.domain.arena.match import Result
from noitu.domain.arena.room import ROOM_CODE_LENGTH, RoomSeat

#: An owner key as the page sends it: 128 bits, 32 lower-case hex digits.
OWNER_KEY_PATTERN = re.compile(r"[0-9a-f]{32}")
#: What is stored of it: SHA-256, 64 lower-case hex digits.
OWNER_HASH_PATTERN = re.compile(r"[0-9a-f]{64}")
#: A bot id: 16 characters of [0-9a-z] (about 83 random bits): URL- and path-safe.
BOT_ID_PATTERN = re.compile(r"[0-9a-z]{16}")
BOT_ID_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
BOT_ID_LENGTH = 16
#: A match id, like the CLI's: 8 upper-case hex digits.
MATCH_ID_PATTERN = re.compile(r"[0-9A-F]{8}")
#: A bot's display name, in code points.
MAX_BOT_NAME = 40
#: A seat's reference (bot id, built-in name, person's display name) and display name.
MAX_SEAT_TEXT = 64
DEFAULT_BOT_NAME = "bot"
#: Seeds are stored as signed 64-bit integers.
MAX_SEED = 2**63 - 1


def new_owner_key(rng: random.Random) -> str:
    """A fresh owner key (give the page this; store only `owner_hash` of it)."""
    return f"{rng.getrandbits(128):032x}"


def is_owner_key(key: str) -> bool:
    return OWNER_KEY_PATTERN.fullmatch(key) is not None


def owner_hash(key: str) -> str:
    """The stored form of an owner key. Raises ValueError for a malformed key."""
    if not is_owner_key(key):
        raise ValueError("an owner key is 32 lower-case hex digits")
    return hashlib.sha256(key.encode("ascii")).hexdigest()


def new_bot_id(rng: random.Random) -> str:
    return "".join(rng.choice(BOT_ID_ALPHABET) for _ in range(BOT_ID_LENGTH))


def is_bot_id(text: str) -> bool:
    return BOT_ID_PATTERN.fullmatch(text) is not None


def is_match_id(text: str) -> bool:
    return MATCH_ID_PATTERN.fullmatch(text) is not None


_NAME_PUNCTUATION = frozenset(" -_.()+#")


def bot_display_name(raw: str) -> str:
    """A display name from an upload's file stem or from what the owner typed.

    NFC (so Vietnamese letters are single code points), letters of any script, their
    combining marks, digits and ` -_.()+#` kept, any other character a space; runs of
    spaces collapsed; trimmed to 40 code points; `bot` when nothing is left.
    """
    text = unicodedata.normalize("NFC", raw)
    kept = []
    for char in text:
        category = unicodedata.category(char)
        if category[0] in ("L", "N") or category in ("Mn", "Mc") or char in _NAME_PUNCTUATION:
            kept.append(char)
        else:
            kept.append(" ")
    name = " ".join("".join(kept).split())
    # A leading combining mark has nothing to sit on.
    while name and unicodedata.category(name[0]) in ("Mn", "Mc"):
        name = name[1:].lstrip()
    name = name[:MAX_BOT_NAME].rstrip()
    return name or DEFAULT_BOT_NAME


def kept_stderr(tail: bytes) -> bytes:
    """What a store keeps of a bot's stderr: its last `STDERR_TAIL_BYTES`."""
    return bytes(tail[-STDERR_TAIL_BYTES:])


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


class BuildStatus(StrEnum):
    OK = "ok"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class BotRecord:
    """An uploaded bot. `build_messages` (the compiler's or checker's text) and the
    source are for the owner only. `source_file` and `artefact_dir` are names inside the
    files store, as `ArenaFiles` gave them back; `artefact_dir` is None when the build
    failed."""

    id: str
    owner: str  # the owner key's hash
    name: str
    language: Language
    public: bool
    created_ms: int
    source_bytes: int
    build: BuildStatus
    build_messages: str
    source_file: str
    artefact_dir: str | None

    def __post_init__(self) -> None:
        _require(is_bot_id(self.id), f"bad bot id {self.id!r}")
        _require(OWNER_HASH_PATTERN.fullmatch(self.owner) is not None, "bad owner hash")
        _require(0 < len(self.name) <= MAX_BOT_NAME, "a bot name has 1 to 40 characters")
        _require(self.source_bytes >= 0, "negative source size")

    @property
    def cursor(self) -> BotCursor:
        return BotCursor(self.created_ms, self.id)


@dataclass(frozen=True, slots=True)
class BotCursor:
    """Where a page of bots (newest first) stopped: pass it as `before`."""

    created_ms: int
    bot_id: str


@dataclass(frozen=True, slots=True)
class Seat:
    """Who sat on a side of a match.

    `ref` is the bot's id (upload), the built-in bot's name (builtin: random, tactical,
    strong) or the person's display name (person); `name` is the display name at the
    time of the match (history still reads well after the bot is deleted); `owner` is
    the owner key's hash for an upload (the bot's owner) or a person (the person's own
    key), and None for a built-in bot.
    """

    kind: SeatKind
    ref: str
    name: str
    owner: str | None = None

    def __post_init__(self) -> None:
        _require(0 < len(self.ref) <= MAX_SEAT_TEXT, "a seat's ref has 1 to 64 characters")
        _require(0 < len(self.name) <= MAX_SEAT_TEXT, "a seat's name has 1 to 64 characters")
        if self.owner is not None:
            _require(OWNER_HASH_PATTERN.fullmatch(self.owner) is not None, "bad owner hash")
        _require(
            (self.owner is None) == (self.kind is SeatKind.BUILTIN),
            "uploads and persons have an owner, built-in bots none",
        )
        if self.kind is SeatKind.UPLOAD:
            _require(is_bot_id(self.ref), "an upload's ref is its bot id")

    @classmethod
    def held(cls, seat: RoomSeat) -> Seat:
        """The archive's seat of a room's seat (who put it there is not kept)."""
        return cls(seat.kind, seat.ref, seat.name, seat.owner)


class MatchStatus(StrEnum):
    LIVE = "live"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A match, live or finished. `result` and `finished_ms` are set exactly when it is
    finished; `replay` is the replay's name in the files store (None while live, for a
    match abandoned on restart, and once the retention sweep deleted it, spec B14).
    `runner` names the server instance that runs it ("" when there is only one)."""

    id: str
    room: str
    seed: int
    turn_limit: int
    created_ms: int
    p1: Seat
    p2: Seat
    status: MatchStatus = MatchStatus.LIVE
    started_ms: int | None = None
    finished_ms: int | None = None
    result: Result | None = None
    replay: str | None = None
    runner: str = ""
    #: A ladder match (spec B8): made by the server between two ranked bots.
    ladder: bool = False
    #: When the retention sweep deleted its replay and stderr tails (B14); None while
    #: they are kept, and for a match that never had a replay.
    replay_deleted_ms: int | None = None

    def __post_init__(self) -> None:
        _require(is_match_id(self.id), f"bad match id {self.id!r}")
        _require(len(self.room) == ROOM_CODE_LENGTH, "a room code has 6 characters")
        _require(0 <= self.seed <= MAX_SEED, "a seed is from 0 to 2**63 - 1")
        _require(self.turn_limit >= 1, "the turn limit is at least 1")
        _require(len(self.runner) <= MAX_SEAT_TEXT, "a runner's name has at most 64 characters")
        finished = self.status is MatchStatus.FINISHED
        _require(
            finished == (self.result is not None) == (self.finished_ms is not None),
            "a finished match has a result and a finishing time; a live one neither",
        )
        if self.replay_deleted_ms is not None:
            _require(finished and self.replay is None, "only a finished match's replay goes")

    @property
    def replay_deleted(self) -> bool:
        """Its replay was kept, then deleted by the retention sweep ("bản ghi đã xoá")."""
        return self.replay_deleted_ms is not None

    @property
    def seats(self) -> tuple[Seat, Seat]:
        return (self.p1, self.p2)

    @property
    def cursor(self) -> MatchCursor:
        """Where a page of finished matches (newest first) stops at this one."""
        assert self.finished_ms is not None, "only a finished match is paged"
        return MatchCursor(self.finished_ms, self.id)


@dataclass(frozen=True, slots=True, order=True)
class MatchCursor:
    """Where a page of finished matches (newest first) stopped: pass it as `before`."""

    finished_ms: int
    match_id: str


def plays(seat: Seat, bot: str) -> bool:
    """Whether `seat` is the bot `bot` (an uploaded bot's id or a built-in's name); a
    person is never a bot, whatever name they chose."""
    return seat.kind is not SeatKind.PERSON and seat.ref == bot
