"""`noitu serve` bounds its own connections (spec B10), for real: a WebSocket message
larger than NOITU_WS_MAX_MESSAGE_BYTES closes the socket with 1009; a connection that
has not sent a whole request head within NOITU_HEAD_TIMEOUT_SECONDS is closed, whether
it sends nothing or drips its head; past NOITU_MAX_CONNECTIONS a new connection is
answered 503 and closed at once, and /healthz answers again once they are gone.

The attacks of issue 30 (3.4), in bounded form: request bodies dripped a byte a second
that held every connection the cap allows (closed with 408 once they fall behind
NOITU_BODY_TIMEOUT_SECONDS and the minimum rate, while an upload at a fair rate still
goes through), and request heads of 20 MB (refused with 431 past NOITU_MAX_HEAD_BYTES,
before the server holds more of them)."""

from __future__ import annotations

import asyncio
import contextlib
import select
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from support.dictionaries import LITTLE, write
from support.process import ServerProcess

BOTS = Path(__file__).resolve().parents[1] / "support" / "arena_bots"

HEAD = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: " + b"a" * 200 + b"\r\n\r\n"


@contextlib.contextmanager
def serve(tmp_path: Path, **settings: str) -> Iterator[ServerProcess]:
    env = {
        "NOITU_DICTIONARY": write(tmp_path, LITTLE),
        "NOITU_DATA_DIR": str(tmp_path / "data"),
        "NOITU_LOG_FORMAT": "json",
        **settings,
    }
    server = ServerProcess(env, tmp_path / "server.log").start()
    try:
        yield server
    finally:
        server.stop()


def open_socket(server: ServerProcess) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=30)


def closed_by_server(sock: socket.socket) -> bool:
    """Read until the server closes (True) or 30 s pass with it open (socket.timeout). A
    reset counts as closed: a byte sent after the server's close is answered with one."""
    while True:
        try:
            data = sock.recv(4096)
        except ConnectionResetError:
            return True
        if not data:
            return True


#: The head timeout of the `head_timed` server, shorter than any pause of its tests.
HEAD_TIMEOUT_S = 1


@pytest.fixture(scope="module")
def head_timed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server for the two tests of the head timer (a start-up each cost seconds)."""
    folder = tmp_path_factory.mktemp("head-timed")
    with serve(folder, NOITU_HEAD_TIMEOUT_SECONDS=str(HEAD_TIMEOUT_S)) as server:
        yield server


async def test_a_websocket_message_over_4_kib_closes_the_socket_with_1009(
    head_timed: ServerProcess,
) -> None:
    server = head_timed
    async with httpx.AsyncClient(base_url=server.base, timeout=10) as http:
        created = await http.post(
            "/arena/api/rooms",
            json={"seat": {"kind": "person", "name": "Lan"},
                  "opponent": {"kind": "builtin", "ref": "random"}},
            headers={"X-Owner-Key": "a" * 32},
        )
    assert created.status_code in (200, 201), created.text
    code = created.json()["room"]["code"]
    ws_base = server.base.replace("http://", "ws://")
    async with connect(f"{ws_base}/arena/ws/rooms/{code}") as small:
        await small.recv()  # the room
        await small.send("x" * 4096)  # at the limit: dropped like any message
        # The head timer ended with the upgrade: a room socket outlives it.
        await asyncio.sleep(HEAD_TIMEOUT_S + 1)
        await asyncio.wait_for(await small.ping(), 10)
    async with connect(f"{ws_base}/arena/ws/rooms/{code}") as big:
        await big.recv()
        await big.send("x" * 5 * 1024)
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                await asyncio.wait_for(big.recv(), 30)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


def test_a_connection_without_a_whole_head_in_time_is_closed(head_timed: ServerProcess) -> None:
    server = head_timed
    silent = open_socket(server)
    half = open_socket(server)
    half.sendall(HEAD[: len(HEAD) // 2])
    drip = open_socket(server)
    assert closed_by_server(silent)
    assert closed_by_server(half)
    # One byte every 0.2 s keeps arriving, yet the head never completes in time.
    sent = 0
    while sent < len(HEAD):
        readable, _, _ = select.select([drip], [], [], 0)
        if readable and closed_by_server(drip):
            break
        try:
            drip.send(HEAD[sent : sent + 1])
        except (BrokenPipeError, ConnectionResetError):
            break  # closed between the look and the send
        sent += 1
        time.sleep(0.2)
    assert sent < len(HEAD)
    # A whole head in time is answered, and the next one on the same connection too.
    with httpx.Client(base_url=server.base, timeout=10) as client:
        assert client.get("/healthz").status_code == 200
        assert client.get("/healthz").status_code == 200
    for sock in (silent, half, drip):
        sock.close()


def test_past_the_connection_cap_a_new_connection_is_refused_at_once(tmp_path: Path) -> None:
    with serve(tmp_path, NOITU_MAX_CONNECTIONS="5", NOITU_HEAD_TIMEOUT_SECONDS="600") as server:
        held = [open_socket(server) for _ in range(5)]
        for sock in held:
            sock.sendall(HEAD[:10])  # each one is being read, so surely counted
        refused = open_socket(server)
        answer = b""
        while chunk := refused.recv(4096):
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 503 ")
        refused.close()
        assert httpx.get(f"{server.base}/healthz", timeout=10).status_code == 503
        for sock in held:
            sock.close()
        for _ in range(100):
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{server.base}/healthz", timeout=10).status_code == 200:
                    break
            time.sleep(0.1)
        else:
            pytest.fail("/healthz did not answer once the connections closed")


def answer_of(sock: socket.socket, within_s: float) -> bytes:
    """What the server sent before closing `sock`, or b"" if it is still open after
    `within_s` (a reset after an answer still gives the answer)."""
    sock.settimeout(within_s)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except ConnectionResetError:
        pass
    except TimeoutError:
        return b""
    return received or b"closed"


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0


def healthz(server: ServerProcess) -> int:
    try:
        return httpx.get(f"{server.base}/healthz", timeout=5).status_code
    except httpx.HTTPError:
        return 0


ROOM_HEAD = (
    b"POST /arena/api/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    b"Content-Type: application/json\r\nContent-Length: 4096\r\n\r\n"
)


def fair_upload(server: ServerProcess, bytes_per_s: int) -> bytes:
    """POST /arena/api/bots with a Python bot padded to 96 KiB, sent at `bytes_per_s`,
    and what the server answered."""
    source = (BOTS / "a5_minimal.py").read_bytes()
    source += b"\n# " + b"p" * (96 * 1024 - len(source)) + b"\n"
    boundary = b"fair-upload-boundary"
    body = (
        b"--" + boundary + b'\r\nContent-Disposition: form-data; name="file"; filename="fair.py"'
        b"\r\nContent-Type: text/x-python\r\n\r\n" + source + b"\r\n--" + boundary + b"--\r\n"
    )
    head = (
        b"POST /arena/api/bots HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        b"Content-Type: multipart/form-data; boundary=" + boundary + b"\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    )
    with open_socket(server) as sock:
        sock.sendall(head)
        step = bytes_per_s // 8
        for start in range(0, len(body), step):
            sock.sendall(body[start : start + step])
            time.sleep(0.125)
        return answer_of(sock, 60)


@pytest.fixture(scope="module")
def attacked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server for the attacks below: a cap of 20 connections, a body timeout of 2 s."""
    folder = tmp_path_factory.mktemp("attacked")
    with serve(folder, NOITU_MAX_CONNECTIONS="20", NOITU_BODY_TIMEOUT_SECONDS="2") as server:
        yield server


def test_slow_bodies_are_closed_and_the_connection_cap_frees_up(attacked: ServerProcess) -> None:
    """25 connections against a cap of 20, each sending a room's 4 KiB body a byte a
    second: within the body timeout (2 s here) and a margin the server closes them with
    408, /healthz answers again, and an upload at a fair rate, slower than the timeout
    alone allows, still goes through."""
    server = attacked
    attackers = []
    for _ in range(25):
        sock = open_socket(server)
        sock.sendall(ROOM_HEAD + b"{")
        attackers.append(sock)
    started = time.monotonic()
    time.sleep(0.3)  # the refused ones have their answer by now
    readable = set(select.select(attackers, [], [], 0)[0])
    refused = [sock for sock in readable if answer_of(sock, 1).startswith(b"HTTP/1.1 503")]
    held = [sock for sock in attackers if sock not in readable]
    assert len(held) == 20, len(refused)
    assert healthz(server) == 503  # the attack bites: the cap is full

    answers: dict[socket.socket, bytes] = {}
    while len(answers) < len(held) and time.monotonic() - started < 2 + 4:
        for sock in held:
            if sock in answers:
                continue
            if select.select([sock], [], [], 0)[0]:
                answers[sock] = answer_of(sock, 1)
                continue
            try:
                sock.send(b" ")  # one byte of the body, every second
            except (BrokenPipeError, ConnectionResetError):
                answers[sock] = answer_of(sock, 1) or b"closed"
        time.sleep(1)
    assert len(answers) == 20, f"{20 - len(answers)} slow bodies still open after 6 s"
    assert all(status_of(answer) == 408 for answer in answers.values()), set(answers.values())
    for _ in range(50):
        if healthz(server) == 200:
            break
        time.sleep(0.1)
    else:
        pytest.fail("/healthz did not answer once the slow bodies were closed")

    # 96 KiB at 32 KiB/s: 3 s, longer than the 2 s timeout, at twice the minimum rate.
    answer = fair_upload(server, 32 * 1024)
    assert status_of(answer) == 201 or b'"uploads_unavailable"' in answer, answer[:300]
    # Closing a slow body is no failure of the app: no 500, no traceback in the log.
    assert "internal_error" not in server.output()
    for sock in attackers:
        sock.close()


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for {pid}")


HUGE = 20 * 1024 * 1024


def send_huge_head(server: ServerProcess, finished: bool) -> socket.socket:
    """A request head with a 20 MB header, sent until the server stops taking it."""
    sock = open_socket(server)
    piece = b"a" * (256 * 1024)
    try:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ")
        for _ in range(HUGE // len(piece)):
            sock.sendall(piece)
        if finished:
            sock.sendall(b"\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass
    return sock


def test_a_huge_request_head_is_refused_before_it_is_held(attacked: ServerProcess) -> None:
    """Five unfinished 20 MB heads, then a finished one: each is answered 431 and
    closed, and the server's memory hardly moves (it held each whole head before)."""
    server = attacked
    assert server.process is not None
    for _ in range(5):
        assert healthz(server) == 200
    before = rss_bytes(server.process.pid)
    unfinished = [send_huge_head(server, finished=False) for _ in range(5)]
    grown = rss_bytes(server.process.pid) - before
    finished = send_huge_head(server, finished=True)
    answers = [answer_of(sock, 5) for sock in (*unfinished, finished)]
    assert grown < 8 * 1024 * 1024, f"RSS grew by {grown / 2**20:.1f} MiB"
    assert [status_of(answer) for answer in answers] == [431] * 6, [a[:60] for a in answers]
    assert healthz(server) == 200
    for sock in (*unfinished, finished):
        sock.close()
