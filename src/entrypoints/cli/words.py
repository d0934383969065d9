"""`noitu words pending|add|reject|remove`: the operator's side of the words the players
bring (spec B11). It writes to the same store as the servers (the SQLite file in
NOITU_DATA_DIR, or Redis with NOITU_STORE=redis); every server plays an added word
within a few seconds, with no restart."""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from noitu.adapters.noitu.dictionary_file import DictionaryFormatError, DictionaryUnreadable
from noitu.application.errors import Busy
from noitu.application.noitu.words.change_words import WordsCommand
from noitu.application.noitu.words.messages import UNFIT
from noitu.domain.noitu.additions import ADDED_TIER, Action
from noitu.domain.noitu.rules import TIERS
from noitu.entrypoints.cli.noitu import build_container, settings_or_exit
from noitu.entrypoints.role import Role

if TYPE_CHECKING:
    from noitu.entrypoints.container import Container


def _when(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")


async def _pending(container: Container) -> int:
    found = await container.pending_words()()
    if not found:
        print("no reported words are pending")
        return 0
    width = max(len(p.word) for p in found)
    print(f"{'word':<{width}}  reporters  first report          last report")
    for item in found:
        print(f"{item.word:<{width}}  {item.reporters:>9}  {_when(item.first_ms)}  {_when(item.last_ms)}")
    return 0


async def _change(container: Container, words: tuple[str, ...], action: Action, tier: int) -> int:
    try:
        outcomes = await container.change_words()(WordsCommand(words, action, tier))
    except (DictionaryFormatError, DictionaryUnreadable) as error:
        print(f"noitu: bad dictionary: {error}", file=sys.stderr)
        return 2
    failed = 0
    for outcome in outcomes:
        if outcome.unfit is not None:
            failed += 1
            print(f"refused: {outcome.word}: {outcome.unfit.value} ({UNFIT[outcome.unfit]})")
        elif action is Action.ADD:
            if outcome.changed:
                print(f"added: {outcome.canonical} (tier {tier})")
            else:
                print(f"already in the game: {outcome.canonical}")
        elif outcome.changed:
            print(f"removed: {outcome.word}")
        else:
            print(f"not in the game: {outcome.word}")
    return 1 if failed else 0


async def _reject(container: Container, words: tuple[str, ...]) -> int:
    for word, pending in await container.reject_words()(words):
        was = f"{pending.reporters} reporter(s)" if pending else "was not pending"
        print(f"rejected: {word} ({was})")
    return 0


async def _run(args: argparse.Namespace) -> int:
    container = build_container(settings_or_exit(), Role.cli())
    try:
        if args.action == "pending":
            return await _pending(container)
        words = tuple(args.words)
        if args.action == "reject":
            return await _reject(container, words)
        action = Action.ADD if args.action == "add" else Action.REMOVE
        return await _change(container, words, action, args.tier)
    except Busy:
        print("noitu: the store (Redis) is unreachable", file=sys.stderr)
        return 2
    finally:
        if container.settings().store == "redis":
            await container.redis().aclose()


def words(args: argparse.Namespace) -> None:
    raise SystemExit(asyncio.run(_run(args)))


def add_arguments(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "words",
        help="the words players report: list, add, reject, remove",
        description=__doc__.split("\n\n")[0].replace("`", ""),
    )
    actions = parser.add_subparsers(dest="action", required=True)
    actions.add_parser("pending", help="the reported words waiting, with counts and dates")
    add = actions.add_parser("add", help="add words to the game (every server within seconds)")
    add.add_argument("words", nargs="+", metavar="WORD")
    add.add_argument(
        "--tier", type=int, choices=TIERS, default=ADDED_TIER,
        help=f"1 (most common) to 4; default {ADDED_TIER}: the bots' vocabularies stay as they are",
    )
    reject = actions.add_parser("reject", help="turn reported words down (they stay out)")
    reject.add_argument("words", nargs="+", metavar="WORD")
    remove = actions.add_parser("remove", help="take words out of new moves")
    remove.add_argument("words", nargs="+", metavar="WORD")
    parser.set_defaults(run=words, tier=ADDED_TIER)
