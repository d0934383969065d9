"""Who is asking, by network address (spec B10): the socket's peer, or — only when the
peer is a reverse proxy the operator trusts (NOITU_TRUSTED_PROXY) — the last hop of
`X-Forwarded-For`, the address that proxy saw. Without a trusted proxy the header is
ignored: any client could write it. Loopback counts like any other address.

An IPv6 client is counted by its /64: one host usually holds a whole /64, so counting
single IPv6 addresses would let it pick a fresh one for every call.
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a hint only: the CLI builds the container without litestar
    from litestar.connection import ASGIConnection

FORWARDED_FOR = "x-forwarded-for"
IPV6_PREFIX = 64


def counted_address(text: str) -> str | None:
    """The address as counted (IPv4 as is, IPv6 as its /64), or None if not an IP."""
    try:
        address = ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address):
        mapped = address.ipv4_mapped
        if mapped is not None:
            return str(mapped)
        return str(ipaddress.IPv6Network((address, IPV6_PREFIX), strict=False))
    return str(address)


class ClientAddresses:
    def __init__(self, trusted_proxies: frozenset[str] = frozenset()) -> None:
        self._trusted = frozenset(
            str(ipaddress.ip_address(proxy)) for proxy in trusted_proxies
        )

    def of(self, connection: ASGIConnection) -> str:
        """The client's address as counted; "unknown" when the server cannot tell (a
        connection without a peer, e.g. a Unix socket) — all such count as one."""
        client = connection.scope.get("client")
        peer = client[0] if client else ""
        if self._trusted and _plain(peer) in self._trusted:
            hops = ",".join(connection.headers.getall(FORWARDED_FOR, [])).split(",")
            last = next((hop.strip() for hop in reversed(hops) if hop.strip()), "")
            forwarded = counted_address(last) if last else None
            if forwarded is not None:
                return forwarded
        return counted_address(peer) or "unknown"


def _plain(text: str) -> str:
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return ""
