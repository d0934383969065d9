"""Schemathesis against the served OpenAPI document: no request a client can send gets
a 5xx, and every answer matches what the document declares.

Bodies that are not JSON the schema could describe (nested 2,000 deep, huge numbers,
invalid UTF-8, lone surrogates) are sent by test_undecodable_bodies.py.

The arena's bot and room routes are fuzzed too, on a data directory of this module's own
(the app is built at import, before any fixture); matches the fuzzer makes never start a
bot process (the launcher refuses), so the run stays fast."""

from __future__ import annotations

import random
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from dependency_injector import providers
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from noitu.adapters.noitu.dictionary_file import lexicon_from_lines
from noitu.application.arena.ports import Artefact, ProcessFailure
from noitu.domain.arena.failure import FailureCode
from noitu.entrypoints.app import create_app
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import load_settings
from support.dictionaries import LITTLE

DATA_DIR = Path(tempfile.mkdtemp(prefix="noitu-fuzz-"))


class NoBots:
    """`BotLauncher` that starts nothing: every bot of a fuzzed match fails to start."""

    async def launch(self, artefact: Artefact) -> ProcessFailure:
        return ProcessFailure(FailureCode.START_FAILED, "no bots while fuzzing")


def _app():
    container = Container()
    env = {"NOITU_GAME_SECRET": "s" * 32, "NOITU_ACCESS_LOG": "0", "NOITU_DATA_DIR": str(DATA_DIR)}
    container.settings.override(load_settings(env))
    container.lexicon.override(lexicon_from_lines(LITTLE.splitlines()))
    container.rng.override(random.Random(3))
    container.arena_launcher.override(providers.Object(NoBots()))
    return create_app(container)


schema = schemathesis.openapi.from_asgi("/schema/openapi.json", _app())


@pytest.fixture(scope="module", autouse=True)
def _remove_data_dir() -> Iterator[None]:
    yield
    shutil.rmtree(DATA_DIR, ignore_errors=True)


def _integers_as_written(value: object) -> object:
    """JSON Schema counts 4.0 as an integer; the arena does not (spec B3: an integer has
    no fraction and no exponent, and every body is decoded strictly). A client writes a
    row as 4, so the generated body is sent so."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _integers_as_written(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_integers_as_written(item) for item in value]
    return value


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@schema.parametrize()
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_server_errors_and_answers_match_the_schema(case):
    if isinstance(case.body, (dict, list)):
        case.body = _integers_as_written(case.body)
    if case.method == "POST" and case.path == "/arena/api/bots":
        # Which file names and contents build cannot be said in the schema: a
        # schema-valid upload is mostly refused (unsupported_file, bad_file). Every
        # other check holds, 5xx included.
        case.call_and_validate(excluded_checks=[positive_data_acceptance])
    else:
        case.call_and_validate()
