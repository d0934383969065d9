"""The Telegram side in process: handlers, score reporter, runner and webhook route.

A recording session (support.telegram) stands in for the Bot API.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import structlog
import structlog.testing
from aiogram import Bot, Dispatcher
from aiogram.exceptions import TelegramNetworkError
from litestar import Litestar
from litestar.testing import AsyncTestClient

from noitu.adapters.noitu.telegram.handlers import noitu_router
from noitu.adapters.noitu.telegram.links import GameLinks
from noitu.adapters.noitu.telegram.reporter import TelegramScoreReporter
from noitu.adapters.noitu.telegram.runner import TelegramRunner
from noitu.adapters.noitu.telegram.texts import (
    COMMAND_DESCRIPTION,
    DAILY_COMMAND_DESCRIPTION,
    GAME_DISABLED,
    LOOKUP_COMMAND_DESCRIPTION,
    NO_GAME_MESSAGE,
    NO_GAMES_IN_CHANNELS,
    REPORT_COMMAND_DESCRIPTION,
    ROOM_COMMAND_DESCRIPTION,
    SEND_FAILED,
    TOP_COMMAND_DESCRIPTION,
)
from noitu.adapters.noitu.telegram.webhook import SECRET_HEADER, webhook_route, webhook_secret
from noitu.adapters.noitu.token_signer import HmacTokenSigner
from noitu.application.noitu.session import GameMessage, ReportState, ScoreReport
from noitu.domain.noitu.rules import TOKEN_LIFETIME_S
from noitu.entrypoints.app import create_app
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import load_settings
from support.fakes import START_MS, FakeClock
from support.telegram import (
    BASE_URL,
    BOT_TOKEN,
    CHANNEL,
    FORUM,
    GAME,
    HANG,
    SUPERGROUP,
    Fail,
    RecordingSession,
    command,
    feed,
    message,
    play,
    token_of,
)

KEY = b"k" * 32


# --- helpers -------------------------------------------------------------------------


@pytest.fixture
def session() -> RecordingSession:
    return RecordingSession()


@pytest.fixture
def bot(session: RecordingSession) -> Bot:
    return Bot(BOT_TOKEN, session=session)


def links(enabled: bool = True) -> GameLinks:
    issuer = HmacTokenSigner(KEY) if enabled else None
    return GameLinks(
        base_url=BASE_URL if enabled else "", issuer=issuer, clock=FakeClock(), page_path="/games/noitu/"
    )


def dispatcher(game_links: GameLinks) -> Dispatcher:
    dp = Dispatcher()
    dp.include_router(noitu_router(game_links))
    return dp


# --- /noitu ----------------------------------------------------------------------------


async def test_noitu_in_a_private_chat_sends_the_game_without_a_keyboard(
    bot: Bot, session: RecordingSession
) -> None:
    await feed(bot, dispatcher(links()), command())
    assert session.named("sendGame") == [{"chat_id": 42, "game_short_name": "noitu"}]


async def test_noitu_in_a_group_ignores_a_reply_thread(bot: Bot, session: RecordingSession) -> None:
    # In a group that is not a forum, a reply carries a thread id but is no topic message.
    await feed(bot, dispatcher(links()), command(chat=SUPERGROUP, message_thread_id=5))
    assert session.named("sendGame") == [{"chat_id": -100200, "game_short_name": "noitu"}]


async def test_noitu_in_a_forum_topic_stays_in_the_topic(
    bot: Bot, session: RecordingSession
) -> None:
    await feed(
        bot, dispatcher(links()), command(chat=FORUM, message_thread_id=7, is_topic_message=True)
    )
    assert session.named("sendGame") == [
        {"chat_id": -100300, "game_short_name": "noitu", "message_thread_id": 7}
    ]


async def test_noitu_in_a_channel_answers_with_a_text(bot: Bot, session: RecordingSession) -> None:
    await feed(bot, dispatcher(links()), command(chat=CHANNEL))
    assert session.named("sendGame") == []
    assert session.named("sendMessage") == [{"chat_id": -100400, "text": NO_GAMES_IN_CHANNELS}]


async def test_a_failed_send_says_so(bot: Bot, session: RecordingSession) -> None:
    session.answer("sendGame", Fail(400, "Bad Request: GAME_SHORTNAME_INVALID"))
    await feed(
        bot, dispatcher(links()), command(chat=FORUM, message_thread_id=7, is_topic_message=True)
    )
    assert session.named("sendMessage") == [
        {"chat_id": -100300, "text": SEND_FAILED, "message_thread_id": 7}
    ]


async def test_a_send_that_fails_twice_does_not_raise(bot: Bot, session: RecordingSession) -> None:
    session.answer("sendGame", Fail(403, "Forbidden: bot was kicked"))
    session.answer("sendMessage", Fail(403, "Forbidden: bot was kicked"))
    await feed(bot, dispatcher(links()), command(chat=SUPERGROUP))
    assert [c.method for c in session.calls] == ["sendGame", "sendMessage"]


async def test_noitu_addressed_to_this_bot_works_and_to_another_is_ignored(
    bot: Bot, session: RecordingSession
) -> None:
    dp = dispatcher(links())
    await feed(bot, dp, command("/noitu@NoiTuBot", chat=SUPERGROUP, update_id=1))
    await feed(bot, dp, command("/noitu@OtherBot", chat=SUPERGROUP, update_id=2))
    await feed(bot, dp, command("/start", chat=SUPERGROUP, update_id=3))
    assert len(session.named("sendGame")) == 1


async def test_noitu_works_while_the_game_is_disabled(bot: Bot, session: RecordingSession) -> None:
    await feed(bot, dispatcher(links(enabled=False)), command())
    assert len(session.named("sendGame")) == 1


# --- Play --------------------------------------------------------------------------------


def answered_url(session: RecordingSession) -> str:
    (answer,) = session.named("answerCallbackQuery")
    assert answer["callback_query_id"] == "q1"
    assert "show_alert" not in answer and "text" not in answer
    return answer["url"]


async def test_play_on_a_chat_message_answers_a_signed_link(
    bot: Bot, session: RecordingSession
) -> None:
    game = message(77, FORUM, message_thread_id=7, is_topic_message=True, game=GAME)
    await feed(bot, dispatcher(links()), play(message=game))
    ticket = HmacTokenSigner(KEY).verify(token_of(answered_url(session)), START_MS // 1000)
    assert ticket.user_id == 42 and ticket.first_name == "An"
    assert ticket.message == GameMessage(chat_id=-100300, message_id=77, topic_id=7)
    assert ticket.expires_at == START_MS // 1000 + TOKEN_LIFETIME_S == START_MS // 1000 + 6 * 3600


async def test_play_on_an_inaccessible_message_still_names_it(
    bot: Bot, session: RecordingSession
) -> None:
    await feed(bot, dispatcher(links()), play(message=message(78, SUPERGROUP, date=0)))
    ticket = HmacTokenSigner(KEY).verify(token_of(answered_url(session)), START_MS // 1000)
    assert ticket.message == GameMessage(chat_id=-100200, message_id=78)


async def test_play_on_an_inline_message_names_the_inline_id(
    bot: Bot, session: RecordingSession
) -> None:
    await feed(bot, dispatcher(links()), play(inline_message_id="AgAAAExample"))
    ticket = HmacTokenSigner(KEY).verify(token_of(answered_url(session)), START_MS // 1000)
    assert ticket.message == GameMessage(inline_message_id="AgAAAExample")
    assert ticket.user_id == 42


async def test_play_while_disabled_shows_the_alert(bot: Bot, session: RecordingSession) -> None:
    await feed(bot, dispatcher(links(enabled=False)), play(inline_message_id="AgAAAExample"))
    assert session.named("answerCallbackQuery") == [
        {"callback_query_id": "q1", "text": GAME_DISABLED, "show_alert": True}
    ]


async def test_play_without_a_game_message_shows_a_clear_alert(
    bot: Bot, session: RecordingSession
) -> None:
    await feed(bot, dispatcher(links()), play())
    assert session.named("answerCallbackQuery") == [
        {"callback_query_id": "q1", "text": NO_GAME_MESSAGE, "show_alert": True}
    ]


async def test_other_games_are_not_ours(bot: Bot, session: RecordingSession) -> None:
    await feed(bot, dispatcher(links()), play(short_name="other", inline_message_id="x"))
    assert session.calls == []


async def test_a_late_answer_does_not_raise(bot: Bot, session: RecordingSession) -> None:
    session.answer("answerCallbackQuery", Fail(400, "Bad Request: query is too old"))
    await feed(bot, dispatcher(links()), play(inline_message_id="AgAAAExample"))
    assert len(session.named("answerCallbackQuery")) == 1


# --- score reports -------------------------------------------------------------------------


class FakeSleep:
    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def reporter(bot: Bot, sleep: FakeSleep | None = None, **bounds: Any) -> TelegramScoreReporter:
    return TelegramScoreReporter(bot, sleep=sleep or FakeSleep(), **bounds)


CHAT_GAME = GameMessage(chat_id=-100200, message_id=77, topic_id=7)
RECORD = ScoreReport(ReportState.OK, new_record=True)  # Telegram took it: the best went up
FAILED = ScoreReport(ReportState.FAILED)
INLINE_GAME = GameMessage(inline_message_id="AgAAAExample")


async def test_a_chat_score_goes_to_the_game_message(bot: Bot, session: RecordingSession) -> None:
    assert await reporter(bot).report(42, 57, CHAT_GAME) == RECORD
    assert session.named("setGameScore") == [
        {"user_id": 42, "score": 57, "force": False, "chat_id": -100200, "message_id": 77}
    ]


async def test_an_inline_score_goes_to_the_inline_message(
    bot: Bot, session: RecordingSession
) -> None:
    assert await reporter(bot).report(42, 57, INLINE_GAME) == RECORD
    assert session.named("setGameScore") == [
        {"user_id": 42, "score": 57, "force": False, "inline_message_id": "AgAAAExample"}
    ]


async def test_a_score_that_is_not_higher_counts_as_saved_but_no_record(
    bot: Bot, session: RecordingSession
) -> None:
    """A tie with the player's best answers the same: the end screen shows no "Kỷ lục mới!"."""
    session.answer("setGameScore", Fail(400, "Bad Request: BOT_SCORE_NOT_MODIFIED"))
    assert await reporter(bot).report(42, 5, CHAT_GAME) == ScoreReport(ReportState.OK)
    assert len(session.named("setGameScore")) == 1


async def test_not_modified_after_a_5xx_is_still_no_record(
    bot: Bot, session: RecordingSession
) -> None:
    """The 5xx'd attempt may have put the score in: the reporter cannot tell, and says
    no record rather than one it cannot vouch for."""
    session.answer(
        "setGameScore", Fail(502, "Bad Gateway"), Fail(400, "Bad Request: BOT_SCORE_NOT_MODIFIED")
    )
    assert await reporter(bot).report(42, 57, CHAT_GAME) == ScoreReport(ReportState.OK)
    assert len(session.named("setGameScore")) == 2


@pytest.mark.parametrize(
    "failure",
    [
        Fail(403, "Forbidden: bot was kicked from the supergroup chat"),
        Fail(400, "Bad Request: message not found"),
    ],
)
async def test_a_4xx_fails_at_once(bot: Bot, session: RecordingSession, failure: Fail) -> None:
    session.answer("setGameScore", failure)
    sleep = FakeSleep()
    assert await reporter(bot, sleep).report(42, 57, CHAT_GAME) == FAILED
    assert len(session.named("setGameScore")) == 1 and sleep.waits == []


async def test_a_retried_5xx_succeeds(bot: Bot, session: RecordingSession) -> None:
    session.answer(
        "setGameScore", Fail(502, "Bad Gateway"), Fail(500, "Internal Server Error"), True
    )
    sleep = FakeSleep()
    assert (
        await reporter(bot, sleep, first_backoff_s=0.5).report(42, 57, CHAT_GAME) == RECORD
    )
    assert len(session.named("setGameScore")) == 3
    assert sleep.waits == [0.5, 1.0]


async def test_flood_control_waits_as_told_then_network_errors_retry(
    bot: Bot, session: RecordingSession
) -> None:
    session.answer(
        "setGameScore",
        Fail(429, "Too Many Requests: retry after 3", retry_after=3),
        TelegramNetworkError(method=None, message="ClientConnectorError"),  # type: ignore[arg-type]
        True,
    )
    sleep = FakeSleep()
    assert (
        await reporter(bot, sleep, first_backoff_s=0.5).report(42, 57, CHAT_GAME) == RECORD
    )
    assert sleep.waits == [3.0, 1.0]  # the backoff grows with each attempt


async def test_retries_stop_after_a_few_attempts(bot: Bot, session: RecordingSession) -> None:
    session.answer("setGameScore", *[Fail(500, "Internal Server Error")] * 10)
    assert await reporter(bot, max_attempts=4).report(42, 57, CHAT_GAME) == FAILED
    assert len(session.named("setGameScore")) == 4


async def test_a_retry_after_beyond_the_budget_gives_up(
    bot: Bot, session: RecordingSession
) -> None:
    session.answer("setGameScore", Fail(429, "Too Many Requests: retry after 600", retry_after=600))
    sleep = FakeSleep()
    assert await reporter(bot, sleep, budget_s=30).report(42, 57, CHAT_GAME) == FAILED
    assert sleep.waits == []


async def test_a_telegram_that_never_answers_fails_within_the_bound(
    bot: Bot, session: RecordingSession
) -> None:
    session.answer("setGameScore", HANG, HANG, HANG, HANG)
    loop = asyncio.get_running_loop()
    started = loop.time()
    # Real waits this time, to show the whole budget holds.
    report = TelegramScoreReporter(bot, attempt_timeout_s=0.05, budget_s=0.3, first_backoff_s=0.01)
    assert await report.report(42, 57, CHAT_GAME) == FAILED
    assert loop.time() - started < 1.0
    assert 1 <= len(session.named("setGameScore")) <= 4


# --- running: polling, webhook ------------------------------------------------------------


async def wait_for(predicate: Any, timeout_s: float = 3.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.01)


async def test_polling_takes_updates_and_stops_cleanly(bot: Bot, session: RecordingSession) -> None:
    runner = TelegramRunner(bot, dispatcher(links()), "polling", polling_timeout_s=1)
    loop = asyncio.get_running_loop()
    async with runner.lifespan():
        await session.updates.put(command())
        await wait_for(lambda: session.named("sendGame"))
        started = loop.time()
    assert loop.time() - started < 2.0
    assert session.closed
    methods = [c.method for c in session.calls]
    assert "deleteWebhook" in methods and methods.index("deleteWebhook") < methods.index(
        "getUpdates"
    )
    assert session.named("setMyCommands") == [
        {"commands": [
            {"command": "noitu", "description": COMMAND_DESCRIPTION},
            {"command": "noitungay", "description": DAILY_COMMAND_DESCRIPTION},
            {"command": "noituphong", "description": ROOM_COMMAND_DESCRIPTION},
            {"command": "noitutop", "description": TOP_COMMAND_DESCRIPTION},
            {"command": "baotu", "description": REPORT_COMMAND_DESCRIPTION},
            {"command": "tu", "description": LOOKUP_COMMAND_DESCRIPTION},
        ]}
    ]
    assert session.named("deleteWebhook") == [{"drop_pending_updates": False}]


async def test_polling_survives_a_telegram_that_is_down_at_start(
    bot: Bot, session: RecordingSession
) -> None:
    down = TelegramNetworkError(method=None, message="ClientConnectorError")  # type: ignore[arg-type]
    session.answer("deleteWebhook", down)
    session.answer("setMyCommands", Fail(502, "Bad Gateway"))
    runner = TelegramRunner(
        bot, dispatcher(links()), "polling", polling_timeout_s=1, first_retry_s=0.01
    )
    async with runner.lifespan():
        await session.updates.put(command())
        await wait_for(lambda: session.named("sendGame"))
        await wait_for(lambda: len(session.named("setMyCommands")) == 2)
    assert len(session.named("deleteWebhook")) == 2


async def test_a_second_poller_is_reported_once_and_polling_goes_on(
    bot: Bot, session: RecordingSession
) -> None:
    conflict = Fail(409, "Conflict: terminated by other getUpdates request")
    session.answer("getUpdates", conflict)
    runner = TelegramRunner(bot, dispatcher(links()), "polling", polling_timeout_s=1)
    with structlog.testing.capture_logs() as logs:
        async with runner.lifespan():
            await session.updates.put(command())
            await wait_for(lambda: session.named("sendGame"), timeout_s=10)
    conflicts = [e for e in logs if e["event"] == "telegram_conflict"]
    assert len(conflicts) == 1
    assert "TELEGRAM_MODE=none" in conflicts[0]["problem"]


async def test_mode_none_takes_no_updates(bot: Bot, session: RecordingSession) -> None:
    runner = TelegramRunner(bot, dispatcher(links()), "none")
    async with runner.lifespan():
        await asyncio.sleep(0.05)
    assert session.calls == [] and session.closed


def webhook_app(bot: Bot) -> tuple[Litestar, str]:
    dp = dispatcher(links())
    secret = webhook_secret(BOT_TOKEN)
    url = f"{BASE_URL}/telegram/webhook"
    runner = TelegramRunner(bot, dp, "webhook", webhook_url=url, webhook_secret=secret)
    app = Litestar(route_handlers=[webhook_route(bot, dp, secret)], lifespan=[runner.lifespan])
    return app, secret


async def test_webhook_registers_and_checks_the_secret(bot: Bot, session: RecordingSession) -> None:
    app, secret = webhook_app(bot)
    async with AsyncTestClient(app) as client:
        await wait_for(lambda: session.named("setWebhook"))
        (registered,) = session.named("setWebhook")
        assert registered["url"] == f"{BASE_URL}/telegram/webhook"
        assert registered["secret_token"] == secret and len(secret) == 64
        assert set(registered["allowed_updates"]) == {"message", "channel_post", "callback_query"}

        no_secret = await client.post("/telegram/webhook", json=command(update_id=1))
        wrong = await client.post(
            "/telegram/webhook", json=command(update_id=1), headers={SECRET_HEADER: "x" * 64}
        )
        assert (no_secret.status_code, wrong.status_code) == (401, 401)
        assert session.named("sendGame") == []

        right = {SECRET_HEADER: secret}
        first = await client.post("/telegram/webhook", json=command(update_id=1), headers=right)
        again = await client.post("/telegram/webhook", json=command(update_id=1), headers=right)
        garbage = await client.post("/telegram/webhook", content=b"{not json", headers=right)
        assert (first.status_code, again.status_code, garbage.status_code) == (200, 200, 400)
        assert len(session.named("sendGame")) == 1  # the re-sent update is ignored
    assert session.closed


def test_the_webhook_secret_follows_the_bot_token() -> None:
    assert webhook_secret(BOT_TOKEN) == webhook_secret(BOT_TOKEN)
    assert webhook_secret(BOT_TOKEN) != webhook_secret("123456:OTHER")


# --- wiring ------------------------------------------------------------------------------


def container_for(env: dict[str, str]) -> Container:
    container = Container()
    container.settings.override(load_settings({"NOITU_ACCESS_LOG": "0", **env}))
    return container


def paths(app: Litestar) -> set[str]:
    return {route.path for route in app.routes}


def test_a_bot_token_makes_telegram_the_score_reporter() -> None:
    container = container_for(
        {"TELEGRAM_BOT_TOKEN": BOT_TOKEN, "GAME_BASE_URL": BASE_URL, "TELEGRAM_MODE": "webhook"}
    )
    app = create_app(container)
    assert isinstance(container.score_reporter(), TelegramScoreReporter)
    assert {"/telegram/webhook", "/games/noitu/api/start"} <= paths(app)


def test_polling_has_no_webhook_route_and_a_disabled_game_no_game_routes() -> None:
    container = container_for(
        {"TELEGRAM_BOT_TOKEN": BOT_TOKEN, "GAME_BASE_URL": "http://insecure.example.com"}
    )
    app = create_app(container)
    assert not any(p.startswith(("/telegram", "/games")) for p in paths(app))
    assert isinstance(container.score_reporter(), TelegramScoreReporter)


def test_modules_without_noitu_run_nothing_of_noitu() -> None:
    container = container_for(
        {"TELEGRAM_BOT_TOKEN": BOT_TOKEN, "GAME_BASE_URL": BASE_URL, "MODULES": "other"}
    )
    app = create_app(container)
    assert not any(p.startswith(("/telegram", "/games")) for p in paths(app))
    assert not isinstance(container.score_reporter(), TelegramScoreReporter)


def test_a_malformed_bot_token_stops_the_start(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        create_app(container_for({"TELEGRAM_BOT_TOKEN": "not a token", "GAME_BASE_URL": BASE_URL}))
    assert stop.value.code == 2
    assert "TELEGRAM_BOT_TOKEN" in capsys.readouterr().err


# --- a slow or failing Telegram never slows or breaks a move ------------------------------


@pytest.mark.parametrize(
    ("answers", "bounds"),
    [
        ([HANG] * 4, {"attempt_timeout_s": 0.1, "budget_s": 0.4, "first_backoff_s": 0.01}),
        ([Fail(403, "Forbidden: bot was kicked from the group chat")], {}),
    ],
    ids=["hangs", "forbidden"],
)
async def test_a_failing_telegram_leaves_the_move_fast_and_the_view_failed(
    make_harness: Any,
    session: RecordingSession,
    bot: Bot,
    answers: list[Any],
    bounds: dict[str, Any],
) -> None:
    harness = await make_harness()
    harness.container.score_reporter.override(TelegramScoreReporter(bot, **bounds))
    harness.container.reset_singletons()  # the app's start already built the use cases
    session.answer("setGameScore", *answers)
    started = await harness.started(chat=-100200, message=77)

    loop = asyncio.get_running_loop()
    before = loop.time()
    moved = await harness.move(
        started["session"], "đầu óc"
    )  # "óc" starts no word: the bot is stuck
    assert loop.time() - before < 0.1
    state = moved.json()["state"]
    assert (state["status"], state["end_reason"]) == ("won", "bot_stuck")
    assert state["score"] > 0 and state["score_reported"] == "pending"

    await harness.background.settle()
    after = (await harness.post("state", {"session": started["session"]})).json()
    assert after["score_reported"] == "failed"
    assert session.named("setGameScore")[0] == {
        "user_id": 1,
        "score": state["score"],
        "force": False,
        "chat_id": -100200,
        "message_id": 77,
    }
