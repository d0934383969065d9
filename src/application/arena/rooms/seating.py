"""What a seat can hold (spec B4, B5), as the page asks for it, and the checks before a
seat is taken: an uploaded bot (its owner's, or a public one, compiled), a built-in bot
(`random`, `tactical`, `strong`), or the person asking, under a display name."""

from __future__ import annotations

import msgspec

from noitu.application.arena.errors import BadOwnerKey, BadRequest, BotNotBuilt, BotNotFound
from noitu.application.arena.records import OWNER_HASH_PATTERN, BuildStatus, is_bot_id
from noitu.application.arena.rooms.ports import BuiltinArtefacts
from noitu.application.arena.storage import BotCatalogue
from noitu.domain.arena.room import RoomSeat, SeatKind, person_name


class SeatChoice(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """`{"kind":"person","name":"Lan"}`, `{"kind":"upload","ref":"<bot id>"}` or
    `{"kind":"builtin","ref":"tactical"}`."""

    kind: str
    ref: str = ""
    name: str = ""


def check_owner(who: str) -> str:
    """`who` must be an owner key's hash (the adapter hashes the key the page sent)."""
    if OWNER_HASH_PATTERN.fullmatch(who) is None:
        raise BadOwnerKey(
            "Trang cần mã người chơi của bạn để làm việc này. Tải lại trang rồi thử lại nhé."
        )
    return who


class Seating:
    def __init__(self, catalogue: BotCatalogue, builtins: BuiltinArtefacts) -> None:
        self._catalogue = catalogue
        self._builtins = builtins

    async def seat(self, choice: SeatChoice, who: str, address: str = "") -> RoomSeat:
        """The seat `choice` asks for, put there by `who` from client `address`;
        BotNotFound (also for someone else's private bot, so its existence is not
        told), BotNotBuilt, BadRequest."""
        if choice.kind == SeatKind.PERSON.value:
            name = person_name(choice.name)
            return RoomSeat(
                kind=SeatKind.PERSON, ref=name, name=name, owner=who, seated_by=who, address=address
            )
        if choice.kind == SeatKind.UPLOAD.value:
            bot = await self._catalogue.get_bot(choice.ref) if is_bot_id(choice.ref) else None
            if bot is None or (bot.owner != who and not bot.public):
                raise BotNotFound()
            if bot.build is not BuildStatus.OK or bot.artefact_dir is None:
                raise BotNotBuilt("Bot này biên dịch bị lỗi nên không vào trận được.")
            return RoomSeat(
                kind=SeatKind.UPLOAD, ref=bot.id, name=bot.name, owner=bot.owner,
                seated_by=who, address=address,
            )
        if choice.kind == SeatKind.BUILTIN.value:
            names = self._builtins.names()
            if choice.ref not in names:
                raise BadRequest(
                    f"Không có bot sẵn tên {choice.ref[:40]!r}: chọn {', '.join(names)}."
                )
            return RoomSeat(
                kind=SeatKind.BUILTIN, ref=choice.ref, name=choice.ref, seated_by=who,
                address=address,
            )
        raise BadRequest(
            "Chỗ ngồi là person (bạn), upload (bot đã tải lên) hoặc builtin (bot có sẵn)."
        )
