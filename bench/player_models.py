"""`noitu bench bots --players …`: models of a person against each level, under the
server's own rules.

Two models of a person who knows the common words (tier ≤ 2, `COMMON_TIER`):

- `casual` plays a random legal common word. With no common word left it loses, as a
  person who knows no other word does (in the game: the clock runs out, or "Chịu thua").
- `careful` plays the common word that leaves the bot the fewest replies (every unused
  word starting with its last syllable, as the rules count them; ties at random), and
  loses the same way.

A game is a real `Game`: `Game.start` opens it at the level, as `api/start` does; each
word of the player goes through `Game.play` (the rules' checks, the 300-word cap and the
level's `Opponent`, as `api/move` does). The clock never runs: every word comes at once.
The player always moves first, as in the game; so there are no pairs of games here.
Everything is a function of the seed.
"""

from __future__ import annotations

import json
import random
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TextIO

from tqdm import tqdm

from noitu.bench.bots import wilson
from noitu.bench.machine import percentile
from noitu.domain.noitu.bots import BotIndex, make_opponents
from noitu.domain.noitu.bots.picks import pick_unused
from noitu.domain.noitu.chain import Chain, Side
from noitu.domain.noitu.game import Game, Status
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.opponent import Difficulty
from noitu.domain.noitu.rules import COMMON_TIER, TIERS, TurnClock

PROGRESS_FROM_GAMES = 50


class PlayerModel(Protocol):
    def choose(self, chain: Chain, rng: random.Random) -> int | None:
        """The player's next word, or None: the player knows no word here and loses."""
        ...


class CasualPlayer:
    """A random legal common word (tier ≤ 2); None when no common word is legal."""

    def __init__(self, index: BotIndex) -> None:
        self.index = index

    def choose(self, chain: Chain, rng: random.Random) -> int | None:
        return pick_unused(self.index.common_starting_with(chain.current), chain.used, rng)


class CarefulPlayer:
    """The legal common word leaving the bot the fewest replies (ties at random); None
    when no common word is legal."""

    def __init__(self, index: BotIndex) -> None:
        self.index = index

    def choose(self, chain: Chain, rng: random.Random) -> int | None:
        used = chain.used
        replies_after = chain.replies_after
        fewest: list[int] = []
        least = -1
        for word in self.index.common_starting_with(chain.current):
            if word in used:
                continue
            replies = replies_after(word)
            if least < 0 or replies < least:
                least, fewest = replies, [word]
            elif replies == least:
                fewest.append(word)
        return fewest[rng.randrange(len(fewest))] if fewest else None


PLAYER_MODELS = {"casual": CasualPlayer, "careful": CarefulPlayer}
LEVELS = tuple(d.value for d in Difficulty)


def parse_names(text: str, known: Sequence[str], what: str) -> list[str]:
    """A comma-separated list of names, each one of `known`, in the order given."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise ValueError(f"no {what} given; expected some of {', '.join(known)}")
    for name in names:
        if name not in known:
            raise ValueError(f"unknown {what} {name!r}; expected one of {', '.join(known)}")
    return list(dict.fromkeys(names))


@dataclass(slots=True)
class PersonGame:
    """One game of a player model against a level."""

    index: int
    player_won: bool
    end_reason: str  # the game's EndReason, or "player_stuck" (no common word left)
    words: tuple[int, ...]  # the final chain, the opening first
    by_bot: tuple[bool, ...]  # whether each word of the chain is the bot's

    @property
    def length(self) -> int:
        return len(self.words)


def play_person_game(
    lexicon: Lexicon,
    player: PlayerModel,
    level: Difficulty,
    opponents: dict,
    *,
    index: int,
    seed: int,
) -> PersonGame:
    """One game as the server plays it: the level opens, the player moves first."""
    game = Game.start(lexicon, TurnClock(), level, random.Random(f"{seed}/opening"), 0)
    bot_rng = random.Random(f"{seed}/bot")
    player_rng = random.Random(f"{seed}/player")
    opponent = opponents[level]
    reason = ""
    while not game.is_over:
        word = player.choose(game.chain, player_rng)
        if word is None:
            reason = "player_stuck"
            break
        outcome = game.play(lexicon.words[word], 0, opponent, bot_rng)
        if not outcome.accepted or outcome.player_word != word:
            raise AssertionError(f"the player model's word {lexicon.words[word]!r} was refused")
    if game.is_over:
        reason = game.end_reason.value if game.end_reason is not None else ""
    links = game.chain.links
    return PersonGame(
        index=index,
        player_won=game.status is Status.WON,
        end_reason=reason,
        words=tuple(link.word.id for link in links),
        by_bot=tuple(link.by is Side.BOT for link in links),
    )


def run_players(
    lexicon: Lexicon,
    players: Sequence[str],
    levels: Sequence[str],
    games: int,
    seed: int = 1,
    *,
    progress: bool = True,
    stream: TextIO | None = None,
) -> dict[tuple[str, str], list[PersonGame]]:
    """`games` games of each player model against each level (one index, one opponent
    per level, shared by every game, as the server shares them)."""
    index = BotIndex(lexicon)
    opponents = make_opponents(index)
    found: dict[tuple[str, str], list[PersonGame]] = {}
    for player_name in players:
        for level_name in levels:
            player = PLAYER_MODELS[player_name](index)
            level = Difficulty(level_name)
            bar = tqdm(
                total=games, desc=f"{player_name} vs {level_name}", unit="game",
                file=stream, disable=not progress or games < PROGRESS_FROM_GAMES,
                mininterval=5.0,
            )
            records = []
            with bar:
                for number in range(games):
                    records.append(
                        play_person_game(
                            lexicon, player, level, opponents,
                            index=number, seed=seed * 1_000_003 + number,
                        )
                    )
                    bar.update(1)
            found[(player_name, level_name)] = records
    return found


# --- statistics ----------------------------------------------------------------------------


def summarize_cell(lexicon: Lexicon, records: Sequence[PersonGame]) -> dict:
    count = len(records)
    wins = sum(r.player_won for r in records)
    low, high = wilson(wins, count)
    lengths = sorted(r.length for r in records)
    tiers: Counter[int] = Counter()
    for record in records:
        # The bot's replies; the opening (the first word) is counted apart.
        for word, by_bot in zip(record.words[1:], record.by_bot[1:]):
            if by_bot:
                tiers[lexicon.tiers[word]] += 1
    replies = sum(tiers.values())
    openings = Counter(lexicon.tiers[r.words[0]] for r in records)
    return {
        "games": count,
        "player_wins": {"count": wins, "rate": wins / count if count else 0.0, "ci95": [low, high]},
        "length": {
            "mean": statistics.fmean(lengths) if lengths else 0.0,
            "median": statistics.median(lengths) if lengths else 0.0,
            "p90": percentile(lengths, 0.90),
            "max": lengths[-1] if lengths else 0,
        },
        "bot_words": replies,
        "bot_tiers": {str(t): tiers[t] / replies if replies else 0.0 for t in TIERS},
        "bot_common": (
            sum(tiers[t] for t in TIERS if t <= COMMON_TIER) / replies if replies else 0.0
        ),
        "opening_common": (
            sum(openings[t] for t in TIERS if t <= COMMON_TIER) / count if count else 0.0
        ),
        "end_reasons": dict(Counter(r.end_reason for r in records).most_common()),
    }


def summarize_players(
    lexicon: Lexicon, found: dict[tuple[str, str], list[PersonGame]], seed: int, show: int = 0
) -> dict:
    cells = []
    for (player, level), records in found.items():
        cell = {"player": player, "level": level, **summarize_cell(lexicon, records)}
        if show:
            cell["samples"] = [sample(lexicon, r) for r in records[:show]]
        cells.append(cell)
    games = len(next(iter(found.values()), []))
    return {"mode": "players", "seed": seed, "games": games, "cells": cells}


def sample(lexicon: Lexicon, record: PersonGame) -> dict:
    return {
        "game": record.index,
        "player_won": record.player_won,
        "end_reason": record.end_reason,
        "chain": [
            {
                "word": lexicon.words[w],
                "by": "bot" if by_bot else "player",
                "tier": lexicon.tiers[w],
            }
            for w, by_bot in zip(record.words, record.by_bot)
        ],
    }


def format_players(report: dict) -> str:
    lines = [
        (f"players vs levels: {report['games']} games each, seed {report['seed']} "
         "(the level opens as api/start does; the player moves first)"),
        "",
        (f"{'player':<9}{'level':<8}{'games':>6}  {'player wins [95%]':>24}  {'median':>6}"
         f"{'p90':>5}  {'bot words':>9}  {'t1':>5}{'t2':>5}{'t3':>5}{'t4':>5}  {'t≤2':>6}"),
    ]
    for cell in report["cells"]:
        wins = cell["player_wins"]
        low, high = wins["ci95"]
        share = cell["bot_tiers"]
        lines.append(
            f"{cell['player']:<9}{cell['level']:<8}{cell['games']:>6}  "
            f"{wins['count']:>5} {100 * wins['rate']:5.1f}% [{100 * low:4.1f}-{100 * high:5.1f}]  "
            f"{cell['length']['median']:>6g}{cell['length']['p90']:>5g}  {cell['bot_words']:>9}  "
            + "".join(f"{100 * share[str(t)]:>5.1f}" for t in TIERS)
            + f"  {100 * cell['bot_common']:>5.1f}%"
        )
    lines += [
        "",
        ("game length in words, the opening included; the bot's words are its replies "
         "(the opening apart), by tier (%)"),
        "how the games ended:",
    ]
    for cell in report["cells"]:
        reasons = ", ".join(f"{name} {n}" for name, n in cell["end_reasons"].items())
        lines.append(f"  {cell['player']} vs {cell['level']}: {reasons}")
    for cell in report["cells"]:
        for game in cell.get("samples", []):
            lines += ["", format_sample(cell["player"], cell["level"], game)]
    return "\n".join(lines)


def format_sample(player: str, level: str, game: dict) -> str:
    outcome = "the player wins" if game["player_won"] else "the bot wins"
    head = (f"{player} vs {level}, game {game['game']}: {outcome} ({game['end_reason']}), "
            f"{len(game['chain'])} words")
    words = []
    for link in game["chain"]:
        rare = f" (tier {link['tier']})" if link["tier"] > COMMON_TIER else ""
        words.append(f"{'bot' if link['by'] == 'bot' else 'you'}: {link['word']}{rare}")
    return head + "\n  " + "\n  ".join(words)


def run_players_command(lexicon: Lexicon, args) -> None:
    """`noitu bench bots --players …` (its flags are in `noitu.bench.cli`)."""
    try:
        players = parse_names(args.players, tuple(PLAYER_MODELS), "player model")
        levels = parse_names(args.levels, LEVELS, "level")
    except ValueError as error:
        raise SystemExit(f"noitu bench bots: {error}") from None
    if args.show < 0:
        raise SystemExit("noitu bench bots: --show must be 0 or more")
    found = run_players(lexicon, players, levels, args.games, args.seed, progress=not args.quiet)
    report = summarize_players(lexicon, found, args.seed, args.show)
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        print(format_players(report))
