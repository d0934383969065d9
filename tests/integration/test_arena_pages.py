"""The arena's static pages: the bot guide, its style sheet and the sample bots, with
the same headers as nối từ's page; nothing outside the shipped files is served."""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from importlib import resources

from litestar.testing import AsyncTestClient

from noitu.entrypoints.app import create_app
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import load_settings

CSP = (
    "default-src 'self'; script-src 'self' https://telegram.org; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'"
)


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.inline: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "href" in attrs:
            self.hrefs.append(attrs["href"])
        if tag == "script" or "style" in attrs or any(k.startswith("on") for k in attrs):
            self.inline.append(tag)


def client(env: dict[str, str] | None = None) -> AsyncTestClient:
    container = Container()
    # NOITU_DATA_DIR: the test's own, set by conftest's arena_data_dir.
    data = {"NOITU_DATA_DIR": os.environ["NOITU_DATA_DIR"]}
    container.settings.override(load_settings({"NOITU_ACCESS_LOG": "0", **data, **(env or {})}))
    return AsyncTestClient(create_app(container))


async def test_the_guide_its_style_and_every_linked_sample_are_served_with_the_page_headers():
    async with client() as http:
        page = await http.get("/bot-guide.html")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert page.headers["content-security-policy"] == CSP
        assert page.headers["referrer-policy"] == "no-referrer"
        assert "Viết bot cho Đấu bot" in page.text
        links = Links()
        links.feed(page.text)
        assert links.inline == []  # no script, no inline style or handler: the CSP holds
        local = sorted({h for h in links.hrefs if h.startswith("/assets/")})
        samples = [h for h in local if h.startswith("/assets/bot-examples/")]
        assert {s.rsplit("/", 1)[1] for s in samples} >= {"minimal.py", "minimal.cpp", "Main.java", "tactical.py"}
        for href in local:
            answer = await http.get(href)
            assert answer.status_code == 200, href
            assert answer.headers["x-content-type-options"] == "nosniff"
        sample = await http.get("/assets/bot-examples/minimal.py")
        shipped = (resources.files("noitu.assets") / "bot-examples" / "minimal.py").read_bytes()
        assert sample.content == shipped
        assert sample.headers["content-type"].startswith("text/plain")


async def test_nothing_else_is_served_from_the_asset_paths():
    async with client() as http:
        for path in (
            "/assets/bot-examples/nope.py", "/assets/bot-examples/..%2F__init__.py",
            "/assets/bot-examples/__init__.py", "/assets/arena/bot-guide.html.bak",
            "/assets/dictionary.txt",
        ):
            answer = await http.get(path)
            assert answer.status_code == 404, path


async def test_modules_without_arena_serve_no_arena_page():
    async with client({"MODULES": "noitu"}) as http:
        assert (await http.get("/bot-guide.html")).status_code == 404
    async with client({"MODULES": "arena"}) as http:
        assert (await http.get("/bot-guide.html")).status_code == 200


class Resources(HTMLParser):
    """The page's script and style links, and anything inline the CSP would refuse."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self.inline: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script":
            if "src" not in attrs:
                self.inline.append("script")
            else:
                self.scripts.append(attrs["src"])
        if tag == "link" and attrs.get("rel") == "stylesheet":
            self.styles.append(attrs["href"])
        if tag == "style" or "style" in attrs or any(k.startswith("on") for k in attrs):
            self.inline.append(tag)


async def test_the_arena_page_redirects_to_its_slash_and_keeps_the_query():
    async with client() as http:
        bare = await http.get("/arena", follow_redirects=False)
        assert bare.status_code == 308 and bare.headers["location"] == "/arena/"
        shared = await http.get("/arena?room=3KX9AC", follow_redirects=False)
        assert shared.status_code == 308 and shared.headers["location"] == "/arena/?room=3KX9AC"


async def test_the_arena_page_its_script_style_and_every_module_are_served_with_the_page_headers():
    shipped = resources.files("noitu.assets") / "arena"
    async with client() as http:
        page = await http.get("/arena/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert page.headers["content-security-policy"] == CSP
        assert page.headers["referrer-policy"] == "no-referrer"
        assert page.headers["x-content-type-options"] == "nosniff"
        assert page.headers["cache-control"] == "no-cache"
        assert "Vào trận" in page.text and 'href="/bot-guide.html"' in page.text
        found = Resources()
        found.feed(page.text)
        assert found.inline == []  # no inline script, style or handler: the CSP holds
        # Same origin only: the kernel's style sheet first, then the page's own.
        assert found.scripts == ["app.js"] and found.styles == ["/kernel/kernel.css", "arena.css"]

        script = await http.get("/arena/app.js")
        assert script.status_code == 200 and script.headers["content-type"].startswith("text/javascript")
        assert script.content == (shipped / "app.js").read_bytes()
        assert script.headers["content-security-policy"] == CSP
        style = await http.get("/arena/arena.css")
        assert style.status_code == 200 and style.headers["content-type"].startswith("text/css")
        assert style.content == (shipped / "arena.css").read_bytes()

        imported = set(re.findall(r'from "\./js/([a-z]+\.js)"', script.text))
        modules = {entry.name for entry in (shipped / "js").iterdir() if entry.name.endswith(".js")}
        kernel = resources.files("noitu.assets") / "kernel" / "js"
        shared = {entry.name for entry in kernel.iterdir() if entry.name.endswith(".js")}
        assert set(re.findall(r'from "/kernel/js/([a-z]+\.js)"', script.text)) <= shared
        assert imported and imported <= modules
        for name in sorted(modules):
            module = await http.get(f"/arena/js/{name}")
            assert module.status_code == 200, name
            assert module.headers["content-type"].startswith("text/javascript"), name
            assert module.headers["x-content-type-options"] == "nosniff", name
            assert module.content == (shipped / "js" / name).read_bytes(), name
            # Every module a module imports is shipped too, next to it or in the kernel.
            assert set(re.findall(r'from "\./([a-z]+\.js)"', module.text)) <= modules, name
            assert set(re.findall(r'from "/kernel/js/([a-z]+\.js)"', module.text)) <= shared, name


async def test_the_arena_page_serves_no_other_file():
    async with client() as http:
        for path in (
            "/arena/js/nope.js", "/arena/js/..%2Fapp.js", "/arena/js/app.js", "/arena/js/",
            "/arena/index.html", "/arena/js/dom.js.map", "/arena/bot-guide.html",
        ):
            answer = await http.get(path)
            assert answer.status_code == 404, path
            assert answer.headers["x-content-type-options"] == "nosniff", path


async def test_modules_without_arena_serve_no_arena_page_either():
    async with client({"MODULES": "noitu"}) as http:
        assert (await http.get("/arena/")).status_code == 404
        assert (await http.get("/arena/app.js")).status_code == 404

