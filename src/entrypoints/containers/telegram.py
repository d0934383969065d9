"""Telegram's inbound side: the dispatcher with its handlers (the game links, the
words' commands), the webhook route and the runner (aiogram imported only when built).
"""

from __future__ import annotations

from dependency_injector import containers, providers

from noitu.adapters.http.paths import NOITU_PATH
from noitu.adapters.noitu.telegram import factories as telegram
from noitu.adapters.noitu.telegram.links import GameLinks


class Telegram(containers.DeclarativeContainer):
    core = providers.DependenciesContainer()
    noitu = providers.DependenciesContainer()
    store = providers.DependenciesContainer()
    settings = core.settings
    token_signer = core.token_signer
    clock = core.clock
    telegram_bot = core.telegram_bot
    group_cards = noitu.group_cards
    group_leaderboard = noitu.group_leaderboard
    file_report = noitu.file_report
    look_up_word = noitu.look_up_word
    change_words = noitu.change_words
    reject_words = noitu.reject_words

    game_links = providers.Singleton(
        GameLinks,
        base_url=settings.provided.game_base_url,
        issuer=providers.Callable(
            lambda s, signer: signer if s.game_enabled else None, settings, token_signer
        ),
        clock=clock,
        page_path=f"{NOITU_PATH}/",
    )
    telegram_dispatcher = providers.Singleton(
        telegram.make_dispatcher, game_links, group_cards, group_leaderboard, clock,
        daily_game=settings.provided.daily_game,
    )
    webhook_secret = providers.Singleton(telegram.webhook_secret_of, settings.provided.bot_token)
    seen_updates = store.seen_updates
    webhook_route = providers.Singleton(
        telegram.make_webhook_route, telegram_bot, telegram_dispatcher, webhook_secret, seen_updates
    )
    telegram_runner = providers.Singleton(
        telegram.make_runner,
        telegram_bot,
        telegram_dispatcher,
        settings.provided.effective_telegram_mode,
        settings.provided.webhook_url,
        webhook_secret,
    )
    # /baotu, /tu and the review buttons join the bot's handlers.
    words_bot = providers.Singleton(
        telegram.make_words_bot, file_report, look_up_word, change_words, reject_words,
        settings.provided.admin_chat,
    )
    telegram_dispatcher.add_kwargs(words=words_bot)
