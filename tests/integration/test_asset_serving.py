"""How the pages and files of both games are served: HEAD answers as GET without the
body, a text file names its charset once, /assets/bot-examples/ lists the samples, and
the kernel both pages share is served once, at /kernel/, like the pages' own files."""

from __future__ import annotations

import os
from html.parser import HTMLParser
from importlib import resources

from litestar.testing import AsyncTestClient

from noitu.entrypoints.app import create_app
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import load_settings

ASSETS = resources.files("noitu.assets")
SAMPLES = sorted(
    entry.name
    for entry in (ASSETS / "bot-examples").iterdir()
    if entry.name.endswith((".py", ".cpp", ".java"))
)


def client(modules: str = "") -> AsyncTestClient:
    container = Container()
    env = {"NOITU_ACCESS_LOG": "0", "NOITU_DATA_DIR": os.environ["NOITU_DATA_DIR"], "MODULES": modules}
    container.settings.override(load_settings({**env, "NOITU_GAME_SECRET": "s" * 32}))
    return AsyncTestClient(create_app(container))


def modules(folder: str) -> list[str]:
    return sorted(e.name for e in (ASSETS / folder).iterdir() if e.name.endswith(".js"))


ASSET_PATHS = [
    "/games/noitu/", "/games/noitu/app.js", "/games/noitu/app.css",
    *(f"/games/noitu/js/{name}" for name in modules("js")),
    "/arena/", "/arena/app.js", "/arena/arena.css",
    *(f"/arena/js/{name}" for name in modules("arena/js")),
    "/kernel/kernel.css", *(f"/kernel/js/{name}" for name in modules("kernel/js")),
    "/bot-guide.html", "/assets/arena/guide.css",
    "/assets/bot-examples/", "/assets/bot-examples",
    *(f"/assets/bot-examples/{name}" for name in SAMPLES),
]
VARYING = {"date"}


async def test_head_on_every_page_and_file_answers_the_gets_headers_without_a_body() -> None:
    async with client() as http:
        for path in ASSET_PATHS:
            got = await http.get(path)
            head = await http.head(path)
            assert got.status_code == 200 and len(got.content) > 0, path
            assert head.status_code == 200, path
            assert head.content == b"", path
            same = {k: v for k, v in got.headers.items() if k not in VARYING}
            assert {k: v for k, v in head.headers.items() if k not in VARYING} == same, path
            assert int(head.headers["content-length"]) == len(got.content), path
        # A redirect and a missing file answer HEAD as they answer GET, without a body.
        for path, status in (
            ("/arena", 308), ("/games/noitu", 308), ("/assets/bot-examples/no.py", 404),
            ("/kernel/js/no.js", 404),
        ):
            head = await http.head(path, follow_redirects=False)
            assert (head.status_code, head.content) == (status, b""), path
            assert (await http.get(path, follow_redirects=False)).status_code == status


async def test_a_sample_is_plain_text_with_one_charset() -> None:
    async with client() as http:
        for name in SAMPLES:
            answer = await http.get(f"/assets/bot-examples/{name}")
            assert answer.headers["content-type"] == "text/plain; charset=utf-8", name
            assert answer.content == (ASSETS / "bot-examples" / name).read_bytes()


class Listing(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, bool]] = []
        self.inline: list[str] = []
        self.lang = ""

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "html":
            self.lang = attrs.get("lang", "")
        if tag == "a":
            self.links.append((attrs["href"], "download" in attrs))
        if tag == "script" or "style" in attrs or any(k.startswith("on") for k in attrs):
            self.inline.append(tag)


async def test_the_samples_folder_lists_every_sample_with_a_link_to_read_and_to_download() -> None:
    async with client() as http:
        for path in ("/assets/bot-examples/", "/assets/bot-examples"):
            page = await http.get(path)
            assert page.status_code == 200
            assert page.headers["content-type"] == "text/html; charset=utf-8"
            assert page.headers["content-security-policy"].startswith("default-src 'self'")
            assert page.headers["x-content-type-options"] == "nosniff"
            assert page.headers["referrer-policy"] == "no-referrer"
            listing = Listing()
            listing.feed(page.text)
            assert listing.lang == "vi" and listing.inline == [] and "Bot mẫu" in page.text
            for name in SAMPLES:
                url = f"/assets/bot-examples/{name}"
                assert (url, False) in listing.links and (url, True) in listing.links, name
            for href, _ in listing.links:
                assert (await http.get(href)).status_code == 200, href
        # Each sample's own first line says what it is.
        assert "Bot tối giản cho Búa Bao Kéo 9×9 (C++17" in page.text


async def test_the_kernel_is_served_once_with_the_headers_of_the_pages_own_files() -> None:
    kernel = ASSETS / "kernel"
    shipped = modules("kernel/js")
    assert {"api.js", "banner.js", "clock.js", "dom.js", "storage.js", "text.js"} <= set(shipped)
    async with client() as http:
        page_script = await http.get("/games/noitu/app.js")
        arena_script = await http.get("/arena/app.js")
        assert page_script.headers["cache-control"] == arena_script.headers["cache-control"]
        for name in shipped:
            module = await http.get(f"/kernel/js/{name}")
            assert module.status_code == 200, name
            assert module.content == (kernel / "js" / name).read_bytes(), name
            assert module.headers["content-type"].startswith("text/javascript"), name
            assert module.headers["cache-control"] == page_script.headers["cache-control"], name
            assert module.headers["x-content-type-options"] == "nosniff", name
        style = await http.get("/kernel/kernel.css")
        assert style.content == (kernel / "kernel.css").read_bytes()
        assert style.headers["content-type"].startswith("text/css")
        assert style.headers["cache-control"] == (await http.get("/arena/arena.css")).headers["cache-control"]
        # Both pages load the one style sheet, before their own.
        for page, own in (("/games/noitu/", "app.css"), ("/arena/", "arena.css")):
            text = (await http.get(page)).text
            assert text.index('href="/kernel/kernel.css"') < text.index(f'href="{own}"'), page
        # Only the shipped modules: no other file, no path walk, no listing.
        for path in (
            "/kernel/js/nope.js", "/kernel/js/..%2F..%2Fapp.js", "/kernel/js/", "/kernel/",
            "/kernel/js/dom.js.map", "/kernel/kernel.js", "/kernel/js/__init__.py", "/kernel/app.css",
        ):
            answer = await http.get(path)
            assert answer.status_code == 404, path
            assert answer.headers["x-content-type-options"] == "nosniff", path


async def test_either_game_alone_still_serves_the_kernel() -> None:
    for alone, other in (("noitu", "/arena/"), ("arena", "/games/noitu/")):
        async with client(alone) as http:
            assert (await http.get(other)).status_code == 404, alone
            assert (await http.get("/kernel/kernel.css")).status_code == 200, alone
            assert (await http.get("/kernel/js/dom.js")).status_code == 200, alone
            assert (await http.head("/kernel/js/dom.js")).content == b"", alone
