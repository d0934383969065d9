"""Nối từ's turn length has one home, the server's setting (`TurnClock` by default): the
page's source keeps no copy of it. The server writes it into the rules' `data-limit`
mark once, at start-up, and the page's scripts read it from there or from a view."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from noitu.adapters.http.assets import fill_marks
from noitu.adapters.http.noitu.api import page_figures

ASSETS = resources.files("noitu.assets")
MARKED_PAGE = '<p>Mỗi lượt có <span data-limit="turn_s" id="t">X</span> giây</p>'.encode()


def test_the_page_source_keeps_no_turn_length_of_its_own() -> None:
    page = (ASSETS / "index.html").read_text("utf-8")
    mark = re.search(r'<span data-limit="turn_s"[^>]*>(.*?)</span>', page)
    assert mark is not None, "index.html has no turn_s mark"
    assert mark.group(1) == "", "the server writes the figure; the file keeps none"
    scripts = {e.name: e.read_text("utf-8") for e in (ASSETS / "js").iterdir() if e.name.endswith(".js")}
    for name, source in scripts.items():
        assert not re.search(r"\b30_?000\b", source), name
        assert not re.search(r"turn_limit_ms,\s*[1-9]", source), name


def test_the_figures_round_the_turn_to_whole_seconds_as_the_script_does() -> None:
    # Half up, as Math.round, and at least 1.
    assert page_figures(30_000)["turn_s"] == 30
    assert page_figures(7_500)["turn_s"] == 8
    assert page_figures(7_499)["turn_s"] == 7
    assert page_figures(400)["turn_s"] == 1


def test_each_mark_gets_its_figure() -> None:
    page = MARKED_PAGE.replace(b">X<", b"><")
    assert fill_marks(page, {"turn_s": 5}) == MARKED_PAGE.replace(b">X<", b">5<")


@pytest.mark.parametrize(
    ("page", "figures"),
    [
        (b"<p>no mark</p>", {"turn_s": 5}),  # a figure the page does not show
        (b'<span data-limit="turn_s"></span>', {}),  # a mark left blank
        (b'<span data-limit="turn_s"></span><span data-limit="turn_s"></span>', {"turn_s": 5}),
        (b'<span data-limit="turn_s">30</span>', {"turn_s": 5}),  # a copy in the file
    ],
)
def test_a_page_whose_marks_are_not_its_figures_is_refused_at_start_up(
    page: bytes, figures: dict[str, int]
) -> None:
    with pytest.raises(RuntimeError):
        fill_marks(page, figures)
