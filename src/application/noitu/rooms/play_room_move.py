"""PlayRoomMove: the word of the player on turn (B10's order of checks, then solo's).
A refused word is answered to its sender only: nothing goes out on the feed for it."""

from __future__ import annotations

import msgspec

from noitu.application.noitu.errors import BadRequest, TooFast
from noitu.application.noitu.messages import REJECTION_MESSAGES, WORD_TOO_LONG
from noitu.application.noitu.rooms.commands import RoomMoveCommand
from noitu.application.noitu.rooms.unit_of_work import Rooms
from noitu.application.noitu.rooms.view import RoomView, RoomViews
from noitu.domain.noitu.room_game import BotSeat, RoomGame
from noitu.domain.noitu.rules import typed_word_too_long
from noitu.domain.noitu.spelling import normalize


class RoomMoveResultView(msgspec.Struct, frozen=True):
    accepted: bool
    reason: str
    message: str
    word: str


class RoomMoveResult(msgspec.Struct, frozen=True):
    result: RoomMoveResultView
    state: RoomView


class PlayRoomMove:
    def __init__(self, rooms: Rooms, views: RoomViews, bots: BotSeat) -> None:
        self._rooms = rooms
        self._views = views
        self._bots = bots

    async def __call__(self, command: RoomMoveCommand) -> RoomMoveResult:
        async with self._rooms.open_as(command.member) as work:
            record, now, user = work.record, work.now_ms, work.user_id
            # Turns that ran out are settled first: the answer then says how things
            # stand now (the mover's own turn ran out: `out_of_game`).
            game, player, settled = await work.settled_player(self._bots, RoomGame.check_turn)
            interval = self._rooms.limits.move_interval_ms
            last = record.last_move_ms.get(user, 0)
            if now - last < interval:
                if settled:
                    await work.commit()
                raise TooFast(retry_after_ms=last + interval - now)
            record.last_move_ms[user] = now
            if typed_word_too_long(command.word):
                await work.commit(notify=settled)
                raise BadRequest(WORD_TOO_LONG)
            move = game.play(player.seat, normalize(command.word), now, self._bots)
            await work.commit(notify=settled or move.accepted)
            state = self._views.of(record, user, now)
            words = game.lexicon.words
            rejection = move.rejection
            return RoomMoveResult(
                RoomMoveResultView(
                    accepted=move.accepted,
                    reason=rejection.value if rejection else "",
                    message=REJECTION_MESSAGES[rejection.value].format(current=state.current)
                    if rejection else "",
                    word=words[move.word] if move.word is not None else "",
                ),
                state,
            )

