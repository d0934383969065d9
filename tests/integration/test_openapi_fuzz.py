"""Schemathesis against the served OpenAPI document: no request a client can send gets
a 5xx, and every answer matches what the document declares.

Bodies that are not JSON the schema could describe (nested 2,000 deep, huge numbers,
invalid UTF-8, lone surrogates) are sent by test_undecodable_bodies.py."""

from __future__ import annotations

import random

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from noitu.adapters.dictionary_file import lexicon_from_lines
from noitu.entrypoints.app import create_app
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import load_settings
from support.dictionaries import LITTLE


def _app():
    container = Container()
    container.settings.override(load_settings({"NOITU_GAME_SECRET": "s" * 32, "NOITU_ACCESS_LOG": "0"}))
    container.lexicon.override(lexicon_from_lines(LITTLE.splitlines()))
    container.rng.override(random.Random(3))
    return create_app(container)


schema = schemathesis.openapi.from_asgi("/schema/openapi.json", _app())


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@schema.parametrize()
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_server_errors_and_answers_match_the_schema(case):
    case.call_and_validate()
