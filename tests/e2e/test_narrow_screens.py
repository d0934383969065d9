"""Narrow screens: a 320 px phone, and a 360 px phone at 200% zoom (180 CSS pixels at
twice the pixel density, which is what the zoom amounts to). Nothing overflows
sideways, and words break only between syllables, never inside one.

A dictionary of long words (6 to 8 long syllables) makes every list wrap.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_harness import Game, OpenPage, Tokens
from playwright.sync_api import expect

from support.dictionaries import write
from support.process import ServerProcess

LONG_WORDS = """\
mở đầu\t1
đầu mối\t1
đầu tiên\t1
đầu óc\t2
đầu nghiêng ngả chuếnh choáng khuếch trương\t1\tdanh|một nghĩa khá dài để xem dòng chữ có tràn ra ngoài màn hình hẹp hay không
trương phình nghênh ngang huênh hoang khoác\t1\ttính|phình to ra một cách nặng nề
khoác lác nghênh ngang chuếnh choáng huênh hoang\t1\tđộng|nói khoác
khoác loác nghiêng ngả khuếch khoắng\t2
khoác vai nghiêng nghiêng\t3
"""
PLAYER_WORD = "đầu nghiêng ngả chuếnh choáng khuếch trương"
BOT_WORD = "trương phình nghênh ngang huênh hoang khoác"

# Every visible element of the page: inside the viewport sideways, and none whose
# content spills out of its own box (unless it clips on purpose).
OVERFLOW = """
() => {
  const width = document.documentElement.clientWidth;
  const problems = [];
  if (document.documentElement.scrollWidth > width) {
    problems.push("page scrolls sideways: " + document.documentElement.scrollWidth + " > " + width);
  }
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\\s+/).join(".") : "");
  for (const el of document.querySelectorAll(".app *")) {
    if (!el.getClientRects().length || el.closest(".visually-hidden")) continue;
    const style = getComputedStyle(el);
    const rect = el.getBoundingClientRect();
    if (rect.left < -0.5 || rect.right > width + 0.5) {
      problems.push(name(el) + " reaches " + Math.round(rect.left) + ".." + Math.round(rect.right) + " of " + width);
    }
    const clips = style.overflowX !== "visible";
    if (!clips && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) {
      problems.push(name(el) + " content " + el.scrollWidth + " > box " + el.clientWidth);
    }
  }
  return problems;
}
"""

# Each syllable of the words shown sits on one line: a line break falls only at a space.
BROKEN_SYLLABLES = """
() => {
  const broken = [];
  const selector = ".chain-word, .suggest-word, .bot-word-text, #current-syllable, .gloss";
  for (const el of document.querySelectorAll(selector)) {
    if (!el.getClientRects().length) continue;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent;
      for (const match of text.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
        if (tops.size > 1) broken.push(match[0] + " in “" + text + "”");
      }
    }
  }
  return broken;
}
"""

LINES_OF = "(el) => Math.round(el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight))"

SCREENS = {
    "320px": ({"width": 320, "height": 640}, 1),
    "200% zoom on 360px": ({"width": 180, "height": 370}, 2),
}


@pytest.fixture(scope="module")
def server_settings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder: Path = tmp_path_factory.mktemp("long-words")
    return {"NOITU_DICTIONARY": write(folder, LONG_WORDS)}


def check(game: Game, where: str) -> None:
    assert game.page.evaluate(OVERFLOW) == [], where
    assert game.page.evaluate(BROKEN_SYLLABLES) == [], where


@pytest.mark.parametrize("screen", list(SCREENS))
def test_nothing_overflows_and_words_break_between_syllables(
    open_page, server: ServerProcess, tokens: Tokens, screen: str
) -> None:
    viewport, scale = SCREENS[screen]
    opened: OpenPage = open_page(viewport, device_scale_factor=scale)
    game = Game(opened.page, server.base)

    game.open()
    game.expect_screen("notoken")
    check(game, "notoken")

    game.open(tokens.new())
    game.expect_screen("start")
    check(game, "start")

    game.start()
    check(game, "play, the opening")
    game.send(PLAYER_WORD)
    game.expect_bot(BOT_WORD)
    expect(game.by_id("current-syllable")).to_have_text("khoác")
    for word in (PLAYER_WORD, BOT_WORD):
        game.page.locator(f'#chain > li[data-word="{word}"] .meaning-toggle').click()
    expect(game.page.locator("#chain .meanings:visible")).to_have_count(2)
    check(game, "play, long words with their meanings open")
    if scale == 2:  # the long word does wrap here, so the check above saw real breaks
        long_word = game.page.locator(f'#chain > li[data-word="{PLAYER_WORD}"] .chain-word')
        assert long_word.evaluate(LINES_OF) >= 2

    game.give_up_twice()
    game.expect_end("lost", "gave_up")
    expect(game.page.locator("#suggestions li")).to_have_count(3)
    game.page.locator("#end-recap summary").click()
    expect(game.by_id("end-chain")).to_be_visible()
    game.page.locator(f'#end-chain > li[data-word="{PLAYER_WORD}"] .meaning-toggle').click()
    check(game, "end, with suggestions and the chain open")
