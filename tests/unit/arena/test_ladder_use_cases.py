"""The ladder's use cases (spec B8) over hand-written in-memory stores: entry,
recording results, suspension, placement, scheduling, the lease and the rebuild."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from noitu.adapters.arena.builtin import BUILTIN_SOURCES
from noitu.application.arena.errors import BotNotBuilt, BotNotFound, NotOwner
from noitu.application.arena.ladder.errors import LadderBusy, NotRanked, TooManyRanked
from noitu.application.arena.ladder.rank_bot import RankBotCommand
from noitu.application.arena.ladder.rebuild_ladder import RebuildLadderCommand
from noitu.application.arena.ladder.record_ladder_result import (
    RecordLadderResult,
    RecordLadderResultCommand,
    UnknownPairing,
)
from noitu.application.arena.ladder.resume_bot import ResumeBotCommand
from noitu.application.arena.ladder.schedule_pairing import (
    LEASE_MS,
    SchedulePairingCommand,
)
from noitu.application.arena.ladder.unrank_bot import UnrankBotCommand
from noitu.domain.arena.board import Side
from noitu.domain.arena.failure import FailureCode
from noitu.domain.arena.ladder.members import Member
from noitu.domain.arena.ladder.pairing import Pairing
from noitu.domain.arena.ladder.rating import FIRST_RATING
from noitu.domain.arena.match import EndReason, Result
from support.ladder import KEY, Ladder, MemoryStandings, bot_id, failed, other

BUILTINS = tuple(BUILTIN_SOURCES)
OTHER_KEY = "2" * 32
WIN = Result(Side.P1, EndReason.BASE_CAPTURED, 41)
LOSS = Result(Side.P2, EndReason.NO_PIECES, 58)
DRAW = Result(None, EndReason.TURN_LIMIT, 200)
ABANDONED = Result(None, EndReason.ABANDONED, 12)


# --- Entry ----------------------------------------------------------------------------


async def test_rank_bot_ranks_a_built_bot_and_makes_it_public():
    ladder = Ladder()
    ladder.bots.add(bot_id(1), KEY)
    ranked = await ladder.rank(RankBotCommand(bot_id(1), KEY))
    assert ranked.bot_id == bot_id(1) and not ranked.suspended and ranked.in_placement
    assert ladder.bots.by_id[bot_id(1)].public
    assert [row.bot for row in await ladder.show()][-1] == bot_id(1)


async def test_rank_bot_too_many_ranked_past_three_per_owner():
    ladder = Ladder()
    for n in range(3):
        await ladder.ranked(n)
    ladder.bots.add(bot_id(9), KEY)
    with pytest.raises(TooManyRanked) as refused:
        await ladder.rank(RankBotCommand(bot_id(9), KEY))
    assert refused.value.code == "too_many_ranked"
    assert not ladder.bots.by_id[bot_id(9)].public  # nothing half-done
    await ladder.ranked(10, OTHER_KEY)  # another owner is not limited by this one
    await ladder.rank(RankBotCommand(bot_id(0), KEY))  # ranking a ranked bot again is fine


async def test_rank_bot_a_suspended_bot_still_counts_toward_the_three():
    ladder = Ladder()
    for n in range(3):
        await ladder.ranked(n)
    await ladder.members.update(bot_id(0), lambda m: Member(m.bot, m.owner, 1, 3, True))
    ladder.bots.add(bot_id(9), KEY)
    with pytest.raises(TooManyRanked):
        await ladder.rank(RankBotCommand(bot_id(9), KEY))


async def test_rank_bot_only_a_built_bot_of_its_owner():
    ladder = Ladder()
    ladder.bots.add(bot_id(1), KEY, built=False)
    with pytest.raises(BotNotBuilt):
        await ladder.rank(RankBotCommand(bot_id(1), KEY))
    ladder.bots.add(bot_id(2), KEY)
    with pytest.raises(BotNotFound):  # someone else's private bot does not exist for them
        await ladder.rank(RankBotCommand(bot_id(2), OTHER_KEY))
    ladder.bots.add(bot_id(3), KEY, public=True)
    with pytest.raises(NotOwner):
        await ladder.rank(RankBotCommand(bot_id(3), OTHER_KEY))
    assert await ladder.members.members() == []


async def test_unrank_bot_leaves_it_public_and_keeps_its_history():
    ladder = Ladder()
    bot = await ladder.ranked(1)
    await ladder.pairing(bot, BUILTINS[0], (True, True))
    rating = ladder.standing(bot).rating
    unranked = await ladder.unrank(UnrankBotCommand(bot, KEY))
    assert unranked.was_ranked and ladder.bots.by_id[bot].public
    assert bot not in [row.bot for row in await ladder.show()]
    assert not (await ladder.unrank(UnrankBotCommand(bot, KEY))).was_ranked
    again = await ladder.rank(RankBotCommand(bot, KEY))  # its rating comes back, no placement
    assert not again.in_placement and ladder.standing(bot).rating == rating
    rebuilt = await ladder.rebuild(RebuildLadderCommand("cli"))
    assert next(r for r in rebuilt.table if r.bot == bot).mu == pytest.approx(rating.mu)


async def test_entry_the_builtins_are_on_the_table_from_the_start():
    rows = await Ladder().show()
    assert [row.bot for row in rows] == list(reversed(BUILTINS))  # strongest first
    assert all(row.builtin and row.mu == FIRST_RATING.mu for row in rows)


# --- Rating and what is rated ---------------------------------------------------------


async def test_record_a_win_rates_the_match():
    ladder = Ladder()
    bot = await ladder.ranked(1)
    pairing = await ladder.open(bot, BUILTINS[1])
    recorded = await ladder.play(pairing, 0, WIN)
    assert recorded.rated and not recorded.pairing_over and recorded.replay is None
    assert ladder.standing(bot).wins == 1 and ladder.standing(BUILTINS[1]).losses == 1
    assert ladder.standing(bot).rating.mu > FIRST_RATING.mu


async def test_record_a_draw_is_rated_as_a_tie():
    ladder = Ladder()
    bot = await ladder.ranked(1)
    await ladder.play(await ladder.open(bot, BUILTINS[0]), 0, DRAW)
    assert ladder.standing(bot).draws == 1 and ladder.standing(BUILTINS[0]).draws == 1


async def test_record_a_bots_failure_is_a_loss_for_that_bot():
    ladder = Ladder()
    bot = await ladder.ranked(1)
    pairing = await ladder.open(bot, BUILTINS[0])
    await ladder.play(pairing, 1, failed(Side.P2))  # the bot sits on P2 in match 1
    assert ladder.standing(bot).losses == 1 and ladder.standing(BUILTINS[0]).wins == 1
    assert (await ladder.members.get(bot)).failures_in_row == 1


@pytest.mark.parametrize(
    "spoilt", [ABANDONED, failed(Side.P1, FailureCode.START_FAILED)], ids=["abandoned", "start"]
)
async def test_record_server_caused_ends_are_not_rated_and_the_pairing_is_played_again(spoilt):
    ladder = Ladder()
    bot = await ladder.ranked(1)
    pairing = await ladder.open(bot, BUILTINS[2])
    first = await ladder.play(pairing, 0, spoilt)
    assert not first.rated and ladder.standing(bot).games == 0 and ladder.results.by_match == {}
    assert (await ladder.members.get(bot)).failures_in_row == 0
    second = await ladder.play(pairing, 1, WIN)
    assert second.rated and second.pairing_over
    replay = second.replay
    assert replay is not None and replay.bots == pairing.bots and replay.seed != pairing.seed
    assert [p.id for p in await ladder.pairings.live()] == [replay.id]  # its bots stay busy


async def test_record_a_replay_is_played_by_the_pairings_instance_or_the_one_named():
    ladder = Ladder()
    bot = await ladder.ranked(1)
    mine = Pairing("pair000000000001", 3, bot, BUILTINS[2], False, 0, instance="host-1")
    assert await ladder.pairings.open(mine)
    await ladder.play(mine, 0, ABANDONED)
    replay = (await ladder.play(mine, 1, WIN)).replay
    assert replay is not None and replay.instance == "host-1"
    # a driver ending another instance's lost pairing plays the replay itself
    ladder.clock.advance(1_000)
    for index in (0, 1):
        p1, p2 = replay.seats(index)
        taken = await ladder.record(RecordLadderResultCommand(
            replay.id, f"0000BBB{index}", p1, p2, ABANDONED, ladder.clock.now_ms(),
            replay_instance="host-2",
        ))
    assert taken.replay is not None and taken.replay.instance == "host-2"


async def test_record_the_same_match_told_twice_counts_once():
    ladder = Ladder()
    bot = await ladder.ranked(1)
    pairing = await ladder.open(bot, BUILTINS[0])
    command = RecordLadderResultCommand(pairing.id, "0000AAAA", bot, BUILTINS[0], failed(Side.P1), 5)
    await ladder.record(command)
    again = await ladder.record(command)
    assert ladder.standing(bot).games == 1 and again.suspended == ()
    assert (await ladder.members.get(bot)).failures_in_row == 1
    assert not again.pairing_over


async def test_record_a_result_for_other_bots_or_no_pairing_is_refused():
    ladder = Ladder()
    bot = await ladder.ranked(1)
    pairing = await ladder.open(bot, BUILTINS[0])
    with pytest.raises(UnknownPairing):
        await ladder.record(RecordLadderResultCommand(pairing.id, "0000AAAA", bot, BUILTINS[1], WIN, 5))
    with pytest.raises(UnknownPairing):
        await ladder.record(RecordLadderResultCommand("nope", "0000AAAB", bot, BUILTINS[0], WIN, 5))
    assert ladder.pairings.live_by_id[pairing.id].ends == ()


async def test_record_a_result_stored_late_refolds_the_whole_history():
    ladder = Ladder()
    bot = await ladder.ranked(1)
    early = await ladder.open(bot, BUILTINS[0])
    late = await ladder.open(BUILTINS[1], BUILTINS[2])
    ladder.clock.advance(10_000)
    await ladder.play(early, 0, WIN)
    # A match that ended before the one above is told only now (e.g. after an outage).
    await ladder.record(RecordLadderResultCommand(late.id, "0000FFFF", *late.seats(0), LOSS, 5))
    live = ladder.standings.stored
    assert live.of(BUILTINS[2]).wins == 1
    rebuilt = await ladder.rebuild(RebuildLadderCommand("cli"))
    for row in rebuilt.table:
        assert live.of(row.bot).rating.mu == pytest.approx(row.mu, abs=1e-9)


# --- Failures and suspension ----------------------------------------------------------


async def test_suspension_three_failed_ladder_matches_in_a_row_suspend_the_bot():
    ladder = Ladder()
    bot = await ladder.ranked(1)
    pairing = await ladder.open(bot, BUILTINS[0])
    assert (await ladder.play(pairing, 0, failed(Side.P1))).suspended == ()
    await ladder.play(pairing, 1, failed(Side.P2))
    pairing = await ladder.open(bot, BUILTINS[1])
    third = await ladder.play(pairing, 0, failed(Side.P1))
    assert third.suspended == (bot,)
    # The pairing's other match still runs and is rated.
    fourth = await ladder.play(pairing, 1, LOSS)  # the bot is P2 and wins this one
    assert fourth.rated and ladder.standing(bot).wins == 1 and fourth.replay is None
    member = await ladder.members.get(bot)
    assert member.suspended and member.failures_in_row == 0
    row = next(r for r in await ladder.show() if r.bot == bot)
    assert row.suspended and row.games == 4


async def test_suspension_a_rated_match_not_failed_resets_the_count():
    ladder = Ladder()
    bot = await ladder.ranked(1)
    pairing = await ladder.open(bot, BUILTINS[0])
    await ladder.play(pairing, 0, failed(Side.P1))
    await ladder.play(pairing, 1, failed(Side.P2))
    pairing = await ladder.open(bot, BUILTINS[1])
    await ladder.play(pairing, 0, LOSS)  # lost without failing
    await ladder.play(pairing, 1, failed(Side.P2))
    member = await ladder.members.get(bot)
    assert member.failures_in_row == 1 and not member.suspended


async def test_suspension_a_suspended_bot_plays_no_ladder_match():
    ladder = Ladder()
    bot = await ladder.ranked(1)
    await ladder.members.update(bot, lambda m: Member(m.bot, m.owner, 1, 3, True))
    for _ in range(10):
        pairing = await ladder.schedule(SchedulePairingCommand("one"))
        assert pairing is not None and bot not in pairing.bots
        await ladder.pairings.close(pairing.id)


async def test_suspension_no_replay_for_a_suspended_bot():
    ladder = Ladder()
    bot = await ladder.ranked(1)
    pairing = await ladder.open(bot, BUILTINS[0])
    await ladder.members.update(bot, lambda m: Member(m.bot, m.owner, 1, 2, False))
    assert (await ladder.play(pairing, 0, failed(Side.P1))).suspended == (bot,)
    assert (await ladder.play(pairing, 1, ABANDONED)).replay is None
    assert await ladder.pairings.live() == []


async def test_resume_bot_resets_the_count_and_lets_it_play():
    ladder = Ladder()
    for first, second in ((0, 1), (1, 2)):  # the built-ins have played: lower σ
        await ladder.pairing(BUILTINS[first], BUILTINS[second], (True, False))
    bot = await ladder.ranked(1)
    await ladder.members.update(bot, lambda m: Member(m.bot, m.owner, 1, 3, True))
    assert bot not in (await ladder.schedule(SchedulePairingCommand("one"))).bots
    await ladder.pairings.close((await ladder.pairings.live())[0].id)
    with pytest.raises(NotOwner):
        await ladder.resume(ResumeBotCommand(bot, OTHER_KEY))
    resumed = await ladder.resume(ResumeBotCommand(bot, KEY))
    assert not resumed.suspended and resumed.failures_in_row == 0
    pairing = await ladder.schedule(SchedulePairingCommand("one"))
    assert pairing is not None and pairing.first == bot  # the highest σ, free again


async def test_resume_bot_not_ranked():
    ladder = Ladder()
    ladder.bots.add(bot_id(1), KEY)
    with pytest.raises(NotRanked):
        await ladder.resume(ResumeBotCommand(bot_id(1), KEY))


# --- Placement ------------------------------------------------------------------------


async def _placement_pairing(ladder: Ladder, bot: str, wins: tuple[bool, bool]) -> Pairing:
    """Schedule until the newcomer's next pairing comes (others' are played as draws),
    play it with these results for the bot."""
    for _ in range(10):
        pairing = await ladder.schedule(SchedulePairingCommand("one"))
        assert pairing is not None
        if bot in pairing.bots:
            break
        await ladder.play(pairing, 0, DRAW)
        await ladder.play(pairing, 1, DRAW)
    assert pairing.first == bot and pairing.placement
    for index, bot_wins in enumerate(wins):
        bot_side = Side.P1 if index == 0 else Side.P2
        await ladder.play(pairing, index, Result(
            bot_side if bot_wins else other(bot_side), EndReason.BASE_CAPTURED, 20,
        ))
    return pairing


async def _played_builtins(ladder: Ladder) -> None:
    for first, second in ((0, 1), (1, 2), (2, 0)):
        await ladder.pairing(BUILTINS[first], BUILTINS[second], (True, False))


async def test_placement_random_then_tactical_then_strong_while_it_wins_both():
    ladder = Ladder()
    await _played_builtins(ladder)
    bot = await ladder.ranked(1)
    met = []
    for _ in BUILTINS:
        met.append((await _placement_pairing(ladder, bot, (True, True))).second)
    assert met == list(BUILTINS)
    assert (await ladder.members.get(bot)).placement_step is None
    following = await ladder.schedule(SchedulePairingCommand("one"))
    assert following is not None and not following.placement


async def test_placement_a_one_one_ends_it():
    ladder = Ladder()
    await _played_builtins(ladder)
    bot = await ladder.ranked(1)
    await _placement_pairing(ladder, bot, (True, True))
    assert (await ladder.members.get(bot)).placement_step == 1
    await _placement_pairing(ladder, bot, (True, False))
    assert (await ladder.members.get(bot)).placement_step is None
    following = await ladder.schedule(SchedulePairingCommand("one"))
    assert following is not None and not following.placement


async def test_placement_a_replayed_pairing_is_still_placement():
    ladder = Ladder()
    await _played_builtins(ladder)
    bot = await ladder.ranked(1)
    pairing = await ladder.schedule(SchedulePairingCommand("one"))
    await ladder.play(pairing, 0, WIN)
    replay = (await ladder.play(pairing, 1, ABANDONED)).replay
    assert replay is not None and replay.placement and replay.bots == (bot, BUILTINS[0])
    assert (await ladder.members.get(bot)).placement_step == 0


# --- Scheduling -----------------------------------------------------------------------


async def test_scheduling_a_bot_is_in_at_most_one_pairing_at_a_time():
    ladder = Ladder()
    for n in range(5):
        await ladder.ranked(n, key=f"{n:032x}")
        await ladder.members.update(bot_id(n), lambda m: Member(m.bot, m.owner, 1))  # placed
    busy: list[str] = []
    while (pairing := await ladder.schedule(SchedulePairingCommand("one"))) is not None:
        busy += pairing.bots
    assert len(busy) == len(set(busy)) and len(busy) >= 6  # 8 bots: at most 4 pairings
    assert await ladder.schedule(SchedulePairingCommand("one")) is None


async def test_scheduling_the_pairing_gets_a_new_seed_and_id_and_is_live():
    ladder = Ladder()
    one = await ladder.schedule(SchedulePairingCommand("one"))
    two = await ladder.schedule(SchedulePairingCommand("one"))
    assert two is None  # three built-ins: one pairing takes two of them, one is left
    assert one is not None and one.started_ms == ladder.clock.now_ms()
    assert await ladder.pairings.live() == [one]
    await ladder.pairings.close(one.id)
    three = await ladder.schedule(SchedulePairingCommand("one"))
    assert three is not None and (three.id, three.seed) != (one.id, one.seed)


async def test_scheduling_never_the_previous_pairings_opponent():
    ladder = Ladder()
    await _played_builtins(ladder)
    first = await ladder.ranked(1, key="a" * 32)
    await ladder.members.update(first, lambda m: Member(m.bot, m.owner, 1))  # placed
    for n in range(2, 5):
        await ladder.ranked(n, key=f"{n:032x}")
        await ladder.members.update(bot_id(n), lambda m: Member(m.bot, m.owner, 1))
    previous, checked = None, 0
    for _ in range(24):
        pairing = await ladder.schedule(SchedulePairingCommand("one"))
        assert pairing is not None
        if pairing.first == first and previous is not None:
            assert pairing.second != previous
            checked += 1
        if first in pairing.bots:
            previous = pairing.opponent_of(first)
        await ladder.play(pairing, 0, DRAW)
        await ladder.play(pairing, 1, DRAW)
    assert checked >= 2


async def test_scheduling_fair_play_one_owners_bots_and_one_address_never_meet():
    """B13: A and B share an owner key, A and D were ranked from one address; over many
    pairings none of those meet, while every other pair may."""
    ladder = Ladder()
    await _played_builtins(ladder)
    address = "198.51.100.4"
    for n, key, at in ((1, "a" * 32, address), (2, "a" * 32, ""), (3, "c" * 32, ""),
                       (4, "d" * 32, address)):
        ladder.bots.add(bot_id(n), key, created_ms=1)
        await ladder.rank(RankBotCommand(bot_id(n), key, address=at))
        await ladder.members.update(bot_id(n), lambda m: replace(m, placement_step=None))
    apart = {frozenset((bot_id(1), bot_id(2))), frozenset((bot_id(1), bot_id(4)))}
    met: set[frozenset[str]] = set()
    for _ in range(60):
        pairing = await ladder.schedule(SchedulePairingCommand("one"))
        assert pairing is not None
        met.add(frozenset(pairing.bots))
        await ladder.play(pairing, 0, DRAW)
        await ladder.play(pairing, 1, DRAW)
    assert not met & apart
    assert frozenset((bot_id(2), bot_id(4))) in met  # related to A, not to each other


async def test_scheduling_the_pairing_is_the_asking_instances():
    ladder = Ladder()
    pairing = await ladder.schedule(SchedulePairingCommand("host-1:8080"))
    assert pairing is not None and pairing.instance == "host-1:8080"
    assert [p.instance for p in await ladder.pairings.live()] == ["host-1:8080"]


async def test_the_built_ins_alone_play_nothing_until_an_upload_is_ranked():
    ladder = Ladder(builtins_alone=False)  # as the server schedules
    assert await ladder.schedule(SchedulePairingCommand("one")) is None
    assert ladder.lease.holder is None and ladder.lease.until_ms == 0  # not even asked
    await ladder.ranked(1)
    # someone asked: the ladder plays, built-ins among themselves too
    pairing = await ladder.schedule(SchedulePairingCommand("one"))
    assert pairing is not None and await ladder.pairings.live() == [pairing]


async def test_a_suspended_upload_alone_asks_for_no_ladder_match():
    ladder = Ladder(builtins_alone=False)
    bot = await ladder.ranked(1)
    await ladder.members.update(bot, lambda m: replace(m, suspended=True))
    assert await ladder.schedule(SchedulePairingCommand("one")) is None
    await ladder.resume(ResumeBotCommand(bot, KEY))
    assert await ladder.schedule(SchedulePairingCommand("one")) is not None


async def test_an_unranked_upload_stops_the_ladder_again():
    ladder = Ladder(builtins_alone=False)
    bot = await ladder.ranked(1)
    await ladder.unrank(UnrankBotCommand(bot, KEY))
    assert await ladder.schedule(SchedulePairingCommand("one")) is None


async def test_the_lease_one_scheduler_at_a_time():
    ladder = Ladder()
    assert await ladder.lease.acquire("elsewhere", ladder.clock.now_ms(), LEASE_MS)
    assert await ladder.schedule(SchedulePairingCommand("one")) is None
    assert await ladder.pairings.live() == []
    with pytest.raises(LadderBusy):
        await ladder.rebuild(RebuildLadderCommand("cli"))
    ladder.clock.advance(LEASE_MS)  # the holder died: its lease runs out
    assert await ladder.schedule(SchedulePairingCommand("one")) is not None
    assert ladder.lease.holder is None  # released after choosing


# --- Whole history --------------------------------------------------------------------


async def _busy_history(ladder: Ladder, pairings: int) -> None:
    outcomes = [WIN, LOSS, DRAW, failed(Side.P1), failed(Side.P2), ABANDONED]
    for _ in range(pairings):
        pairing = await ladder.schedule(SchedulePairingCommand("one"))
        assert pairing is not None
        for index in (0, 1):
            await ladder.play(pairing, index, ladder.rng.choice(outcomes))
        for live in await ladder.pairings.live():  # a replay: play it as two draws
            await ladder.play(live, 0, DRAW)
            await ladder.play(live, 1, DRAW)
        for member in await ladder.members.members():
            if member.suspended:
                await ladder.resume(ResumeBotCommand(member.bot, KEY))


async def test_whole_history_rebuild_gives_the_live_table_twice():
    ladder = Ladder(seed=7)
    for n in range(3):
        await ladder.ranked(n)
    await _busy_history(ladder, 40)
    live = await ladder.show()
    first = await ladder.rebuild(RebuildLadderCommand("cli"))
    second = await ladder.rebuild(RebuildLadderCommand("cli"))
    assert first.results == len(ladder.results.by_match) > 40
    for rows in (first.table, second.table):
        assert [row.bot for row in rows] == [row.bot for row in live]
        for row, shown in zip(rows, live, strict=True):
            assert row.mu == pytest.approx(shown.mu, abs=1e-9)
            assert row.sigma == pytest.approx(shown.sigma, abs=1e-9)
            assert (row.wins, row.draws, row.losses) == (shown.wins, shown.draws, shown.losses)


class RacedStandings(MemoryStandings):
    """A store where another writer gets in once, just before this one's first write."""

    def __init__(self, results) -> None:
        super().__init__(results)
        self.other_writer = None

    async def replace(self, folded, *, expected, adding=None):
        writer, self.other_writer = self.other_writer, None
        if writer is not None:
            await writer()
        return await super().replace(folded, expected=expected, adding=adding)


async def test_whole_history_a_writer_that_loses_the_race_folds_again():
    """Two instances record the two matches of a pairing at once: the one whose write
    comes second sees the other's, and neither result is lost."""
    ladder = Ladder()
    ladder.standings = RacedStandings(ladder.results)
    ladder.record = RecordLadderResult(
        ladder.results, ladder.standings, ladder.members, ladder.pairings, ladder.roster,
        ladder.clock, ladder.rng,
    )
    bot = await ladder.ranked(1)
    pairing = await ladder.open(bot, BUILTINS[0])
    other_instance = RecordLadderResult(
        ladder.results, ladder.standings, ladder.members, ladder.pairings, ladder.roster,
        ladder.clock, random.Random(2),
    )

    async def records_the_other_match() -> None:
        await other_instance(RecordLadderResultCommand(
            pairing.id, "0000BBBB", *pairing.seats(1), WIN, ladder.clock.now_ms() + 5_000,
        ))

    ladder.standings.other_writer = records_the_other_match
    await ladder.play(pairing, 0, WIN)
    assert ladder.standing(bot).games == 2 and ladder.standing(bot).wins == 1
    assert ladder.standings.stored.through.match_id == "0000BBBB"


# --- The rating behaves ---------------------------------------------------------------


async def test_rating_a_strong_stream_orders_a_over_b_over_c():
    """A always beats B, B always beats C: a few pairings put them in that order."""
    ladder = Ladder()
    a, b, c = [await ladder.ranked(n, key=f"{n:032x}") for n in range(3)]
    for _ in range(4):
        await ladder.pairing(a, b, (True, True))
        await ladder.pairing(b, c, (True, True))
    table = [row.bot for row in await ladder.show() if row.bot in (a, b, c)]
    assert table == [a, b, c]
    ordinals = [ladder.standing(bot).rating.ordinal for bot in (a, b, c)]
    assert ordinals[0] > ordinals[1] > ordinals[2]
