"""GET /arena/api/config serves the facts the page shows from their one home (the
built-in bots, the match clock, every figure an author meets), and the page keeps no
copy of them: its words cover exactly the server's names and its numbers are filled in."""

from __future__ import annotations

import os
import re
from importlib import resources

from litestar.testing import AsyncTestClient

from noitu.adapters.arena.builtin import BUILTIN_SOURCES
from noitu.adapters.http.arena.config import author_figures
from noitu.application.arena.languages import LANGUAGES
from noitu.application.arena.match_clock import MATCH_CLOCK
from noitu.domain.arena.match import DEFAULT_TURN_LIMIT
from noitu.entrypoints.app import create_app
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import load_settings


def client() -> AsyncTestClient:
    container = Container()
    env = {"NOITU_ACCESS_LOG": "0", "NOITU_DATA_DIR": os.environ["NOITU_DATA_DIR"]}
    container.settings.override(load_settings(env))
    return AsyncTestClient(create_app(container))


def page_module(name: str) -> str:
    return (resources.files("noitu.assets") / "arena" / "js" / name).read_text("utf-8")


def object_keys(source: str, name: str) -> set[str]:
    """The keys of `export const NAME = { key: ..., ... };` in a page module."""
    found = re.search(r"export const " + name + r" = \{(.*?)\n\};", source, re.DOTALL)
    assert found, f"text.js has no {name}"
    return set(re.findall(r"^\s*([A-Za-z_][A-Za-z0-9_]*):", found.group(1), re.MULTILINE))


async def test_the_config_names_the_servers_built_in_bots_and_may_be_cached():
    async with client() as http:
        answer = await http.get("/arena/api/config")
    assert answer.status_code == 200
    assert answer.json()["builtins"] == list(BUILTIN_SOURCES)
    assert answer.headers["cache-control"] == "public, max-age=300"


async def test_every_built_in_bot_a_seat_accepts_is_in_the_config():
    async with client() as http:
        names = (await http.get("/arena/api/config")).json()["builtins"]
        for name in names:
            answer = await http.post(
                "/arena/api/rooms", json={"seat": {"kind": "builtin", "ref": name}}
            )
            assert answer.status_code == 201, answer.text
        refused = await http.post(
            "/arena/api/rooms", json={"seat": {"kind": "builtin", "ref": "nobody"}}
        )
    assert refused.status_code == 400


async def test_the_config_lists_every_language_of_the_table_with_its_suffixes():
    async with client() as http:
        languages = (await http.get("/arena/api/config")).json()["languages"]
    assert languages == [
        {"id": spec.language.value, "title": spec.title, "suffixes": list(spec.suffixes)}
        for spec in LANGUAGES.values()
    ]


def test_the_page_keeps_no_list_of_languages_or_suffixes_of_its_own():
    page = (resources.files("noitu.assets") / "arena" / "index.html").read_text("utf-8")
    scripts = "".join(page_module(name) for name in ("text.js", "bots.js", "seats.js"))
    for spec in LANGUAGES.values():
        for suffix in spec.suffixes:
            assert f'"{suffix}"' not in scripts
            assert f"<code>{suffix}</code>" not in page
    assert "accept=" not in page
    assert not re.search(r"\bLANGUAGES\b", scripts)


def test_the_pages_names_for_built_in_bots_cover_exactly_the_servers():
    assert object_keys(page_module("text.js"), "BUILTIN_NAMES") == set(BUILTIN_SOURCES)


def test_the_page_keeps_no_list_of_built_in_bots_of_its_own():
    for name in ("text.js", "seats.js"):
        assert not re.search(r"\bBUILTINS\b", page_module(name))


async def test_the_config_serves_the_match_clock_and_every_figure_an_author_meets():
    async with client() as http:
        figures = (await http.get("/arena/api/config")).json()["figures"]
    assert figures == author_figures()
    assert figures["first_reply_s"] == MATCH_CLOCK.first_reply_s
    assert figures["reply_s"] == MATCH_CLOCK.reply_s
    assert figures["person_turn_s"] * 1000 == MATCH_CLOCK.person_turn_ms
    assert figures["placement_s"] * 1000 == MATCH_CLOCK.placement_ms
    assert figures["turn_limit"] == MATCH_CLOCK.turn_limit == DEFAULT_TURN_LIMIT


def test_every_figure_the_page_marks_is_one_the_config_serves():
    page = (resources.files("noitu.assets") / "arena" / "index.html").read_text("utf-8")
    marked = re.findall(r'<span data-limit="([a-z_0-9]+)"></span>', page)
    assert marked, "the page marks no figure"
    assert set(marked) <= set(author_figures())


def test_the_pages_sentences_hold_no_figure_of_their_own():
    """A number next to a unit in the page's text is a copy of a server figure."""
    figure = re.compile(r"\d+(?:[.,]\d+)?\s*(?:giây|MB|MiB|KiB|CPU|lượt)\b")
    for text in (
        (resources.files("noitu.assets") / "arena" / "index.html").read_text("utf-8"),
        page_module("text.js"),
    ):
        assert figure.findall(text) == []
