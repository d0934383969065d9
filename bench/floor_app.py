"""The framework's floor for `noitu bench http --floor`: a hello-world Litestar app.

It answers POSTs on the same three paths as nối từ's real mix (`start`, `move`,
`give-up` under the API's path), each decoding a small msgspec body and answering a
small msgspec struct, served by uvicorn with httptools and uvloop, no access log and no
server header, as `noitu serve` serves the game. Its requests per second under the same
load generator are what no handler of ours could beat on this machine: the real mix's
figure divided by this one says how much of the framework's capacity the game keeps.

Run as `python -m noitu.bench.floor_app PORT` (the benchmark starts it itself).
"""

from __future__ import annotations

import gc
import sys
from typing import Annotated

import msgspec
from litestar import Litestar, MediaType, get, post
from litestar.params import Body

from noitu.adapters.http.paths import NOITU_API_PATH


class FloorCommand(msgspec.Struct, frozen=True):
    """The fields the real commands carry, all optional: one body type for the three."""

    session: str = ""
    word: str = ""
    token: str = ""
    difficulty: str = ""


# The body marker nối từ's routes use.
FloorBody = Annotated[FloorCommand, Body(media_type=MediaType.JSON)]


class FloorAnswer(msgspec.Struct, frozen=True):
    ok: bool
    echo: str


@post("/start", status_code=200)
async def start(data: FloorBody) -> FloorAnswer:
    return FloorAnswer(True, data.difficulty)


@post("/move", status_code=200)
async def move(data: FloorBody) -> FloorAnswer:
    return FloorAnswer(True, data.word)


@post("/give-up", status_code=200)
async def give_up(data: FloorBody) -> FloorAnswer:
    return FloorAnswer(True, data.session)


@get("/healthz", sync_to_thread=False)
def healthz() -> str:
    return "ok"


def create_floor_app() -> Litestar:
    from litestar import Router

    api = Router(path=NOITU_API_PATH, route_handlers=[start, move, give_up])
    return Litestar(route_handlers=[api, healthz], openapi_config=None)


def main(port: int) -> None:
    import uvicorn

    app = create_floor_app()
    gc.collect()
    gc.freeze()  # as `noitu serve` does after loading
    uvicorn.run(
        app, host="127.0.0.1", port=port, log_config=None, access_log=False,
        server_header=False, lifespan="on", http="httptools", proxy_headers=False,
    )


if __name__ == "__main__":
    main(int(sys.argv[1]))
