"""A process's role (web, worker, cli) is given to the container by its entry point, not
carried by the settings; with the settings it decides how the process runs bots."""

from __future__ import annotations

import dataclasses

import pytest

from noitu.entrypoints.containers.support import match_slots, runner_choice
from noitu.entrypoints.role import WEB, Role
from noitu.entrypoints.settings import Settings, load_settings

SAQ = {
    "NOITU_ARENA_QUEUE": "saq",
    "NOITU_STORE": "redis",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
    "NOITU_ARENA_DATABASE": "postgresql://noitu@db.internal/noitu",
}


def test_the_settings_carry_no_role():
    fields = {field.name for field in dataclasses.fields(Settings)}
    assert not fields & {"arena_runner", "arena_matches", "arena_worker"}


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (lambda: Role("worker"), "a worker, and only a worker"),
        (lambda: Role("web", matches=2), "a worker, and only a worker"),
        (lambda: Role("cli", matches=2), "a worker, and only a worker"),
        (lambda: Role("web", no_sandbox=True), "only a CLI command"),
        (lambda: Role("worker", matches=2, no_sandbox=True), "only a CLI command"),
        (lambda: Role("daemon"), "unknown process role"),  # type: ignore[arg-type]
    ],
)
def test_a_role_that_cannot_be_is_refused(make, problem: str):
    with pytest.raises(ValueError, match=problem):
        make()


@pytest.mark.parametrize(
    ("env", "role", "choice"),
    [
        ({}, WEB, "probe"),
        ({}, Role.worker(2), "probe"),
        ({}, Role.cli(), "probe"),
        ({}, Role.cli(no_sandbox=True), "direct"),
        # Several machines: a web instance plays and builds nothing; the workers do,
        # and an author's command plays here whatever queue the server uses.
        (SAQ, WEB, "direct"),
        (SAQ, Role.worker(2), "probe"),
        (SAQ, Role.cli(), "probe"),
        (SAQ, Role.cli(no_sandbox=True), "direct"),
        ({"MODULES": "noitu"}, WEB, "off"),
    ],
)
def test_how_a_process_runs_bots(env: dict[str, str], role: Role, choice: str):
    assert runner_choice(load_settings(env), role) == choice


def test_a_worker_plays_its_own_number_of_matches_and_others_the_machines():
    settings = load_settings({})
    assert match_slots(settings, Role.worker(7)) == 7
    assert match_slots(settings, WEB) == match_slots(settings, Role.cli()) >= 1
