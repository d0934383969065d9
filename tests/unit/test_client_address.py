"""The client's address as the arena counts it (spec B10): the peer, or behind a
trusted proxy the last hop of X-Forwarded-For; IPv6 by its /64."""

from __future__ import annotations

from typing import Any

from litestar.datastructures import Headers

from noitu.adapters.http.client_address import ClientAddresses, counted_address


class Connection:
    """What ClientAddresses reads of a connection: its scope's peer and its headers."""

    def __init__(self, peer: str | None, *forwarded: str) -> None:
        self.scope: dict[str, Any] = {"client": (peer, 40000) if peer else None}
        self.headers = Headers([(b"x-forwarded-for", value.encode()) for value in forwarded])


def test_without_a_trusted_proxy_the_peer_counts_and_the_header_is_ignored():
    addresses = ClientAddresses()
    assert addresses.of(Connection("127.0.0.1", "203.0.113.9")) == "127.0.0.1"  # type: ignore[arg-type]
    assert addresses.of(Connection(None)) == "unknown"  # type: ignore[arg-type]


def test_behind_a_trusted_proxy_the_last_hop_counts():
    addresses = ClientAddresses(frozenset({"10.0.0.5"}))
    of = addresses.of
    assert of(Connection("10.0.0.5", "1.1.1.1, 203.0.113.9")) == "203.0.113.9"  # type: ignore[arg-type]
    assert of(Connection("10.0.0.5", "1.1.1.1", "203.0.113.7 ")) == "203.0.113.7"  # type: ignore[arg-type]
    # No header, or a last hop that is no address: the proxy's own.
    assert of(Connection("10.0.0.5")) == "10.0.0.5"  # type: ignore[arg-type]
    assert of(Connection("10.0.0.5", "203.0.113.9, evil")) == "10.0.0.5"  # type: ignore[arg-type]
    # Another peer is not trusted, whatever it writes.
    assert of(Connection("10.0.0.6", "203.0.113.9")) == "10.0.0.6"  # type: ignore[arg-type]


def test_ipv6_counts_by_its_64_and_a_mapped_ipv4_as_ipv4():
    assert counted_address("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64"
    assert counted_address("2001:db8:1:2:bbbb::7") == "2001:db8:1:2::/64"
    assert counted_address("::ffff:192.0.2.1") == "192.0.2.1"
    assert counted_address("[2001:db8::1]") == "2001:db8::/64"
    assert counted_address("not-an-address") is None
