"""The ladder's rules (spec B8), one test per rule, on the pure domain."""

from __future__ import annotations

import random

import pytest
from openskill.models import PlackettLuce

from noitu.adapters.arena.builtin import BUILTIN_SOURCES
from noitu.domain.arena.board import Side
from noitu.domain.arena.failure import FailureCode
from noitu.domain.arena.ladder.members import (
    FAILURES_TO_SUSPEND,
    MAX_RANKED_PER_OWNER,
    Member,
    address_digest,
    founding_members,
    related,
)
from noitu.domain.arena.ladder.pairing import Pairing, PairingEnd
from noitu.domain.arena.ladder.placement import placement_opponent, step_after
from noitu.domain.arena.ladder.rating import FIRST_RATING, MODEL, Rating, rate_match
from noitu.domain.arena.ladder.results import LadderResult, failed_side, is_rated
from noitu.domain.arena.ladder.scheduling import (
    NEAREST,
    Contender,
    choose_pairing,
    scheduling_order,
)
from noitu.domain.arena.ladder.standings import OutOfOrder, Standing, Standings, standings_from
from noitu.domain.arena.ladder.table import ladder_table
from noitu.domain.arena.match import EndReason, Failure, Result

BUILTINS = tuple(BUILTIN_SOURCES)  # the built-ins' one home, in their listed order
OWNER = "a" * 64


def result(match_id: str, p1: str, p2: str, winner: Side | None, at: int) -> LadderResult:
    return LadderResult(match_id, "pair", p1, p2, winner, at)


# --- Rating ---------------------------------------------------------------------------


def test_rating_uses_openskill_plackett_luce_with_the_package_defaults():
    assert isinstance(MODEL, PlackettLuce)
    assert (MODEL.mu, MODEL.sigma, MODEL.beta, MODEL.tau) == pytest.approx(
        (25.0, 25.0 / 3.0, 25.0 / 6.0, 25.0 / 300.0), abs=1e-12
    )
    assert not MODEL.limit_sigma and not MODEL.balance
    assert FIRST_RATING == Rating(25.0, 25.0 / 3.0)


def test_rating_ordinal_is_mu_minus_three_sigma_as_openskill_counts_it():
    rating = Rating(31.5, 4.25)
    assert rating.ordinal == pytest.approx(31.5 - 3 * 4.25)
    assert rating.ordinal == pytest.approx(MODEL.rating(31.5, 4.25).ordinal())


def test_rating_a_win_moves_the_winner_up_and_the_loser_down_by_the_same():
    won, lost = rate_match(FIRST_RATING, FIRST_RATING, Side.P1)
    assert won.mu > 25.0 > lost.mu
    assert won.mu - 25.0 == pytest.approx(25.0 - lost.mu)
    assert won.sigma < FIRST_RATING.sigma and lost.sigma < FIRST_RATING.sigma
    lost2, won2 = rate_match(FIRST_RATING, FIRST_RATING, Side.P2)
    assert (won2, lost2) == (won, lost)


def test_rating_a_draw_is_a_tie_between_two_teams_of_one():
    strong, weak = Rating(30.0, 3.0), Rating(20.0, 3.0)
    after_strong, after_weak = rate_match(strong, weak, None)
    expected = MODEL.rate([[MODEL.rating(30.0, 3.0)], [MODEL.rating(20.0, 3.0)]], ranks=[0, 0])
    assert after_strong.mu == pytest.approx(expected[0][0].mu)
    assert after_weak.mu == pytest.approx(expected[1][0].mu)
    assert after_strong.mu < 30.0 and after_weak.mu > 20.0


# --- What is rated --------------------------------------------------------------------


def test_what_is_rated_a_finished_match_a_win_or_a_draw():
    assert is_rated(Result(Side.P1, EndReason.BASE_CAPTURED, 40))
    assert is_rated(Result(None, EndReason.TURN_LIMIT, 200))


def test_what_is_rated_a_bots_failure_is_a_loss_for_that_bot():
    failed = Result(Side.P2, EndReason.BOT_FAILED, 3, Failure(Side.P1, FailureCode.TIMEOUT, "2,000 ms"))
    assert is_rated(failed) and failed_side(failed) is Side.P1


def test_what_is_rated_not_abandoned_matches():
    abandoned = Result(None, EndReason.ABANDONED, 17)
    assert not is_rated(abandoned) and failed_side(abandoned) is None


def test_what_is_rated_not_a_start_failed_of_a_built_bot():
    spoilt = Result(
        Side.P1, EndReason.BOT_FAILED, 0, Failure(Side.P2, FailureCode.START_FAILED, "bwrap")
    )
    assert not is_rated(spoilt) and failed_side(spoilt) is None


def test_what_is_rated_a_pairing_with_an_unrated_match_is_played_again():
    pairing = Pairing("p", 7, "a", "b", placement=False, started_ms=0)
    pairing = pairing.with_end(PairingEnd("m1", rated=True, winner="a"))
    assert not pairing.over and not pairing.to_replay
    pairing = pairing.with_end(PairingEnd("m2", rated=False, winner=None))
    assert pairing.over and pairing.to_replay
    whole = Pairing("q", 7, "a", "b", False, 0, (PairingEnd("m1", True, "a"),))
    assert not whole.with_end(PairingEnd("m2", True, None)).to_replay


# --- Pairings -------------------------------------------------------------------------


def test_pairing_two_matches_same_seed_sides_swapped():
    pairing = Pairing("p", 99, "a", "b", placement=False, started_ms=0)
    assert pairing.seats(0) == ("a", "b") and pairing.seats(1) == ("b", "a")


def test_pairing_a_match_told_twice_counts_once():
    pairing = Pairing("p", 1, "a", "b", False, 0).with_end(PairingEnd("m1", True, "a"))
    assert pairing.with_end(PairingEnd("m1", True, "a")) == pairing


# --- Whole history --------------------------------------------------------------------


def _history(count: int, seed: int = 5) -> list[LadderResult]:
    rng = random.Random(seed)
    bots = ["a", "b", "c", "d", *BUILTINS]
    results = []
    for index in range(count):
        p1, p2 = rng.sample(bots, 2)
        winner = rng.choice([Side.P1, Side.P2, None])
        results.append(result(f"{index:08X}", p1, p2, winner, 1_000 + index // 3))
    return results


def test_whole_history_rebuilding_twice_gives_the_same_table():
    results = _history(300)
    members = [*founding_members(BUILTINS), *(Member(b, OWNER, 10) for b in "abcd")]
    first = ladder_table(members, standings_from(results))
    shuffled = results[:]
    random.Random(1).shuffle(shuffled)
    second = ladder_table(members, standings_from(shuffled))
    assert [row.bot for row in first] == [row.bot for row in second]
    for one, two in zip(first, second, strict=True):
        assert one.mu == pytest.approx(two.mu, abs=1e-9)
        assert one.sigma == pytest.approx(two.sigma, abs=1e-9)
        assert (one.games, one.wins, one.draws, one.losses) == (
            two.games, two.wins, two.draws, two.losses,
        )


def test_whole_history_is_the_live_fold_one_result_at_a_time():
    results = _history(120)
    live = Standings()
    for one in sorted(results, key=lambda r: r.key):
        live = live.after(one)
    rebuilt = standings_from(results)
    assert live.through == rebuilt.through
    for bot, standing in rebuilt.by_bot.items():
        assert live.of(bot).rating.mu == pytest.approx(standing.rating.mu, abs=1e-9)
        assert live.of(bot).rating.sigma == pytest.approx(standing.rating.sigma, abs=1e-9)


def test_whole_history_orders_by_end_time_then_match_id():
    # Same end time: match id decides, whatever order they were stored in.
    one = result("0000000B", "a", "b", Side.P1, 50)
    two = result("0000000A", "a", "b", Side.P2, 50)
    three = result("00000001", "a", "b", Side.P1, 60)
    expected = Standings().after(two).after(one).after(three)
    assert standings_from([three, one, two]) == expected
    with pytest.raises(OutOfOrder):
        Standings().after(one).after(two)


def test_whole_history_counts_wins_draws_losses_and_the_last_game():
    standings = standings_from([
        result("00000001", "a", "b", Side.P1, 10),
        result("00000002", "b", "a", None, 20),
        result("00000003", "b", "a", Side.P1, 30),
    ])
    a = standings.of("a")
    assert (a.games, a.wins, a.draws, a.losses, a.last_game_ms) == (3, 1, 1, 1, 30)
    assert standings.of("never") == Standing()


# --- The table ------------------------------------------------------------------------


def test_table_orders_by_ordinal():
    # a: μ 30, σ 2 → 24; b: μ 40, σ 5 → 25; c: μ 35, σ 1 → 32. A higher μ alone is not enough.
    standings = Standings({
        "a": Standing(Rating(30, 2), 5), "b": Standing(Rating(40, 5), 5),
        "c": Standing(Rating(35, 1), 5),
    })
    members = [Member("a", OWNER, 1), Member("b", OWNER, 2), Member("c", OWNER, 3)]
    rows = ladder_table(members, standings)
    assert [(r.rank, r.bot) for r in rows] == [(1, "c"), (2, "b"), (3, "a")]
    assert [r.ordinal for r in rows] == pytest.approx([32.0, 25.0, 24.0])


def test_table_ties_by_more_games_then_the_older_bot():
    same = Rating(26.0, 2.0)
    standings = Standings({
        "young": Standing(same, wins=4), "old": Standing(same, wins=4),
        "busy": Standing(same, wins=9),
    })
    members = [Member("young", OWNER, 200), Member("old", OWNER, 100), Member("busy", OWNER, 300)]
    assert [r.bot for r in ladder_table(members, standings)] == ["busy", "old", "young"]


def test_table_rows_show_rating_record_last_game_and_suspension():
    standings = standings_from([result("00000001", "a", "random", Side.P2, 77)])
    members = [*founding_members(BUILTINS), Member("a", OWNER, 5, suspended=True)]
    row = next(r for r in ladder_table(members, standings) if r.bot == "a")
    rating = standings.of("a").rating
    assert (row.mu, row.sigma, row.ordinal) == (rating.mu, rating.sigma, rating.ordinal)
    assert (row.games, row.wins, row.draws, row.losses, row.last_game_ms) == (1, 0, 0, 1, 77)
    assert row.suspended and not row.builtin


# --- Entry ----------------------------------------------------------------------------


def test_entry_at_most_three_ranked_bots_per_owner():
    # The stores check it in the same write that ranks (RankBot passes this limit).
    assert MAX_RANKED_PER_OWNER == 3


def test_entry_the_builtins_are_members_from_the_start():
    founders = founding_members(BUILTINS)
    assert [m.bot for m in founders] == list(BUILTINS)
    assert all(m.builtin and m.owner is None and m.placement_step is None for m in founders)
    table = ladder_table(founders, Standings())
    assert all(r.mu == FIRST_RATING.mu and r.games == 0 for r in table)


def test_an_empty_ladder_shows_the_builtins_strongest_first():
    # Issue 30: all equal and as old as the server, they were shown as listed, which
    # put `random` at #1. Listed weakest first (placement's order), a tie among them
    # goes to the stronger.
    assert list(BUILTINS) == ["random", "tactical", "strong"]
    table = ladder_table(founding_members(BUILTINS), Standings())
    assert [(r.rank, r.bot) for r in table] == [(1, "strong"), (2, "tactical"), (3, "random")]
    # an uploaded bot that never played comes after them (the older bot wins a tie)...
    newcomer = Member("n", OWNER, 5)
    table = ladder_table([*founding_members(BUILTINS), newcomer], Standings())
    assert [r.bot for r in table] == ["strong", "tactical", "random", "n"]
    # ...and games decide as soon as they exist: one win puts random first
    played = standings_from([result("00000001", "random", "strong", Side.P1, 3)])
    assert [r.bot for r in ladder_table(founding_members(BUILTINS), played)] == [
        "random", "tactical", "strong",
    ]


# --- Failures -------------------------------------------------------------------------


def test_suspension_three_failed_ladder_matches_in_a_row():
    member = Member("x", OWNER, 1)
    for _ in range(FAILURES_TO_SUSPEND - 1):
        member = member.after_match(failed=True)
    assert not member.suspended and member.failures_in_row == 2
    member = member.after_match(failed=True)
    assert member.suspended and FAILURES_TO_SUSPEND == 3


def test_suspension_a_match_not_failed_resets_the_count():
    member = Member("x", OWNER, 1).after_match(True).after_match(True).after_match(False)
    assert member.failures_in_row == 0
    assert not member.after_match(True).after_match(True).suspended


def test_suspension_resume_resets_the_count():
    member = Member("x", OWNER, 1, failures_in_row=3, suspended=True).resumed()
    assert not member.suspended and member.failures_in_row == 0
    assert not member.after_match(True).suspended


def test_suspension_never_suspends_a_builtin():
    member = founding_members(BUILTINS)[0]
    for _ in range(5):
        member = member.after_match(failed=True)
    assert not member.suspended and member.failures_in_row == 5


def test_suspension_a_suspended_bot_stays_on_the_table():
    members = [Member("x", OWNER, 1, failures_in_row=3, suspended=True)]
    standings = standings_from([result("00000001", "x", "random", Side.P1, 3)])
    (row,) = ladder_table(members, standings)
    assert row.suspended and row.games == 1 and row.mu > FIRST_RATING.mu


# --- Placement ------------------------------------------------------------------------


def _placement(step: int | None, wins: int, ends: int = 2, rated: bool = True) -> int | None:
    newcomer = Member("new", OWNER, 1, placement_step=step)
    opponent = BUILTINS[step or 0]
    outcomes = ["new"] * wins + [opponent] * (ends - wins)
    pairing = Pairing("p", 1, "new", opponent, placement=True, started_ms=0)
    for index, winner in enumerate(outcomes):
        pairing = pairing.with_end(
            PairingEnd(f"m{index}", rated or index == 0, winner if rated or index == 0 else None)
        )
    return step_after(newcomer, pairing, BUILTINS)


def test_placement_a_new_bot_meets_random_then_tactical_then_strong():
    newcomer = Member("new", OWNER, 1, placement_step=0)
    seen = []
    step: int | None = 0
    while step is not None:
        seen.append(placement_opponent(Member("new", OWNER, 1, placement_step=step), BUILTINS))
        step = _placement(step, wins=2)
    assert seen == list(BUILTINS)
    assert placement_opponent(newcomer, BUILTINS) == BUILTINS[0]


def test_placement_ends_at_one_one_or_worse():
    assert _placement(0, wins=1) is None
    assert _placement(1, wins=0) is None
    assert _placement(0, wins=2) == 1


def test_placement_a_replayed_pairing_keeps_the_step():
    assert _placement(1, wins=2, rated=False) == 1


# --- Scheduling -----------------------------------------------------------------------


def contender(
    bot: str, mu: float = 25.0, sigma: float = 5.0, games: int = 0, last: int | None = None,
    *, previous: str | None = None, suspended: bool = False, step: int | None = None,
    owner: str | None = None, address: str = "",
) -> Contender:
    """An uploaded bot has an owner of its own unless told (fair play keeps one owner's
    bots apart), and no ranking address unless told."""
    if bot in BUILTINS:
        owner = None
    elif owner is None:
        owner = bot.encode().hex().ljust(64, "0")
    member = Member(
        bot, owner, 1, suspended=suspended, placement_step=step,
        ranked_from=address_digest(address),
    )
    return Contender(member, Standing(Rating(mu, sigma), wins=games, last_game_ms=last), previous)


def test_scheduling_picks_the_free_bot_with_the_highest_sigma():
    pool = [contender("a", sigma=3), contender("b", sigma=6), contender("c", sigma=9),
            contender("d", sigma=8)]
    choice = choose_pairing(pool, busy={"c"}, placement_order=BUILTINS, rng=random.Random(1))
    assert choice is not None and choice.bot == "d"


def test_scheduling_ties_fewest_games_then_longest_since_the_last():
    pool = [contender("a", games=5, last=10), contender("b", games=4, last=90),
            contender("c", games=4, last=30), contender("d", games=4, last=None)]
    assert [c.bot for c in scheduling_order(pool)] == ["d", "c", "b", "a"]


def test_scheduling_last_tie_an_uploaded_bot_before_the_builtins():
    pool = [*(contender(name, sigma=8.0) for name in BUILTINS), contender("mine", sigma=8.0)]
    assert scheduling_order(pool)[0].bot == "mine"
    assert [c.bot for c in scheduling_order(pool)[1:]] == list(BUILTINS)
    # Only a tie: a built-in with a higher σ, or with fewer games, still goes first.
    assert scheduling_order([contender("mine", sigma=8.0), contender(BUILTINS[0], sigma=8.5)])[0].bot == BUILTINS[0]
    assert scheduling_order([contender("mine", games=2), contender(BUILTINS[0], games=1)])[0].bot == BUILTINS[0]


def test_scheduling_skips_suspended_and_busy_bots():
    pool = [contender("a", sigma=9, suspended=True), contender("b", sigma=8),
            contender("c", sigma=7), contender("d", sigma=1)]
    for seed in range(30):
        choice = choose_pairing(pool, busy={"b"}, placement_order=BUILTINS, rng=random.Random(seed))
        assert choice is not None and choice.bot == "c" and choice.opponent == "d"


def test_scheduling_opponent_uniformly_among_the_six_nearest_in_ordinal():
    me = contender("me", mu=25.0, sigma=8.0)  # ordinal 1
    others = [contender(f"o{i}", mu=1.0 + 3.0 + i, sigma=1.0) for i in range(10)]  # 1 + i
    seen: dict[str, int] = {}
    for seed in range(600):
        choice = choose_pairing([me, *others], set(), BUILTINS, random.Random(seed))
        assert choice is not None and choice.bot == "me"
        seen[choice.opponent] = seen.get(choice.opponent, 0) + 1
    assert NEAREST == 6 and set(seen) == {f"o{i}" for i in range(6)}
    assert min(seen.values()) > 600 / NEAREST * 0.6  # each about a sixth


def test_scheduling_all_of_them_when_fewer_than_six():
    pool = [contender("me", sigma=9), contender("x"), contender("y", mu=90)]
    seen = {choose_pairing(pool, (), BUILTINS, random.Random(s)).opponent for s in range(60)}
    assert seen == {"x", "y"}


def test_scheduling_never_the_previous_pairings_opponent():
    pool = [contender("me", sigma=9, previous="x"), contender("x"), contender("y"),
            contender("z")]
    seen = {choose_pairing(pool, (), BUILTINS, random.Random(s)).opponent for s in range(60)}
    assert seen == {"y", "z"}


def test_scheduling_the_previous_opponent_when_it_is_the_only_one_free():
    pool = [contender("me", sigma=9, previous="x"), contender("x"), contender("y")]
    choice = choose_pairing(pool, {"y"}, BUILTINS, random.Random(0))
    assert choice is not None and (choice.bot, choice.opponent) == ("me", "x")


def test_fair_play_never_pairs_two_bots_of_one_owner_or_one_ranking_address():
    pool = [contender("me", sigma=9, owner=OWNER), contender("twin", owner=OWNER),
            contender("alias", address="198.51.100.4"), contender("other")]
    pool[0] = contender("me", sigma=9, owner=OWNER, address="198.51.100.4")
    seen = {choose_pairing(pool, (), BUILTINS, random.Random(s)).opponent for s in range(60)}
    assert seen == {"other"}
    # With only related bots free, the next bot in order plays instead.
    choice = choose_pairing(pool, {"other"}, BUILTINS, random.Random(0))
    assert choice is not None and choice.bot == "twin" and choice.opponent == "alias"
    assert related(pool[0].member, pool[1].member) and related(pool[0].member, pool[2].member)
    assert not related(pool[1].member, pool[2].member)
    # The built-ins have no owner and no address: never related to anyone.
    assert not any(related(m, n) for m in founding_members(BUILTINS) for n in founding_members(BUILTINS))


def test_fair_play_keeps_a_digest_of_the_ranking_address_not_the_address():
    digest = address_digest("203.0.113.7")
    assert digest is not None and "203.0.113.7" not in digest and len(digest) == 32
    assert digest == address_digest("203.0.113.7") != address_digest("203.0.113.8")
    assert address_digest("") is None


def test_scheduling_no_pairing_when_fewer_than_two_bots_are_free():
    pool = [contender("a"), contender("b"), contender("c", suspended=True)]
    assert choose_pairing(pool, {"a"}, BUILTINS, random.Random(0)) is None


def test_scheduling_a_new_bot_plays_its_placement_opponent():
    pool = [contender(name, sigma=2) for name in BUILTINS]
    pool.append(contender("new", sigma=9, step=1))
    choice = choose_pairing(pool, (), BUILTINS, random.Random(0))
    assert choice == type(choice)("new", BUILTINS[1], placement=True)


def test_scheduling_a_new_bot_waits_while_its_placement_opponent_is_busy():
    pool = [contender(name, sigma=2) for name in BUILTINS]
    pool += [contender("new", sigma=9, step=0), contender("other", sigma=5)]
    choice = choose_pairing(pool, {BUILTINS[0]}, BUILTINS, random.Random(0))
    assert choice is not None and choice.bot == "other" and choice.opponent != "new"


def test_scheduling_nobody_else_picks_a_bot_in_placement():
    pool = [contender("a", sigma=9), contender("new", sigma=1, step=0), contender("b", sigma=1)]
    seen = {choose_pairing(pool, (), BUILTINS, random.Random(s)).opponent for s in range(40)}
    assert seen == {"b"}
