"""`api/record` (B12) over HTTP: the record block from Telegram's getGameHighScores
through a fake Bot API that keeps tables as Telegram does, from the local record in
local play, and no block when Telegram fails; declared in the OpenAPI document."""

from __future__ import annotations

import os
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiogram import Bot
from litestar.testing import AsyncTestClient

from noitu.adapters.noitu.telegram.high_scores import TelegramHighScores
from noitu.application.noitu.session import GameMessage, Ticket
from noitu.entrypoints.app import create_app
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import load_settings
from support.fakes import CollectingBackground, FakeClock
from support.score_tables import ScoreTableSession
from support.telegram import BASE_URL, BOT_TOKEN, Fail

API = "/games/noitu/api"


class Game:
    def __init__(self, client: AsyncTestClient, container: Container, clock: FakeClock,
                 background: CollectingBackground) -> None:
        self.client = client
        self.container = container
        self.clock = clock
        self.background = background

    async def post(self, route: str, body: Any) -> Any:
        return await self.client.post(f"{API}/{route}", json=body)

    async def won(self, user: int, name: str, words: tuple[str, ...]) -> dict[str, Any]:
        """A game on chat 10's message 1 that the bot cannot answer at the end."""
        ticket = Ticket(user, name, GameMessage(chat_id=10, message_id=1), self.clock.now // 1000 + 600)
        answer = await self.post(
            "start", {"token": self.container.token_signer().issue(ticket), "difficulty": "medium"}
        )
        view = answer.json()
        for word in words:
            self.clock.advance(1_000)
            view = (await self.post("move", {"session": view["session"], "word": word})).json()["state"]
        assert view["status"] == "won", view
        await self.background.settle()
        return (await self.post("state", {"session": view["session"]})).json()


@pytest.fixture
async def make_game(clock: FakeClock, arena_probe: Any, little: Any) -> AsyncIterator[Any]:
    clients: list[AsyncTestClient] = []

    async def make(session: ScoreTableSession | None) -> Game:
        env = {
            "NOITU_GAME_SECRET": "s" * 32,
            "NOITU_ACCESS_LOG": "0",
            "NOITU_DATA_DIR": os.environ["NOITU_DATA_DIR"],
        }
        if session is not None:
            env |= {
                "TELEGRAM_BOT_TOKEN": BOT_TOKEN,
                "GAME_BASE_URL": BASE_URL,
                "TELEGRAM_MODE": "none",
            }
        container = Container()
        container.settings.override(load_settings(env))
        container.lexicon.override(little)
        container.rng.override(random.Random(7))
        container.clock.override(clock)
        background = CollectingBackground()
        container.background.override(background)
        container.arena_probe.override(arena_probe)
        if session is not None:
            container.telegram_bot.override(Bot(BOT_TOKEN, session=session))
        client = AsyncTestClient(create_app(container))
        await client.__aenter__()
        clients.append(client)
        return Game(client, container, clock, background)

    yield make
    for client in clients:
        await client.__aexit__(None, None, None)


async def test_the_record_block_comes_from_telegrams_table(make_game: Any) -> None:
    telegram = ScoreTableSession(names={1: "An", 2: "Bình"})
    game = await make_game(telegram)
    assert isinstance(game.container.high_scores(), TelegramHighScores)
    await game.won(2, "Bình", ("đầu óc",))
    view = await game.won(1, "An", ("đầu mối", "tình yêu"))
    assert view["score_reported"] == "ok"
    answer = await game.post("record", {"session": view["session"]})
    assert answer.status_code == 200, answer.text
    assert answer.headers["cache-control"] == "no-store"
    record = answer.json()["record"]
    assert answer.json()["status"] == "ready"
    best_link = max((link for link in view["chain"] if link["by"] == "player"), key=lambda l: l["points"])
    assert record == {
        "best": view["score"],
        "place": 1,
        "new_record": True,
        "top": [
            {"place": 1, "name": "An", "score": view["score"], "you": True},
            {"place": 2, "name": "Bình", "score": telegram.tables["c:10:1"][2][0], "you": False},
        ],
        "best_word": {"word": best_link["word"], "points": best_link["points"]},
    }
    asked = telegram.named("getGameHighScores")
    assert [(a["user_id"], a["chat_id"], a["message_id"]) for a in asked] == [(1, 10, 1)]
    # A second, lower game of the same player: Telegram keeps the best; no new record.
    lower = await game.won(1, "An", ("đầu óc",))
    record = (await game.post("record", {"session": lower["session"]})).json()["record"]
    assert (record["best"], record["place"], record["new_record"]) == (view["score"], 1, False)
    assert record["best_word"] == {"word": "đầu óc", "points": lower["score"]}


async def test_telegram_failing_gives_no_block_and_the_result_stands(make_game: Any) -> None:
    telegram = ScoreTableSession()
    telegram.answer("getGameHighScores", Fail(502, "Bad Gateway"))
    game = await make_game(telegram)
    view = await game.won(1, "An", ("đầu óc",))
    answer = await game.post("record", {"session": view["session"]})
    assert (answer.status_code, answer.json()) == (200, {"status": "unavailable", "record": None})
    state = (await game.post("state", {"session": view["session"]})).json()
    assert (state["status"], state["score"], state["score_reported"]) == ("won", view["score"], "ok")


async def test_local_play_keeps_its_own_record(make_game: Any) -> None:
    game = await make_game(None)
    # One table takes local play's score reports and answers the record block.
    assert game.container.high_scores() is game.container.score_reporter()
    first = await game.won(1, "An", ("đầu óc",))
    record = (await game.post("record", {"session": first["session"]})).json()["record"]
    assert (record["best"], record["place"], record["new_record"]) == (first["score"], 1, True)
    assert record["top"] == [{"place": 1, "name": "An", "score": first["score"], "you": True}]
    better = await game.won(1, "An", ("đầu mối", "tình yêu"))
    record = (await game.post("record", {"session": better["session"]})).json()["record"]
    assert (record["best"], record["new_record"]) == (better["score"], True)


async def test_pending_while_playing_and_no_session_for_an_unknown_one(make_game: Any) -> None:
    game = await make_game(None)
    ticket = Ticket(1, "An", GameMessage(chat_id=10, message_id=1), game.clock.now // 1000 + 600)
    view = (await game.post("start", {"token": game.container.token_signer().issue(ticket)})).json()
    answer = await game.post("record", {"session": view["session"]})
    assert answer.json() == {"status": "pending", "record": None}
    answer = await game.post("record", {"session": "0" * 32})
    assert (answer.status_code, answer.json()["error"]) == (404, "no_session")
    answer = await game.post("record", {"session": view["session"], "extra": 1})
    assert (answer.status_code, answer.json()["error"]) == (400, "bad_request")


async def test_the_route_is_in_the_openapi_document(make_game: Any) -> None:
    game = await make_game(None)
    document = (await game.client.get("/schema/openapi.json")).json()
    route = document["paths"][f"{API}/record"]["post"]
    assert set(route["responses"]) >= {"200", "400", "404"}
    schemas = document["components"]["schemas"]
    assert schemas["SessionCommand"]["additionalProperties"] is False
    answer = schemas["RecordAnswer"]
    assert set(answer["properties"]) == {"status", "record"}
    assert set(schemas["RecordView"]["properties"]) == {"best", "place", "new_record", "top", "best_word"}
