"""GetReplay: a finished match's replay (spec B4): its name in the files store and its
bytes, JSON Lines, for download or playback in the page; to a client that takes zstd
(`zstd`), as stored: one zstd frame of them (spec B14), when it was stored so. A replay
the retention sweep deleted (B14) is `ReplayDeleted`, 410, "bản ghi đã xoá"."""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from noitu.application.arena.errors import MatchNotFound, ReplayDeleted, ReplayNotReady
from noitu.application.arena.records import MatchStatus, is_match_id
from noitu.application.arena.storage import ArenaFiles, MatchArchive


class GetReplayCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    match_id: str
    zstd: bool = False


@dataclass(frozen=True, slots=True)
class ReplayDownload:
    match_id: str
    name: str  # in the files store
    file_name: str  # what a download is called: <match id>.jsonl
    data: bytes
    zstd: bool = False  # `data` is one zstd frame of the JSON Lines


class GetReplay:
    def __init__(self, archive: MatchArchive, files: ArenaFiles) -> None:
        self._archive = archive
        self._files = files

    async def __call__(self, command: GetReplayCommand) -> ReplayDownload:
        match_id = command.match_id.strip().upper()
        record = await self._archive.get_match(match_id) if is_match_id(match_id) else None
        if record is None:
            raise MatchNotFound()
        if record.replay_deleted:
            raise ReplayDeleted()
        if record.status is not MatchStatus.FINISHED or record.replay is None:
            raise ReplayNotReady(
                None
                if record.status is not MatchStatus.FINISHED
                else "Trận này không có bản ghi (máy chủ đã khởi động lại giữa trận)."
            )
        try:
            frame = await self._files.read_replay_zstd(record.replay) if command.zstd else None
            data = frame if frame is not None else await self._files.read_replay(record.replay)
        except FileNotFoundError:
            raise ReplayNotReady("Không còn tệp bản ghi của trận này.") from None
        return ReplayDownload(
            match_id, record.replay, f"{match_id}.jsonl", data, zstd=frame is not None
        )
