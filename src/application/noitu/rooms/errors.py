"""The errors of group rooms (spec B10), each with one Vietnamese message."""

from __future__ import annotations

from noitu.application.errors import BadRequest, Busy, GameError
from noitu.domain.noitu.room import RoomLimits
from noitu.domain.noitu.room_game import RoomRefusal, RoomRuleBroken

__all__ = ["ROOM_ERRORS", "BadRequest", "Busy", "GameError", "refused"]


class NoMember(GameError):
    code = "no_member"
    default_message = "Bạn không còn ở trong phòng này. Hãy mở lại phòng từ Telegram."


class RoomGone(GameError):
    code = "room_gone"
    default_message = "Phòng này không còn nữa. Hãy mở lại phòng từ Telegram."


class NoGame(GameError):
    code = "no_game"
    default_message = "Phòng chưa có ván nào đang chơi."


class Watching(GameError):
    code = "watching"
    default_message = "Bạn đang xem ván này. Ván sau bạn sẽ được vào chơi."


class OutOfGame(GameError):
    code = "out_of_game"
    default_message = "Bạn đã bị loại khỏi ván này rồi."


class NotYourTurn(GameError):
    code = "not_your_turn"
    default_message = "Chưa đến lượt bạn."


class RoomFull(GameError):
    code = "room_full"
    default_message = "Phòng đã đầy rồi."


class NotHost(GameError):
    code = "not_host"
    default_message = "Chỉ chủ phòng mới làm được việc này."


class NotEnoughPlayers(GameError):
    code = "not_enough_players"
    default_message = f"Cần ít nhất {RoomLimits().min_players} người chơi để bắt đầu."


class GameRunning(GameError):
    code = "game_running"
    default_message = "Ván đang diễn ra, hãy chờ ván kết thúc."


class TooManyRooms(GameError):
    code = "too_many_rooms"
    default_message = "Nhóm này đã có 3 phòng đang mở. Hãy chơi ở một phòng có sẵn."


class NotARoomLink(GameError):
    code = "not_a_room_link"
    default_message = "Đây là liên kết chơi một mình, không phải liên kết phòng."


class RoomLink(GameError):
    code = "room_link"
    default_message = "Đây là liên kết phòng chơi nhóm. Hãy mở nó ở chế độ phòng."


REFUSALS: dict[RoomRefusal, type[GameError]] = {
    RoomRefusal.NO_GAME: NoGame,
    RoomRefusal.WATCHING: Watching,
    RoomRefusal.OUT_OF_GAME: OutOfGame,
    RoomRefusal.NOT_YOUR_TURN: NotYourTurn,
    RoomRefusal.ROOM_FULL: RoomFull,
    RoomRefusal.NOT_HOST: NotHost,
    RoomRefusal.NOT_ENOUGH_PLAYERS: NotEnoughPlayers,
    RoomRefusal.GAME_RUNNING: GameRunning,
}


def refused(refusal: RoomRefusal) -> GameError:
    return REFUSALS[refusal]()


ROOM_ERRORS: tuple[type[GameError], ...] = (
    BadRequest, Busy, NoMember, RoomGone, *REFUSALS.values(), TooManyRooms, NotARoomLink,
    RoomLink,
)


class room_rules:
    """Turns a room's refusal into its error."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, error: BaseException | None, trace: object) -> None:
        if isinstance(error, RoomRuleBroken):
            raise refused(error.refusal) from None
