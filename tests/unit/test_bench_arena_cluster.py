"""The pieces of `noitu bench arena-cluster` that decide what is measured: the client
address each room is played from (the server must count every room apart, spec B10),
the CPU read from /proc (the machine's, and each process's by the role it works for),
and the command's defaults (B9's figures)."""

from __future__ import annotations

import argparse
import ipaddress
import os

import pytest

from noitu.adapters.http.client_address import counted_address
from noitu.bench.arena_cluster import (
    busy_and_total,
    cpu_by_role,
    parse_process_stat,
    role_of,
)
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


def test_a_process_line_gives_its_name_parent_and_ticks() -> None:
    # A name may hold spaces and parentheses: it ends at the last ")".
    line = "4242 (noitu (x) y) S 4200 4242 4200 0 -1 4194560 10 0 0 0 70 30 9 1 20 0 3 0\n"
    assert parse_process_stat(line) == ("noitu (x) y", 4200, 100, 10)


TABLE = {
    1: ("init", 0, 0, 0),
    10: ("python", 1, 0, 0),  # the benchmark
    11: ("redis-server", 10, 0, 0),
    20: ("noitu", 10, 0, 0),  # a worker
    21: ("bwrap", 20, 0, 0),
    22: ("python3", 21, 0, 0),  # its bot
    30: ("postgres", 1, 0, 0),  # pg_ctl detached it
    31: ("postgres", 30, 0, 0),
    40: ("pytest", 1, 0, 0),
    50: ("postgres", 1, 0, 0),  # another PostgreSQL of the machine (a test suite's)
    51: ("redis-server", 40, 0, 0),
}
ROLES = {10: "benchmark client", 20: "workers and bots", 11: "redis-server", 30: "postgres"}


def test_a_process_works_for_its_nearest_named_ancestor() -> None:
    assert role_of(22, TABLE, ROLES) == "workers and bots"
    assert role_of(20, TABLE, ROLES) == "workers and bots"
    assert role_of(10, TABLE, ROLES) == "benchmark client"
    assert role_of(11, TABLE, ROLES) == "redis-server"
    assert role_of(31, TABLE, ROLES) == "postgres"
    assert role_of(40, TABLE, ROLES) == "other"
    # Only the cluster's own services: the same names elsewhere on the machine are not.
    assert role_of(50, TABLE, ROLES) == role_of(51, TABLE, ROLES) == "other"
    assert role_of(999, TABLE, ROLES) == "other"


def test_cpu_by_role_keeps_ended_bots_inside_the_role_only() -> None:
    tick = os.sysconf("SC_CLK_TCK")
    before = {
        20: ("noitu", 10, 5 * tick, 0),
        23: ("python3", 20, 0, 0),  # a bot that ends meanwhile
        40: ("pytest", 1, 7 * tick, 0),
    }
    after = {
        1: ("init", 0, 0, 0),
        10: ("python", 1, 0, 0),
        20: ("noitu", 10, 6 * tick, 2 * tick),  # +1 s itself, +2 s of the bot it reaped
        22: ("python3", 20, 1 * tick, 0),  # a bot started meanwhile
        40: ("pytest", 1, 8 * tick, 30 * tick),  # children reaped: not this window's
    }
    assert cpu_by_role(before, after, ROLES) == {
        "benchmark client": 0.0, "other": 1.0, "workers and bots": 4.0,
    }


def test_the_command_measures_b9s_figures_by_default() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["arena-cluster"])
    assert (args.matches, args.runs, args.latency_matches, args.json) == (40, 3, 20, False)
