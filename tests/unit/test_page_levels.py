"""The levels a player can pick are the domain's `Difficulty`: the start screen's radio
buttons and the group room's bot menu offer exactly its values, and each value has a
policy in `make_opponents`, so adding a level cannot leave the page or the bots behind."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

from noitu.application.noitu.messages import BAD_DIFFICULTY
from noitu.domain.noitu.bots import make_opponents
from noitu.domain.noitu.opponent import DEFAULT_DIFFICULTY, Difficulty

PAGE = Path(__file__).resolve().parents[2] / "assets" / "index.html"


class LevelChoices(HTMLParser):
    """The start screen's `difficulty` radios and the room's `#room-bot-level` options."""

    def __init__(self) -> None:
        super().__init__()
        self.radios: list[str] = []
        self.checked: list[str] = []
        self.menu: list[str] = []
        self._in_menu = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "input" and found.get("name") == "difficulty":
            self.radios.append(found.get("value") or "")
            if "checked" in found:
                self.checked.append(found.get("value") or "")
        elif tag == "select":
            self._in_menu = found.get("id") == "room-bot-level"
        elif tag == "option" and self._in_menu:
            self.menu.append(found.get("value") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._in_menu = False


def choices() -> LevelChoices:
    parser = LevelChoices()
    parser.feed(PAGE.read_text(encoding="utf-8"))
    return parser


def test_the_start_screen_offers_every_level_once_the_default_checked() -> None:
    page = choices()
    assert page.radios == [level.value for level in Difficulty]
    assert page.checked == [DEFAULT_DIFFICULTY.value]


def test_the_room_bot_menu_offers_no_bot_then_every_level() -> None:
    assert choices().menu == ["", *(level.value for level in Difficulty)]


def test_every_level_has_its_policy() -> None:
    class NoIndex:
        pass

    assert set(make_opponents(NoIndex())) == set(Difficulty)  # type: ignore[arg-type]


def test_the_refusal_of_an_unknown_level_names_every_level() -> None:
    assert all(f"({level.value})" in BAD_DIFFICULTY for level in Difficulty)


class LevelLabels(HTMLParser):
    """The text of each level's radio label and of each bot menu option, by value."""

    def __init__(self) -> None:
        super().__init__()
        self.labels: dict[str, str] = {}
        self.options: dict[str, str] = {}
        self._into: tuple[dict[str, str], str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        target = found.get("for") or ""
        if tag == "label" and target.startswith("difficulty-"):
            self._into = (self.labels, target.removeprefix("difficulty-"))
        elif tag == "option":
            self._into = (self.options, found.get("value") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("label", "option"):
            self._into = None

    def handle_data(self, data: str) -> None:
        if self._into is not None:
            into, key = self._into
            into[key] = " ".join((into.get(key, "") + " " + data).split())


def test_hard_says_it_is_nearly_unbeatable_in_solo_and_in_rooms() -> None:
    page = LevelLabels()
    page.feed(PAGE.read_text(encoding="utf-8"))
    assert page.labels[Difficulty.HARD.value] == "Khó gần như bất bại"
    assert page.options[Difficulty.HARD.value] == "Máy khó — gần như bất bại"
