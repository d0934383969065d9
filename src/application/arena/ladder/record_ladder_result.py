"""A ladder match has finished (spec B8 "Rating", "Failures", "Pairings").

A rated match is stored with the ratings it moves, in one write (history.py), and
each uploaded bot's count of failed ladder matches in a row moves: a failure adds one
(three in a row suspend the bot), any other rated match resets it. A match that is not rated (ABANDONED,
a START_FAILED: the server's fault) changes no rating and no count. Once both matches of
the pairing have ended, the pairing closes: a placement pairing moves its newcomer's
placement on, and a pairing with a match that was not rated is played again at once
with a new seed — unless one of its bots has left the ladder or is suspended.

Telling the same match twice changes nothing the second time.
"""

from __future__ import annotations

import random
from dataclasses import replace

import msgspec

from noitu.application.arena.ladder.history import fold_in
from noitu.application.arena.ladder.ports import (
    BuiltinRoster,
    LadderMembers,
    LadderPairings,
    LadderResults,
    LadderStandings,
)
from noitu.application.arena.records import MAX_SEED
from noitu.application.ports import Clock
from noitu.domain.arena.board import Side
from noitu.domain.arena.ladder.members import Member
from noitu.domain.arena.ladder.pairing import Pairing, PairingEnd, winner_bot
from noitu.domain.arena.ladder.placement import step_after
from noitu.domain.arena.ladder.results import LadderResult, failed_side, is_rated
from noitu.domain.arena.match import Result


class RecordLadderResultCommand(msgspec.Struct, frozen=True):
    pairing_id: str
    match_id: str
    p1: str  # the bot on P1: an uploaded bot's id or a built-in's name
    p2: str
    result: Result
    ended_ms: int
    #: The instance to play the pairing again if it is (None: the pairing's own; a
    #: driver ending another instance's lost pairing plays its replay itself).
    replay_instance: str | None = None


class RecordedLadderMatch(msgspec.Struct, frozen=True):
    rated: bool
    #: Bots this match suspended (three failed ladder matches in a row).
    suspended: tuple[str, ...]
    #: Both matches of the pairing have ended: its bots are free again.
    pairing_over: bool
    #: The pairing played again (a match was not rated): run its two matches.
    replay: Pairing | None


class UnknownPairing(LookupError):
    """A result for a pairing that is not being played, or bots not in it."""


class RecordLadderResult:
    def __init__(
        self,
        results: LadderResults,
        standings: LadderStandings,
        members: LadderMembers,
        pairings: LadderPairings,
        roster: BuiltinRoster,
        clock: Clock,
        rng: random.Random,
    ) -> None:
        self._results = results
        self._standings = standings
        self._members = members
        self._pairings = pairings
        self._roster = roster
        self._clock = clock
        self._rng = rng

    async def __call__(self, command: RecordLadderResultCommand) -> RecordedLadderMatch:
        rated = is_rated(command.result)
        winner = winner_bot(command.p1, command.p2, command.result.winner) if rated else None
        end = PairingEnd(command.match_id, rated, winner)

        def ended(known: Pairing) -> Pairing:
            if {command.p1, command.p2} != set(known.bots):
                raise UnknownPairing(f"pairing {known.id} is not between these bots")
            return known.with_end(end)

        pairing = await self._pairings.update(command.pairing_id, ended)
        if pairing is None:
            raise UnknownPairing(f"no live pairing {command.pairing_id}")
        suspended: tuple[str, ...] = ()
        if rated:
            suspended = await self._rate(command)
        replay = None
        if pairing.over:
            instance = command.replay_instance
            replay = await self._close(pairing, pairing.instance if instance is None else instance)
        return RecordedLadderMatch(rated, suspended, pairing.over, replay)

    async def _rate(self, command: RecordLadderResultCommand) -> tuple[str, ...]:
        stored = LadderResult(
            command.match_id, command.pairing_id, command.p1, command.p2,
            command.result.winner, command.ended_ms,
        )
        if await fold_in(self._results, self._standings, stored) is None:
            return ()  # told before: counted then
        failed = failed_side(command.result)
        suspended = []
        for bot, side in ((command.p1, Side.P1), (command.p2, Side.P2)):
            after = await self._members.update(
                bot, lambda member, side=side: member.after_match(failed=failed is side)
            )
            if after is not None and failed is side and after.just_suspended:
                suspended.append(bot)
        return tuple(suspended)

    async def _close(self, pairing: Pairing, instance: str) -> Pairing | None:
        order = self._roster.names()
        if pairing.placement:
            await self._members.update(
                pairing.first,
                lambda member: replace(member, placement_step=step_after(member, pairing, order)),
            )
        replay = None
        if pairing.to_replay and await self._may_play_again(pairing, order):
            replay = Pairing(
                id=new_pairing_id(self._rng), seed=self._rng.randint(0, MAX_SEED),
                first=pairing.first, second=pairing.second, placement=pairing.placement,
                started_ms=self._clock.now_ms(), instance=instance,
            )
        await self._pairings.close(pairing.id, replay)
        return replay

    async def _may_play_again(self, pairing: Pairing, builtins: tuple[str, ...]) -> bool:
        for bot in pairing.bots:
            if bot in builtins:
                continue
            member: Member | None = await self._members.get(bot)
            if member is None or member.suspended:
                return False
        return True


def new_pairing_id(rng: random.Random) -> str:
    """A pairing's id: 16 lower-case hex digits."""
    return f"{rng.getrandbits(64):016x}"
