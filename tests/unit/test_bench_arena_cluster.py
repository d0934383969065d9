"""The pieces of `noitu bench arena-cluster` that decide what is measured: the client
address each room is played from (the server must count every room apart, spec B10),
the machine's busy CPU read from /proc/stat, and the command's defaults (B9's figures)."""

from __future__ import annotations

import argparse
import ipaddress

import pytest

from noitu.adapters.http.client_address import counted_address
from noitu.bench.arena_cluster import busy_and_total
from noitu.bench.arena_rooms import ADDRESS_SPACE, room_address
from noitu.bench.cli import add_arguments


def test_every_room_is_counted_as_a_visitor_of_its_own() -> None:
    addresses = [room_address(i) for i in range(70_000)]  # past two bytes' worth
    counted = {counted_address(address) for address in addresses}
    assert len(counted) == len(addresses)
    for address in addresses[:3] + addresses[-3:]:
        parsed = ipaddress.ip_address(address)
        assert parsed.version == 4 and parsed.is_private
        assert parsed != ipaddress.ip_address("10.0.0.0")  # the network's own address
    assert room_address(ADDRESS_SPACE - 2) == "10.255.255.255"


def test_rooms_past_the_address_space_are_refused() -> None:
    with pytest.raises(ValueError):
        room_address(ADDRESS_SPACE - 1)
    with pytest.raises(ValueError):
        room_address(-1)


def test_busy_time_leaves_out_idle_and_iowait() -> None:
    stat = (
        "cpu  100 5 50 800 40 3 2 10 7 0\n"
        "cpu0 50 2 25 400 20 1 1 5 7 0\n"
        "intr 12345\n"
    )
    # user nice system idle iowait irq softirq steal; guest is inside user already
    assert busy_and_total(stat) == (100 + 5 + 50 + 3 + 2 + 10, 1010)


def test_a_stat_without_the_machine_line_is_refused() -> None:
    with pytest.raises(ValueError):
        busy_and_total("cpu0 1 2 3 4 5 6 7 8\n")


def test_the_command_measures_b9s_figures_by_default() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["arena-cluster"])
    assert (args.matches, args.runs, args.latency_matches, args.json) == (40, 3, 20, False)
