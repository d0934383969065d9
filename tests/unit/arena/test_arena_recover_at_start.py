"""RecoverAtStart with hand-written fakes: what a previous run left is finished or
removed, and the result says how much."""

from __future__ import annotations

from dataclasses import dataclass, field

from noitu.application.arena.recover_at_start import RecoverAtStart, Recovered
from noitu.domain.arena.ladder.pairing import Pairing
from support.fakes import FakeClock
from support.ladder import MemoryPairings

NOW = 1_700_000_000_000
MINUTE = 60_000


@dataclass
class Matches:
    """Live matches by id, each with the instance running it."""

    live: dict[str, str]
    finished: dict[str, int] = field(default_factory=dict)

    async def abandon_live(self, now_ms: int, runner: str | None = None) -> int:
        ended = [m for m, by in self.live.items() if runner is None or by == runner]
        for match_id in ended:
            del self.live[match_id]
            self.finished[match_id] = now_ms
        return len(ended)


@dataclass
class Bots:
    rows: set[str]

    async def get_bot(self, bot_id: str) -> object | None:
        return {"id": bot_id} if bot_id in self.rows else None


@dataclass
class Files:
    """Bots' files by id (their modification time), and temporary leftovers."""

    bots: dict[str, int]
    leftovers: int = 0

    async def sweep(self) -> int:
        swept, self.leftovers = self.leftovers, 0
        return swept

    async def stored_bot_ids(self) -> set[str]:
        return set(self.bots)

    async def bot_files_modified_ms(self, bot_id: str) -> int | None:
        return self.bots.get(bot_id)

    async def delete_bot_files(self, bot_id: str) -> None:
        self.bots.pop(bot_id, None)


@dataclass
class FailedBuilds:
    waiting: int

    async def __call__(self) -> int:
        removed, self.waiting = self.waiting, 0
        return removed


@dataclass
class Cgroups:
    empty: int

    def remove_empty(self) -> int:
        removed, self.empty = self.empty, 0
        return removed


def recover(
    matches: Matches, bots: Bots, files: Files, *, cgroups: Cgroups | None = None,
    failed: int = 0, runner: str | None = None, orphan_min_age_ms: int = 0,
    pairings: MemoryPairings | None = None,
) -> RecoverAtStart:
    return RecoverAtStart(
        matches, pairings if pairings is not None else MemoryPairings(), bots, files,
        FailedBuilds(failed), cgroups, FakeClock(NOW),
        runner=runner, orphan_min_age_ms=orphan_min_age_ms,
    )


async def test_a_live_match_is_marked_abandoned_at_the_start_time() -> None:
    matches = Matches({"M1": "a"})
    result = await recover(matches, Bots(set()), Files({}))()
    assert matches.live == {}
    assert matches.finished == {"M1": NOW}
    assert result.abandoned == 1


async def test_on_a_shared_database_only_this_instances_matches_are_abandoned() -> None:
    matches = Matches({"M1": "a", "M2": "b"})
    result = await recover(matches, Bots(set()), Files({}), runner="a")()
    assert matches.live == {"M2": "b"}
    assert result.abandoned == 1


async def test_files_without_a_row_are_removed_and_those_with_one_kept() -> None:
    files = Files({"orphan": NOW, "kept": NOW})
    result = await recover(Matches({}), Bots({"kept"}), files)()
    assert set(files.bots) == {"kept"}
    assert result.orphans == 1


async def test_young_orphans_are_kept_when_another_instance_may_be_uploading() -> None:
    files = Files({"young": NOW - MINUTE, "old": NOW - 11 * MINUTE})
    result = await recover(Matches({}), Bots(set()), files, orphan_min_age_ms=10 * MINUTE)()
    assert set(files.bots) == {"young"}
    assert result.orphans == 1


async def test_stale_cgroups_are_swept_when_there_is_a_sandbox() -> None:
    cgroups = Cgroups(empty=3)
    result = await recover(Matches({}), Bots(set()), Files({}), cgroups=cgroups)()
    assert cgroups.empty == 0
    assert result.stale_cgroups == 3


async def test_the_result_counts_everything_put_right() -> None:
    files = Files({"orphan": NOW}, leftovers=2)
    result = await recover(
        Matches({"M1": "a", "M2": "a"}), Bots(set()), files, cgroups=Cgroups(1), failed=4
    )()
    assert result == Recovered(
        abandoned=2, pairings=0, swept=2, orphans=1, failed_builds=4, stale_cgroups=1
    )


async def test_a_clean_start_recovers_nothing_and_a_second_run_finds_nothing_left() -> None:
    matches, files, cgroups = Matches({"M1": "a"}), Files({"orphan": NOW}, 1), Cgroups(1)
    use_case = recover(matches, Bots(set()), files, cgroups=cgroups, failed=1)
    await use_case()
    assert await use_case() == Recovered(0, 0, 0, 0, 0, 0)


def live_pairing(number: int, first: str, second: str, instance: str) -> Pairing:
    return Pairing(f"{number:016x}", number, first, second, False, NOW - MINUTE, instance=instance)


async def test_this_instances_ladder_pairings_end_and_free_their_bots_at_once() -> None:
    pairings = MemoryPairings()
    for pairing in (
        live_pairing(1, "random", "tactical", "a"),
        live_pairing(2, "strong", "00000000000000aa", "b"),
    ):
        assert await pairings.open(pairing)
    result = await recover(Matches({}), Bots(set()), Files({}), runner="a", pairings=pairings)()
    assert result.pairings == 1
    # another instance's pairing is left to it; this one's bots may play again now
    assert [pairing.id for pairing in await pairings.live()] == [f"{2:016x}"]
    assert await pairings.open(live_pairing(3, "tactical", "random", "a"))
    assert await pairings.previous_opponents() == {}  # the dropped pairing never finished


async def test_the_databases_only_server_ends_every_live_pairing() -> None:
    pairings = MemoryPairings()
    assert await pairings.open(live_pairing(1, "random", "tactical", "a"))
    assert await pairings.open(live_pairing(2, "strong", "00000000000000aa", ""))
    result = await recover(Matches({}), Bots(set()), Files({}), pairings=pairings)()
    assert result.pairings == 2 and await pairings.live() == []
