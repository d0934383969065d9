"""The arena's uploaded bots through the real app (spec B2, B5, B6): uploads built in the
real sandbox, every limit's error code, who sees and changes what, and bots that
survive a restart on the same data directory."""

from __future__ import annotations

import contextlib
import io
import random
import zipfile
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from dependency_injector import providers
from litestar.testing import AsyncTestClient

from noitu.application.arena.admission import AddressLimits
from noitu.application.arena.errors import AddressTooManyKeys
from noitu.application.arena.limits import (
    FAILED_BUILD_KEPT_MS,
    MAX_BOTS_PER_OWNER,
    MAX_JAR_BYTES,
    MAX_SOURCE_BYTES,
    UPLOAD_WINDOW_MS,
    UPLOADS_PER_WINDOW,
)
from noitu.entrypoints.app import create_app
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import load_settings
from support.arena_bots import BOTS, require
from support.arena_server import Served, build, serving
from support.arena_store import NoSandbox, ProbedOnce, ScriptedBuilder
from support.fakes import FakeClock

API = "/arena/api/bots"
GOOD_PY = (BOTS / "a5_minimal.py").read_bytes()
BROKEN_CPP = (BOTS / "broken.cpp").read_bytes()
KEY_A = "a" * 32
KEY_B = "b" * 32

MakeClient = Callable[..., AsyncIterator[AsyncTestClient]]


class Apps:
    """Builds apps on the test's data directory; `builder` replaces the sandbox's."""

    def __init__(self, data_dir: Path, probe: Any, clock: FakeClock) -> None:
        self.data_dir = data_dir
        self.probe = probe
        self.clock = clock
        self.clients: list[AsyncTestClient] = []

    async def start(self, builder: ScriptedBuilder | None = None, probe: Any = None) -> AsyncTestClient:
        container = Container()
        container.settings.override(
            load_settings(
                {"NOITU_ACCESS_LOG": "0", "MODULES": "arena", "NOITU_DATA_DIR": str(self.data_dir)}
            )
        )
        container.clock.override(self.clock)
        container.id_source.override(random.Random(len(self.clients)))
        container.arena_probe.override(probe or self.probe)
        if builder is not None:
            container.upload_builder.override(providers.Object(builder))
        client = AsyncTestClient(create_app(container))
        await client.__aenter__()
        self.clients.append(client)
        return client

    async def stop(self, client: AsyncTestClient) -> None:
        self.clients.remove(client)
        await client.__aexit__(None, None, None)


@pytest.fixture
async def apps(arena_data_dir: Path, arena_probe: ProbedOnce, clock: FakeClock) -> AsyncIterator[Apps]:
    made = Apps(arena_data_dir, arena_probe, clock)
    yield made
    for client in list(made.clients):
        await made.stop(client)


@pytest.fixture
def sandboxed(arena_probe: ProbedOnce) -> None:
    require(arena_probe.status)


async def upload(
    client: AsyncTestClient,
    file_name: str,
    data: bytes,
    key: str | None = KEY_A,
    **form: str,
) -> Any:
    headers = {"X-Owner-Key": key} if key is not None else {}
    files = {"file": (file_name, data, "application/octet-stream")}
    return await client.post(f"{API}/", files=files, data=form, headers=headers)


def jar_bytes(padding: int = 0) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as jar:
        jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nMain-Class: Main\n\n")
        jar.writestr("Main.class", b"\xca\xfe\xba\xbe")
        jar.writestr("padding.bin", b"\0" * padding)  # stored: the size grows by exactly this
    return buffer.getvalue()


# --- real builds ------------------------------------------------------------------------


async def test_a_broken_cpp_upload_is_stored_as_failed_with_the_compilers_messages(
    apps: Apps, sandboxed: None
) -> None:
    client = await apps.start()
    answer = await upload(client, "broken.cpp", BROKEN_CPP)
    assert answer.status_code == 201, answer.text
    bot = answer.json()["bot"]
    assert bot["build"] == "failed" and bot["language"] == "cpp" and bot["mine"] is True
    assert "error" in bot["buildMessages"] and "broken.cpp:4:" in bot["buildMessages"]
    assert "/src/" not in bot["buildMessages"] and str(apps.data_dir) not in bot["buildMessages"]
    # A failed build cannot be made public: nobody could seat it.
    refused = await client.patch(f"{API}/{bot['id']}", json={"public": True}, headers={"X-Owner-Key": KEY_A})
    assert (refused.status_code, refused.json()["error"]) == (409, "bot_not_built")


async def test_a_good_python_upload_compiles_and_a_first_upload_gets_an_owner_key(
    apps: Apps, sandboxed: None
) -> None:
    client = await apps.start()
    answer = await upload(client, "a5_minimal.py", GOOD_PY, key=None, name="Bot Đầu Tiên")
    assert answer.status_code == 201, answer.text
    body = answer.json()
    key, bot = body["ownerKey"], body["bot"]
    assert len(key) == 32 and int(key, 16) >= 0
    assert bot == {
        "id": bot["id"], "name": "Bot Đầu Tiên", "language": "python", "public": False,
        "createdMs": apps.clock.now, "build": "ok", "mine": True, "buildMessages": "",
        "sourceBytes": len(GOOD_PY),
    }
    mine = await client.get(f"{API}/", headers={"X-Owner-Key": key})
    assert [b["id"] for b in mine.json()["bots"]] == [bot["id"]]
    source = await client.get(f"{API}/{bot['id']}/source", headers={"X-Owner-Key": key})
    assert source.status_code == 200 and source.content == GOOD_PY
    assert source.headers["content-type"] == "text/plain; charset=utf-8"  # one charset
    # The sent key is used as it is.
    again = await upload(client, "second.py", GOOD_PY, key=key)
    assert again.json()["ownerKey"] == key and again.json()["bot"]["name"] == "second"


async def test_without_a_sandbox_uploads_are_refused_and_the_rest_works(apps: Apps) -> None:
    client = await apps.start(probe=NoSandbox())
    answer = await upload(client, "a5_minimal.py", GOOD_PY)
    assert (answer.status_code, answer.json()["error"]) == (503, "uploads_unavailable")
    assert (await client.get(f"{API}/public")).json() == {"bots": [], "next": None}
    assert not any((apps.data_dir / "bots").iterdir())


# --- limits -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "data", "status", "code"),
    [
        ("bot.rb", b"puts 1", 400, "unsupported_file"),
        ("bot", b"print(1)", 400, "unsupported_file"),
        ("big.py", b"#" * (MAX_SOURCE_BYTES + 1), 413, "file_too_large"),
        ("empty.py", b"", 400, "bad_file"),
        ("latin.cpp", "int main(){} // caf\u00e9".encode("latin-1"), 400, "bad_file"),
        ("nul.java", b"class Main {}\x00", 400, "bad_file"),
        ("fake.jar", b"not a zip at all", 400, "bad_file"),
    ],
)
async def test_each_refused_file_answers_its_code_and_stores_nothing(
    apps: Apps, name: str, data: bytes, status: int, code: str
) -> None:
    builder = ScriptedBuilder()
    client = await apps.start(builder)
    answer = await upload(client, name, data)
    assert (answer.status_code, answer.json()["error"]) == (status, code), answer.text
    assert answer.json()["message"]
    assert builder.built == []
    assert (await client.get(f"{API}/", headers={"X-Owner-Key": KEY_A})).json() == {"bots": []}
    assert not any((apps.data_dir / "bots").iterdir())


async def test_a_jar_up_to_16_mib_is_taken_and_a_larger_body_is_file_too_large(apps: Apps) -> None:
    builder = ScriptedBuilder()
    client = await apps.start(builder)
    padded = jar_bytes(MAX_JAR_BYTES - len(jar_bytes()))
    assert len(padded) == MAX_JAR_BYTES
    taken = await upload(client, "big.jar", padded)
    assert taken.status_code == 201, taken.text
    assert taken.json()["bot"]["language"] == "jar"
    too_big = await upload(client, "bigger.jar", padded + b"\0" * 200_000)
    assert (too_big.status_code, too_big.json()["error"]) == (413, "file_too_large")
    source = await client.get(f"{API}/{taken.json()['bot']['id']}/source", headers={"X-Owner-Key": KEY_A})
    assert source.headers["content-type"] == "application/java-archive"
    assert source.content == padded


async def test_other_routes_keep_their_small_body_limit(apps: Apps) -> None:
    client = await apps.start(ScriptedBuilder())
    bot = (await upload(client, "a.py", GOOD_PY)).json()["bot"]
    big = await client.patch(
        f"{API}/{bot['id']}", content=b'{"public": true' + b" " * 5000 + b"}",
        headers={"X-Owner-Key": KEY_A, "Content-Type": "application/json"},
    )
    assert (big.status_code, big.json()["error"]) == (400, "bad_request")


async def test_uploads_per_minute_and_bots_stored_are_limited_per_owner(apps: Apps) -> None:
    client = await apps.start(ScriptedBuilder())
    for n in range(UPLOADS_PER_WINDOW):
        assert (await upload(client, f"b{n}.py", GOOD_PY)).status_code == 201
    fast = await upload(client, "late.py", GOOD_PY)
    assert (fast.status_code, fast.json()["error"]) == (429, "too_many_uploads")
    assert fast.headers["retry-after"] == str(UPLOAD_WINDOW_MS // 1000)
    # Another owner is not slowed down; a minute later the first may upload again.
    assert (await upload(client, "other.py", GOOD_PY, key=KEY_B)).status_code == 201
    apps.clock.advance(60_001)
    stored = UPLOADS_PER_WINDOW
    while stored < MAX_BOTS_PER_OWNER:
        answer = await upload(client, f"b{stored}.py", GOOD_PY)
        assert answer.status_code == 201, answer.text
        stored += 1
        if stored % UPLOADS_PER_WINDOW == 0:
            apps.clock.advance(60_001)
    apps.clock.advance(60_001)
    full = await upload(client, "one-more.py", GOOD_PY)
    assert (full.status_code, full.json()["error"]) == (409, "too_many_bots")
    mine = (await client.get(f"{API}/", headers={"X-Owner-Key": KEY_A})).json()["bots"]
    assert len(mine) == MAX_BOTS_PER_OWNER


async def test_a_malformed_owner_key_is_refused_everywhere(apps: Apps) -> None:
    client = await apps.start(ScriptedBuilder())
    bad = {"X-Owner-Key": "NOT-A-KEY"}
    answers = [
        await upload(client, "a.py", GOOD_PY, key="NOT-A-KEY"),
        await client.get(f"{API}/", headers=bad),
        await client.get(f"{API}/public", headers=bad),
        await client.get(f"{API}/{'x' * 16}", headers=bad),
    ]
    assert [(a.status_code, a.json()["error"]) for a in answers] == [(400, "bad_owner_key")] * 4


# --- owners -----------------------------------------------------------------------------


async def test_only_the_owner_sees_the_source_and_messages_publishes_or_deletes(apps: Apps) -> None:
    client = await apps.start(ScriptedBuilder(messages="warning: unused variable"))
    bot = (await upload(client, "mine.py", GOOD_PY)).json()["bot"]
    url = f"{API}/{bot['id']}"
    owner, other = {"X-Owner-Key": KEY_A}, {"X-Owner-Key": KEY_B}

    # Private: someone else (or nobody) cannot even tell it exists.
    for headers in (other, {}):
        for answer in (
            await client.get(url, headers=headers),
            await client.get(f"{url}/source", headers=headers),
            await client.patch(url, json={"public": True}, headers=headers),
            await client.delete(url, headers=headers),
        ):
            assert (answer.status_code, answer.json()["error"]) == (404, "bot_not_found")

    published = await client.patch(url, json={"public": True}, headers=owner)
    assert published.status_code == 200 and published.json()["public"] is True
    seen = (await client.get(url, headers=other)).json()
    assert seen["mine"] is False and seen["buildMessages"] is None and seen["sourceBytes"] is None
    assert (await client.get(url, headers=owner)).json()["buildMessages"] == "warning: unused variable"
    public = (await client.get(f"{API}/public")).json()
    assert [b["id"] for b in public["bots"]] == [bot["id"]]
    # Public: others see it, but the source, publishing and deleting stay the owner's.
    for answer in (
        await client.get(f"{url}/source", headers=other),
        await client.patch(url, json={"public": False}, headers=other),
        await client.delete(url, headers=other),
    ):
        assert (answer.status_code, answer.json()["error"]) == (403, "not_owner")

    assert (await client.delete(url, headers=owner)).status_code == 204
    assert (await client.get(url, headers=owner)).status_code == 404
    assert not any((apps.data_dir / "bots").iterdir())


async def test_public_bots_page_with_a_cursor(apps: Apps) -> None:
    client = await apps.start(ScriptedBuilder())
    ids = []
    for n in range(5):
        apps.clock.advance(1)
        bot = (await upload(client, f"p{n}.py", GOOD_PY)).json()["bot"]
        await client.patch(f"{API}/{bot['id']}", json={"public": True}, headers={"X-Owner-Key": KEY_A})
        ids.append(bot["id"])
    first = (await client.get(f"{API}/public", params={"limit": 2})).json()
    second = (await client.get(f"{API}/public", params={"limit": 2, "before": first["next"]})).json()
    third = (await client.get(f"{API}/public", params={"limit": 2, "before": second["next"]})).json()
    assert [b["id"] for b in first["bots"] + second["bots"] + third["bots"]] == ids[::-1]
    assert third["next"] is None
    for query in ({"limit": 0}, {"limit": 51}, {"before": "nonsense"}):
        answer = await client.get(f"{API}/public", params=query)
        assert (answer.status_code, answer.json()["error"]) == (400, "bad_request")


# --- restarts ---------------------------------------------------------------------------


async def test_bots_survive_a_restart_and_files_without_a_record_do_not(apps: Apps) -> None:
    client = await apps.start(ScriptedBuilder())
    bot = (await upload(client, "keeper.py", GOOD_PY)).json()["bot"]
    await apps.stop(client)
    # What a crash in the middle of an upload leaves: files and no record.
    orphan = apps.data_dir / "bots" / ("z" * 16)
    orphan.mkdir()
    (orphan / "source.py").write_bytes(b"print(1)\n")

    client = await apps.start(ScriptedBuilder())
    again = await client.get(f"{API}/{bot['id']}", headers={"X-Owner-Key": KEY_A})
    assert again.status_code == 200 and again.json() == bot
    source = await client.get(f"{API}/{bot['id']}/source", headers={"X-Owner-Key": KEY_A})
    assert source.content == GOOD_PY
    assert sorted(p.name for p in (apps.data_dir / "bots").iterdir()) == [bot["id"]]


async def test_a_failed_build_is_removed_at_the_first_start_a_day_later(apps: Apps) -> None:
    client = await apps.start(ScriptedBuilder(ok=False, messages="hỏng.cpp:1:1: error"))
    failed = (await upload(client, "hỏng.cpp", b"int main( {}\n")).json()["bot"]
    assert failed["build"] == "failed"
    await apps.stop(client)
    apps.clock.advance(FAILED_BUILD_KEPT_MS - 1)
    client = await apps.start(ScriptedBuilder())
    listed = (await client.get(API, headers={"X-Owner-Key": KEY_A})).json()["bots"]
    assert [bot["id"] for bot in listed] == [failed["id"]]
    await apps.stop(client)
    apps.clock.advance(1)
    client = await apps.start(ScriptedBuilder())
    assert (await client.get(API, headers={"X-Owner-Key": KEY_A})).json()["bots"] == []
    assert not (apps.data_dir / "bots" / failed["id"]).exists()
    # The contract says how long, from the same number.
    contract = (Path(__file__).parents[3] / "docs" / "arena-api.md").read_text()
    assert f"kept {FAILED_BUILD_KEPT_MS // 3_600_000} hours" in contract


async def test_the_openapi_document_lists_the_bot_routes(apps: Apps) -> None:
    client = await apps.start(ScriptedBuilder())
    document = (await client.get("/schema/openapi.json")).json()
    paths = document["paths"]
    assert {"post", "get"} <= set(paths[f"{API}"])
    assert {"get"} <= set(paths[f"{API}/public"])
    assert {"get", "patch", "delete"} <= set(paths[f"{API}/{{bot_id}}"])
    assert {"get"} <= set(paths[f"{API}/{{bot_id}}/source"])
    upload_responses = paths[API]["post"]["responses"]
    assert {"201", "400", "409", "413", "429", "503"} <= set(upload_responses)
    assert "multipart/form-data" in paths[API]["post"]["requestBody"]["content"]
    assert paths[f"{API}/{{bot_id}}"]["delete"]["responses"].keys() >= {"204", "403", "404", "409"}


async def test_publishing_with_a_wrong_type_is_refused_and_changes_nothing(apps: Apps) -> None:
    """Spec B3's rule for JSON types holds for owners too: 1 and "true" are no booleans."""
    client = await apps.start(ScriptedBuilder())
    bot = (await upload(client, "mine.py", GOOD_PY)).json()["bot"]
    url, owner = f"{API}/{bot['id']}", {"X-Owner-Key": KEY_A}
    for wrong in ({"public": "true"}, {"public": 1}, {"public": 0}, {"public": None}, [True]):
        answer = await client.patch(url, json=wrong, headers=owner)
        assert (answer.status_code, answer.json()["error"]) == (400, "bad_request"), wrong
    assert (await client.get(url, headers=owner)).json()["public"] is False
    assert (await client.get(f"{API}/public")).json()["bots"] == []


# --- per client address, whatever the owner keys (spec B10) -----------------------------
# A real server on loopback: the socket's peer is 127.0.0.1, which counts like any other.


@contextlib.asynccontextmanager
async def real_server(
    data_dir: Path, clock: FakeClock, env: dict[str, str] | None = None
) -> AsyncIterator[Served]:
    container = build(data_dir, NoSandbox(), clock, env)
    container.upload_builder.override(providers.Object(ScriptedBuilder()))
    async with serving(container) as served:
        yield served


async def post_bot(
    served: Served, name: str, key: str | None, forwarded: str | None = None
) -> Any:
    headers = {} if key is None else {"X-Owner-Key": key}
    if forwarded is not None:
        headers["X-Forwarded-For"] = forwarded
    files = {"file": (name, GOOD_PY, "text/x-python")}
    return await served.http.post(f"{API}/", files=files, headers=headers)


def fresh_key(n: int) -> str:
    return f"{n:032x}"


async def test_keyless_uploads_from_one_address_make_at_most_ten_owner_keys_a_minute(
    arena_data_dir: Path, clock: FakeClock
) -> None:
    async with real_server(arena_data_dir, clock) as served:
        keys = set()
        for n in range(AddressLimits().owner_keys):
            answer = await post_bot(served, f"b{n}.py", None)
            assert answer.status_code == 201, answer.text
            keys.add(answer.json()["ownerKey"])
        assert len(keys) == AddressLimits().owner_keys
        refused = await post_bot(served, "late.py", None)
        assert (refused.status_code, refused.json()["error"]) == (429, "address_too_many_keys")
        assert refused.headers["retry-after"] == "60"
        assert refused.json()["message"] == AddressTooManyKeys.default_message
        # A kept key still uploads; a minute later new keys are made again.
        assert (await post_bot(served, "kept.py", keys.pop())).status_code == 201
        clock.advance(60_000)
        assert (await post_bot(served, "new.py", None)).status_code == 201


async def test_uploads_under_fresh_keys_from_one_address_are_limited_to_twelve_a_minute(
    arena_data_dir: Path, clock: FakeClock
) -> None:
    async with real_server(arena_data_dir, clock) as served:
        for n in range(AddressLimits().uploads):
            assert (await post_bot(served, f"b{n}.py", fresh_key(n))).status_code == 201
            clock.advance(1_000)
        refused = await post_bot(served, "late.py", fresh_key(99))
        assert (refused.status_code, refused.json()["error"]) == (429, "address_too_many_uploads")
        # The first upload leaves the window 60 s after it came: 48 s from now.
        assert refused.headers["retry-after"] == str(60 - AddressLimits().uploads)
        # Nothing of the refused upload was kept.
        mine = await served.http.get(f"{API}/", headers={"X-Owner-Key": fresh_key(99)})
        assert mine.json()["bots"] == []
        clock.advance(60_000)
        assert (await post_bot(served, "later.py", fresh_key(99))).status_code == 201


async def test_without_a_trusted_proxy_x_forwarded_for_changes_nothing(
    arena_data_dir: Path, clock: FakeClock
) -> None:
    async with real_server(arena_data_dir, clock) as served:
        for n in range(AddressLimits().uploads):
            answer = await post_bot(served, f"b{n}.py", fresh_key(n), forwarded=f"10.0.0.{n}")
            assert answer.status_code == 201
        refused = await post_bot(served, "late.py", fresh_key(99), forwarded="10.9.9.9")
        assert (refused.status_code, refused.json()["error"]) == (429, "address_too_many_uploads")


async def test_behind_a_trusted_proxy_forwarded_addresses_are_counted_apart(
    arena_data_dir: Path, clock: FakeClock
) -> None:
    env = {"NOITU_TRUSTED_PROXY": "127.0.0.1"}
    async with real_server(arena_data_dir, clock, env) as served:
        for n in range(AddressLimits().uploads):
            # The last hop is the client the proxy saw; earlier hops are the client's say.
            forwarded = f"192.0.2.{n}, 10.0.0.1"
            assert (await post_bot(served, f"b{n}.py", fresh_key(n), forwarded)).status_code == 201
        refused = await post_bot(served, "late.py", fresh_key(98), forwarded="10.0.0.1")
        assert (refused.status_code, refused.json()["error"]) == (429, "address_too_many_uploads")
        other = await post_bot(served, "other.py", fresh_key(99), forwarded="10.0.0.2")
        assert other.status_code == 201, other.text
        # A request without the header is the proxy's own (its peer address).
        assert (await post_bot(served, "own.py", fresh_key(97))).status_code == 201


async def test_the_upload_answer_says_how_long_the_build_waited(
    arena_data_dir: Path, clock: FakeClock
) -> None:
    async with real_server(arena_data_dir, clock) as served:
        answer = await post_bot(served, "b.py", KEY_A)
        assert answer.status_code == 201 and answer.json()["buildWaitMs"] == 0
