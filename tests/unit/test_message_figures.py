"""What players read states the rules' own numbers: each message, page sentence and
page string that names a number of the rules says the one its home holds."""

from __future__ import annotations

import re
from importlib import resources

from noitu.adapters.arena.process import REPLY_TOO_LONG
from noitu.adapters.http.noitu.api import page_figures
from noitu.application.arena.ports import MAX_REPLY_CODE_POINTS
from noitu.application.noitu.rooms.errors import NotEnoughPlayers
from noitu.application.noitu.words.messages import UNFIT
from noitu.domain.noitu.additions import Unfit
from noitu.domain.noitu.room import RoomLimits
from noitu.domain.noitu.rules import MAX_CHAIN_WORDS, MIN_SYLLABLES

ASSETS = resources.files("noitu.assets")


def test_a_reported_word_of_one_syllable_is_told_the_rules_minimum() -> None:
    assert f"ít nhất {MIN_SYLLABLES} tiếng" in UNFIT[Unfit.ONE_SYLLABLE]


def test_a_room_started_alone_is_told_the_rooms_minimum() -> None:
    assert f"ít nhất {RoomLimits().min_players} người" in NotEnoughPlayers().message


def test_a_bots_overlong_reply_is_told_the_protocols_cap() -> None:
    assert f"{MAX_REPLY_CODE_POINTS:,}".replace(",", ".") + " ký tự" in REPLY_TOO_LONG


def test_the_rules_on_the_page_state_the_minimum_syllables_from_the_server() -> None:
    page = (ASSETS / "index.html").read_text("utf-8")
    assert 'ít nhất <span data-limit="min_syllables"></span> tiếng' in page
    assert page_figures(30_000)["min_syllables"] == MIN_SYLLABLES


def test_the_pages_strings_state_the_chain_cap_of_the_rules() -> None:
    strings = (ASSETS / "js" / "text.js").read_text("utf-8")
    said = re.findall(r"Chuỗi đã dài tới (\d+) từ", strings)
    assert len(said) == 2
    assert {int(n) for n in said} == {MAX_CHAIN_WORDS}
