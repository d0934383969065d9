"""The errors only the arena's use cases answer with (spec B5, B6). Each code is stable
and has one row in the HTTP adapter's table (`adapters/http/errors.py`)."""

from __future__ import annotations

from noitu.application.arena.limits import KIB, MAX_JAR_BYTES, MAX_SOURCE_BYTES, MIB
from noitu.application.errors import SHARED_ERRORS, BadRequest, Busy, GameError

__all__ = ["ARENA_ERRORS", "BadRequest", "Busy", "GameError"]


# --- uploaded bots (B5) ---------------------------------------------------------------


class BadOwnerKey(GameError):
    code = "bad_owner_key"
    default_message = "Mã chủ bot không hợp lệ. Hãy dùng mã mà trang đã lưu cho bạn."


class NotOwner(GameError):
    code = "not_owner"
    default_message = "Chỉ chủ của bot mới làm được việc này."


class BotNotFound(GameError):
    code = "bot_not_found"
    default_message = "Không tìm thấy bot này."


class UnsupportedFile(GameError):
    code = "unsupported_file"
    default_message = "Chỉ nhận một tệp .py, .cpp, .cc, .cxx, .java hoặc .jar."


class FileTooLarge(GameError):
    code = "file_too_large"
    default_message = (
        f"Tệp quá lớn: mã nguồn tối đa {MAX_SOURCE_BYTES // KIB} KiB,"
        f" tệp JAR tối đa {MAX_JAR_BYTES // MIB} MiB."
    )


class BadFile(GameError):
    code = "bad_file"
    default_message = "Nội dung tệp không đúng với loại tệp."


class TooManyUploads(GameError):
    code = "too_many_uploads"
    default_message = "Bạn tải lên hơi nhanh. Chờ một phút rồi thử lại nhé."


class TooManyBots(GameError):
    code = "too_many_bots"
    default_message = "Bạn đã lưu đủ số bot cho phép. Xoá bớt một bot rồi tải lên nhé."


class BotNotBuilt(GameError):
    code = "bot_not_built"
    default_message = "Bot này biên dịch bị lỗi nên không công khai được."


class BotInMatch(GameError):
    code = "bot_in_match"
    default_message = "Bot đang ở trong một trận. Chờ trận kết thúc rồi xoá nhé."


class UploadsUnavailable(GameError):
    code = "uploads_unavailable"
    default_message = "Máy chủ này chưa chạy được bot tải lên. Bạn vẫn đấu được với bot có sẵn."


class BuildUnavailable(GameError):
    code = "build_unavailable"
    default_message = "Máy chủ chưa biên dịch được bot lúc này. Bạn thử lại sau nhé."


class StorageFull(GameError):
    code = "storage_full"
    default_message = "Máy chủ đã hết chỗ lưu bot tải lên. Bạn thử lại sau nhé."


# --- per client address (B10) ---------------------------------------------------------


class AddressTooManyKeys(GameError):
    code = "address_too_many_keys"
    default_message = (
        "Địa chỉ mạng của bạn vừa tạo quá nhiều mã chủ bot mới. Chờ một lát rồi thử lại nhé."
    )


class AddressTooManyUploads(GameError):
    code = "address_too_many_uploads"
    default_message = (
        "Địa chỉ mạng của bạn tải lên hơi nhiều trong một phút. Chờ một lát rồi thử lại nhé."
    )


class AddressTooManyRooms(GameError):
    code = "address_too_many_rooms"
    default_message = (
        "Địa chỉ mạng của bạn mở hơi nhiều phòng trong một phút. Chờ một lát rồi thử lại nhé."
    )


BOT_ERRORS: tuple[type[GameError], ...] = (
    BadOwnerKey, NotOwner, BotNotFound, UnsupportedFile, FileTooLarge, BadFile,
    TooManyUploads, TooManyBots, BotNotBuilt, BotInMatch, UploadsUnavailable,
    BuildUnavailable, StorageFull, AddressTooManyKeys, AddressTooManyUploads, AddressTooManyRooms,
)


# --- rooms and matches (B4) -----------------------------------------------------------


class RoomNotFound(GameError):
    code = "room_not_found"
    default_message = "Không tìm thấy phòng này. Bạn kiểm tra lại mã phòng nhé."


class RoomFull(GameError):
    code = "room_full"
    default_message = "Phòng đã đủ hai bên rồi. Bạn vẫn xem trận được."


class SeatTaken(GameError):
    code = "seat_taken"
    default_message = "Chỗ này đã có người ngồi."


class AlreadySeated(GameError):
    code = "already_seated"
    default_message = "Bạn đã ngồi ở phòng này rồi."


class NotSeated(GameError):
    code = "not_seated"
    default_message = "Bạn không chơi ở phòng này."


class WrongRoomPhase(GameError):
    code = "wrong_phase"
    default_message = "Lúc này chưa làm được việc đó trong phòng."


class NotYourTurn(GameError):
    code = "not_your_turn"
    default_message = "Chưa đến lượt bạn."


class IllegalAction(GameError):
    code = "illegal_action"
    default_message = "Nước đi này không hợp lệ."


class PlacementRefused(GameError):
    code = "placement_refused"
    default_message = "Không đặt quân như vậy được."


class TimeUp(GameError):
    code = "time_up"
    default_message = "Hết giờ rồi: bạn đã thua vì quá thời gian."


class TooManyMatches(GameError):
    code = "too_many_matches"
    default_message = "Bạn đang có quá nhiều phòng cùng lúc. Chờ một trận kết thúc rồi thử lại nhé."


class MatchNotFound(GameError):
    code = "match_not_found"
    default_message = "Không tìm thấy trận này."


class ReplayNotReady(GameError):
    code = "replay_not_ready"
    default_message = "Trận chưa kết thúc nên chưa có bản ghi."


class ReplayDeleted(GameError):
    """The retention sweep deleted the match's replay (B14); its result stays."""

    code = "replay_deleted"
    default_message = "Bản ghi đã xoá: máy chủ chỉ giữ bản ghi các trận trong một thời gian."


class OneSpectacle(GameError):
    code = "one_spectacle"
    default_message = (
        "Mỗi địa chỉ mạng chỉ cho hai bot có sẵn đấu nhau một trận một lúc."
        " Chờ trận đang diễn ra kết thúc rồi mở trận mới nhé."
    )


ROOM_ERRORS: tuple[type[GameError], ...] = (
    RoomNotFound, RoomFull, SeatTaken, AlreadySeated, NotSeated, WrongRoomPhase,
    NotYourTurn, IllegalAction, PlacementRefused, TimeUp, TooManyMatches, MatchNotFound,
    ReplayNotReady, ReplayDeleted, OneSpectacle,
)

ARENA_ERRORS: tuple[type[GameError], ...] = (*SHARED_ERRORS, *BOT_ERRORS, *ROOM_ERRORS)
