"""The replay of a match (spec B4): JSON Lines, one event per line, in the order things
happened. Events are plain dicts here, in the spec's field order; an adapter writes them.

    setup    {"event","matchId","seed","turnLimit","players":[{"id","name","kind"}],"pieces"}
    sent     {"event","player","sequence","line"}
    received {"event","player","line","ms"} (+ "cut" when the line was cut, B14)
    applied  {"event","turn","player","action","fight"}
    end      {"event","winner","reason","turns","failure"}

Readers skip event kinds they do not know.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import msgspec

from noitu.domain.arena.actions import Action, Fight
from noitu.domain.arena.board import Side
from noitu.domain.arena.match import Match, Result
from noitu.domain.arena.room import SeatKind

Event = Mapping[str, object]


@dataclass(frozen=True, slots=True)
class Player:
    """Who sits on a side: a display name and what kind of player it is."""

    side: Side
    name: str
    kind: SeatKind


class MatchEvents(Protocol):
    """Where a match's events go as they happen (a replay file, a progress line, a
    room's viewers)."""

    def record(self, event: Event) -> None: ...


def setup_event(match: Match, players: Sequence[Player]) -> Event:
    pieces = match.starting_placement.board().to_json() if match.starting_placement else []
    return unplaced_setup_event(match.match_id, match.seed, match.turn_limit, players, pieces)


def unplaced_setup_event(
    match_id: str, seed: int, turn_limit: int, players: Sequence[Player],
    pieces: Sequence[object] = (),
) -> Event:
    """The setup of a match known only by its record: no pieces unless given (a match
    that ended before play lists none)."""
    return {
        "event": "setup",
        "matchId": match_id,
        "seed": seed,
        "turnLimit": turn_limit,
        "players": [{"id": p.side.value, "name": p.name, "kind": p.kind.value} for p in players],
        "pieces": list(pieces),
    }


def sent_event(side: Side, sequence: int, line: str | msgspec.Raw) -> Event:
    """`line` as written to the bot; or as a JSON string already (`TurnRequest.quoted`),
    which an encoder copies as it is instead of escaping 10 KB of quotes every turn."""
    return {"event": "sent", "player": side.value, "sequence": sequence, "line": line}


#: Spec B14: what a replay keeps of a reply line, in bytes; a longer line keeps its start
#: (padding cannot inflate a replay; `applied` carries the action the rules took).
RECEIVED_KEPT_BYTES = 4096


def received_event(side: Side, line: bytes, ms: int) -> Event:
    """The line as read, up to `RECEIVED_KEPT_BYTES`; a longer one is cut there (back to
    the start of a UTF-8 character) and marked with `cut`: the bytes left out. Bytes
    that are not UTF-8 (a BAD_JSON reply) are kept as U+FFFD, since a JSON string
    cannot hold them."""
    if len(line) <= RECEIVED_KEPT_BYTES:
        return {
            "event": "received", "player": side.value,
            "line": line.decode("utf-8", "replace"), "ms": ms,
        }
    end = RECEIVED_KEPT_BYTES
    while end > RECEIVED_KEPT_BYTES - 3 and line[end] & 0xC0 == 0x80:
        end -= 1  # `line[end]` continues a character: cut before that character
    return {
        "event": "received", "player": side.value,
        "line": line[:end].decode("utf-8", "replace"), "ms": ms, "cut": len(line) - end,
    }


def applied_event(turn: int, side: Side, action: Action, fight: Fight | None) -> Event:
    return {
        "event": "applied",
        "turn": turn,
        "player": side.value,
        "action": action.to_json(),
        "fight": None if fight is None else fight.to_json(),
    }


def end_event(result: Result) -> Event:
    return {"event": "end", **result.to_json()}
