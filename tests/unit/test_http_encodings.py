"""Which content codings a client takes, from its Accept-Encoding (RFC 9110, 12.5.3)."""

from __future__ import annotations

import gzip

import pytest

from noitu.adapters.http.encodings import accepted_codings, gzipped, takes


@pytest.mark.parametrize(
    ("header", "codings"),
    [
        (None, set()),
        ("", set()),
        ("gzip, deflate, br, zstd", {"gzip", "deflate", "br", "zstd"}),
        ("ZSTD;q=0.5 , gzip;q=1", {"zstd", "gzip"}),
        ("zstd;q=0, gzip", {"gzip"}),
        ("zstd; q=0.000, gzip;q=0.001", {"gzip"}),
        ("zstd;q=x", set()),
        ("*", {"*"}),
        (" , ,gzip", {"gzip"}),
    ],
)
def test_the_codings_a_header_takes(header: str | None, codings: set[str]) -> None:
    assert accepted_codings(header) == codings


def test_a_star_takes_every_coding() -> None:
    assert takes(frozenset({"*"}), "zstd") and not takes(frozenset({"gzip"}), "zstd")


async def test_gzipped_bytes_are_the_same_each_time_and_read_back() -> None:
    data = b'{"event":"sent"}\n' * 1000
    once, again = await gzipped(data), await gzipped(data)
    assert once == again and gzip.decompress(once) == data and len(once) < len(data) / 10
