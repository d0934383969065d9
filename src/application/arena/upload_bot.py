"""Upload a bot (spec B2, B5): check it, store it, build it, keep what came of it.

In this order, cheapest refusal first: the sandbox can build uploads at all; the owner
key (none: a fresh one is made and handed back); the file's language, by its name's
extension; its size; its content fits the language (UTF-8 text without NUL bytes for a
source, a zip archive for a JAR); the owner's stored bots; the client address's new
owner keys (when one is made) and uploads in the last minute (spec B10: limits that
hold whatever keys are sent); the owner's uploads in the last minute (the upload is
counted from here on, built or not). Then the source is stored (atomically) and built
as a job (`jobs.BUILD_JOB`, run by `RunBuild`: in the sandbox, the artefact moved into
the store) on the build queue, in B10's fair order by its owner and address — in this
process once the global `BuildQueue` gives it a turn by default, by a `noitu arena
worker` with NOITU_ARENA_QUEUE=saq; the answer says
how long it waited, and a build no one takes in time is `busy` —, and the record
added, refusing atomically once the owner has `MAX_BOTS_PER_OWNER` bots that built.

A failed build is stored as a bot whose build failed, with the compiler's messages
(naming the file as it was uploaded), so its owner sees them next to the bot (and may
fix and upload again, or delete it); such a bot has no artefact and can be neither
seated nor published. It does not count toward the owner's bots and is removed after
a day (`SweepFailedBuilds`, run for the owner at each upload). A refusal or an
exception after the first write deletes every file of the new bot before it propagates:
nothing half-stored is left (and whatever a crash leaves without a record is removed at
the next start).
"""

from __future__ import annotations

import io
import random
import unicodedata
import zipfile
from dataclasses import dataclass
from pathlib import PurePosixPath

from noitu.application.arena.admission import AddressAction, Admission
from noitu.application.arena.bot_info import BotInfo, info_of
from noitu.application.arena.errors import (
    BadFile,
    BadOwnerKey,
    BadRequest,
    BuildUnavailable,
    Busy,
    FileTooLarge,
    StorageFull,
    TooManyBots,
    TooManyUploads,
    UnsupportedFile,
    UploadsUnavailable,
)
from noitu.application.arena.fair_order import who
from noitu.application.arena.jobs import (
    BUILD_JOB,
    BuildJob,
    InLine,
    JobError,
    JobFailed,
    Jobs,
)
from noitu.application.arena.languages import LANGUAGE_BY_SUFFIX
from noitu.application.arena.limits import (
    MAX_BOTS_PER_OWNER,
    MAX_TYPED_NAME,
    UPLOAD_WINDOW_MS,
    UPLOADS_PER_WINDOW,
    max_upload_bytes,
)
from noitu.application.arena.ports import Language
from noitu.application.arena.records import (
    BotRecord,
    BuildStatus,
    bot_display_name,
    is_owner_key,
    new_bot_id,
    new_owner_key,
    owner_hash,
)
from noitu.application.arena.storage import ArenaFiles, BotCatalogue
from noitu.application.arena.sweep_failed_builds import SweepFailedBuilds
from noitu.application.ports import Clock

#: Tries at a bot id nobody has before giving up (83 random bits: one is plenty).
ID_TRIES = 4
#: The uploaded file's name in compiler messages, at most (code points).
MAX_SHOWN_FILE_NAME = 100
#: A build no one took in time, or whose runner was lost (503 `busy`).
BUILDS_BUSY = "Máy chủ đang bận biên dịch các bot khác. Bạn thử lại sau ít phút nhé."


@dataclass(frozen=True, slots=True)
class UploadBotCommand:
    file_name: str
    data: bytes
    #: What the owner typed as the bot's name; the file's stem when None or blank.
    name: str | None = None
    #: The owner key the page keeps; None on a first upload.
    owner_key: str | None = None
    #: The client's address (B10); "": not a network client, not limited by address.
    address: str = ""


@dataclass(frozen=True, slots=True)
class UploadBotResult:
    bot: BotInfo
    #: The key the bot belongs to: the one sent, or the one just made.
    owner_key: str
    new_owner: bool
    #: How long the build waited for its turn in the global build queue (ms).
    build_wait_ms: int = 0

    @property
    def compiled(self) -> bool:
        return self.bot.build is BuildStatus.OK


def language_of(file_name: str) -> Language:
    suffix = PurePosixPath(_base_name(file_name)).suffix.lower()
    language = LANGUAGE_BY_SUFFIX.get(suffix)
    if language is None:
        raise UnsupportedFile()
    return language


def _base_name(file_name: str) -> str:
    """The last part of a name a browser may send with a directory (either slash)."""
    return file_name.replace("\\", "/").rsplit("/", 1)[-1]


def uploaded_file_name(file_name: str) -> str:
    """The upload's file name as the compiler's messages show it: its last part,
    without control characters, at most `MAX_SHOWN_FILE_NAME` code points (the end,
    which has the extension, is kept)."""
    base = "".join(c for c in _base_name(file_name) if unicodedata.category(c)[0] != "C")
    return base.strip()[-MAX_SHOWN_FILE_NAME:]


def check_content(language: Language, data: bytes) -> None:
    if len(data) > max_upload_bytes(language):
        raise FileTooLarge()
    if not data:
        raise BadFile("Tệp trống: không có gì để chạy.")
    if language is Language.JAR:
        if not data.startswith(b"PK") or not zipfile.is_zipfile(io.BytesIO(data)):
            raise BadFile("Tệp .jar phải là một tệp zip (tệp JAR của Java).")
        return
    if b"\x00" in data:
        raise BadFile("Tệp mã nguồn phải là văn bản, không chứa byte 0.")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        raise BadFile("Tệp mã nguồn phải được lưu bằng mã UTF-8.") from None


def display_name(command: UploadBotCommand) -> str:
    typed = (command.name or "").strip()
    if len(typed) > MAX_TYPED_NAME:
        raise BadRequest("Tên bot quá dài.")
    if typed:
        return bot_display_name(typed)
    return bot_display_name(PurePosixPath(_base_name(command.file_name)).stem)


class UploadBot:
    def __init__(
        self,
        catalogue: BotCatalogue,
        files: ArenaFiles,
        builds: Jobs | None,
        clock: Clock,
        rng: random.Random,
        admission: Admission | None = None,
    ) -> None:
        """`builds` takes the build jobs (the global cap on builds at once is its: B10),
        or is None when nothing here can build uploads (no sandbox, no workers);
        `admission` holds the per-address limits."""
        self._catalogue = catalogue
        self._files = files
        self._builds = builds
        self._clock = clock
        self._rng = rng
        self._admission = admission
        self._sweep = SweepFailedBuilds(catalogue, files, clock)

    async def __call__(self, command: UploadBotCommand) -> UploadBotResult:
        builds = self._builds
        if builds is None:
            raise UploadsUnavailable()
        new_owner = command.owner_key is None
        owner_key = new_owner_key(self._rng) if command.owner_key is None else command.owner_key
        if not is_owner_key(owner_key):
            raise BadOwnerKey()
        owner = owner_hash(owner_key)
        language = language_of(command.file_name)
        check_content(language, command.data)
        name = display_name(command)
        shown_as = uploaded_file_name(command.file_name)

        now_ms = self._clock.now_ms()
        await self._sweep(owner)
        if await self._catalogue.count_bots(owner) >= MAX_BOTS_PER_OWNER:
            raise TooManyBots()
        if self._admission is not None:
            if new_owner:
                await self._admission.admit(AddressAction.OWNER_KEY, command.address)
            await self._admission.admit(AddressAction.UPLOAD, command.address)
        admitted = await self._catalogue.record_upload(
            owner, now_ms, window_ms=UPLOAD_WINDOW_MS, limit=UPLOADS_PER_WINDOW
        )
        if not admitted:
            raise TooManyUploads()

        bot_id = await self._fresh_id()
        try:
            record, waited_ms = await self._store_and_build(
                builds, bot_id, owner, name, language, command.data, now_ms, shown_as,
                InLine(tags=who(owner, command.address)),
            )
            built = record.build is BuildStatus.OK
            if not await self._catalogue.add_bot(
                record, max_bots=MAX_BOTS_PER_OWNER if built else None
            ):
                raise TooManyBots()
        except BaseException:
            await self._files.delete_bot_files(bot_id)
            raise
        if not built:
            await self._sweep(owner)  # at most the newest failed builds are kept
        return UploadBotResult(info_of(record, owner), owner_key, new_owner, waited_ms)

    async def _fresh_id(self) -> str:
        for _ in range(ID_TRIES):
            bot_id = new_bot_id(self._rng)
            if await self._catalogue.get_bot(bot_id) is None:
                return bot_id
        raise RuntimeError("no free bot id: is the random source seeded with a constant?")

    async def _store_and_build(
        self,
        builds: Jobs,
        bot_id: str,
        owner: str,
        name: str,
        language: Language,
        data: bytes,
        now_ms: int,
        shown_as: str,
        line: InLine,
    ) -> tuple[BotRecord, int]:
        """The record, and how long the build waited for its turn (ms): builds wait in
        the fair order of B10, `line` saying who this one counts for."""
        source = await self._files.put_source(bot_id, language, data)
        job = BuildJob(bot_id=bot_id, language=language, source=source, shown_as=shown_as)
        try:
            done = await builds.submit(BUILD_JOB, job, line)
        except JobFailed as error:  # the sandbox's failure, not the bot's
            raise BuildUnavailable() from error
        except JobError as error:  # no builder free in time, one lost, the queue away
            raise Busy(BUILDS_BUSY) from error
        verdict = done.result
        if verdict.store_full:
            raise StorageFull()
        record = BotRecord(
            id=bot_id,
            owner=owner,
            name=name,
            language=language,
            public=False,
            created_ms=now_ms,
            source_bytes=len(data),
            build=BuildStatus.OK if verdict.artefact is not None else BuildStatus.FAILED,
            build_messages=verdict.messages,
            source_file=source,
            artefact_dir=verdict.artefact,
        )
        return record, done.waited_ms
