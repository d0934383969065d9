"""The reports store's contract (spec B11) on memory, a SQLite file and Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from noitu.adapters.noitu.words.memory import InMemoryReports
from noitu.adapters.noitu.words.redis import RedisReports
from noitu.adapters.noitu.words.sqlite import SqliteReports
from noitu.adapters.redis.client import RedisLink
from noitu.application.noitu.words.report_ports import ReportsStore
from noitu.domain.noitu.reports import Filed, PendingWord, Report


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def new_reports(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Callable[[], ReportsStore]]:
    shared = InMemoryReports()
    files: list[SqliteReports] = []
    links: list[RedisLink] = []
    url = request.getfixturevalue("redis_url") if request.param == "redis" else ""

    def make() -> ReportsStore:
        if request.param == "memory":
            return shared
        if request.param == "sqlite":
            files.append(SqliteReports.in_data_dir(tmp_path))
            return files[-1]
        links.append(RedisLink.from_url(url))
        return RedisReports(links[-1])

    yield make
    for store in files:
        store.close()
    for link in links:
        await link.aclose()


def report(word: str, user: int = 7, at_ms: int = 1_000) -> Report:
    return Report(word, user, -100, at_ms)


async def test_reports_count_reporters_and_say_which_is_new(new_reports) -> None:
    store = new_reports()
    first = await store.file(report("trà sữa", 7, 1_000), 1, 20, 100)
    assert first.filed is Filed.PENDING and first.new
    assert first.pending == PendingWord("trà sữa", 1, 1_000, 1_000)
    again = await store.file(report("trà sữa", 7, 2_000), 1, 20, 100)
    assert not again.new and again.pending.reporters == 1
    other = await new_reports().file(report("trà sữa", 8, 3_000), 1, 20, 100)
    assert other.pending == PendingWord("trà sữa", 2, 1_000, 3_000)
    await store.file(report("tắc đường", 8, 4_000), 1, 20, 100)
    assert [p.word for p in await new_reports().pending()] == ["trà sữa", "tắc đường"]


async def test_the_daily_cap_is_per_user_and_day(new_reports) -> None:
    store = new_reports()
    for n in range(3):
        assert (await store.file(report(f"từ số{'a' * n}", 7), 1, 3, 100)).filed is Filed.PENDING
    assert (await store.file(report("mây trôi", 7), 1, 3, 100)).filed is Filed.TOO_MANY
    assert (await store.file(report("mây trôi", 8), 1, 3, 100)).filed is Filed.PENDING
    assert (await store.file(report("mây trôi", 7), 2, 3, 100)).filed is Filed.PENDING


async def test_past_the_pending_cap_the_oldest_single_report_goes(new_reports) -> None:
    store = new_reports()
    await store.file(report("rang ngô", 1), 1, 20, 2)
    await store.file(report("rang ngô", 2), 1, 20, 2)  # two reporters: kept
    await store.file(report("nợ công", 1), 1, 20, 2)
    await store.file(report("lọc nước", 1), 1, 20, 2)
    assert [p.word for p in await store.pending()] == ["rang ngô", "lọc nước"]


async def test_settling_rejects_and_a_rejected_word_is_not_stored_again(new_reports) -> None:
    store = new_reports()
    await store.file(report("điểm kém"), 1, 20, 100)
    await store.shown("điểm kém", 55, 9_000)
    settled = await store.settle("điểm kém", rejected=True)
    assert settled == PendingWord("điểm kém", 1, 1_000, 1_000, 55, 9_000)
    assert await store.pending() == []
    assert (await store.file(report("điểm kém", 9), 1, 20, 100)).filed is Filed.REJECTED
    assert await store.settle("điểm kém", rejected=False) is None
    assert (await store.file(report("điểm kém", 9), 1, 20, 100)).filed is Filed.PENDING
