"""The bot authors' guide (/bot-guide.html) in Chromium: an axe-core audit in light and
dark on a phone and a desktop, nothing sideways on narrow screens (long request lines
and wide tables scroll inside their own boxes), and a section for every entry of the
table of contents."""

from __future__ import annotations

import pytest
from arena_page import DESKTOP, PHONE
from e2e_harness import axe_violations

from support.process import ServerProcess

GUIDE = "/bot-guide.html"
SCREENS = {
    "phone": (PHONE, 1),
    "desktop": (DESKTOP, 1),
    "320px": ({"width": 320, "height": 640}, 1),
    "200% zoom on 360px": ({"width": 180, "height": 370}, 2),
}

# What sticks out of the page sideways: the page itself, or a box wider than the
# viewport that does not scroll its own content.
SIDEWAYS = """
() => {
  const width = document.documentElement.clientWidth;
  const problems = [];
  if (document.documentElement.scrollWidth > width) {
    problems.push("page scrolls sideways: " + document.documentElement.scrollWidth + " > " + width);
  }
  for (const el of document.querySelectorAll("main *, nav *, header *")) {
    if (!el.getClientRects().length) continue;
    const rect = el.getBoundingClientRect();
    if (rect.right <= width + 1) continue;
    let clipped = false;
    for (let up = el.parentElement; up; up = up.parentElement) {
      const overflow = getComputedStyle(up).overflowX;
      if (overflow === "auto" || overflow === "scroll" || overflow === "hidden") { clipped = true; break; }
    }
    if (!clipped) problems.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + " ends at " + Math.round(rect.right));
  }
  return problems.slice(0, 10);
}
"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("device", ["phone", "desktop"])
def test_the_guide_passes_axe(open_page, server: ServerProcess, device: str, scheme: str) -> None:
    viewport, scale = SCREENS[device]
    page = open_page(viewport, color_scheme=scheme, device_scale_factor=scale).page
    page.goto(server.base + GUIDE)
    assert axe_violations(page) == []


@pytest.mark.parametrize("screen", ["320px", "200% zoom on 360px"])
def test_nothing_in_the_guide_goes_sideways_on_narrow_screens(open_page, server: ServerProcess, screen: str) -> None:
    viewport, scale = SCREENS[screen]
    page = open_page(viewport, device_scale_factor=scale).page
    page.goto(server.base + GUIDE)
    assert page.evaluate(SIDEWAYS) == []


def test_every_link_of_the_table_of_contents_names_a_section_with_its_heading(
    open_page, server: ServerProcess
) -> None:
    page = open_page(PHONE).page
    page.goto(server.base + GUIDE)
    targets = page.eval_on_selector_all("nav.toc a", "links => links.map(a => a.getAttribute('href'))")
    assert "#ban-ghi" in targets and "#kiem-tra" in targets
    for target in targets:
        assert page.locator(f"section{target} > h2").is_visible(), target
