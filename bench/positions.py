"""Long games and positions from them: what the reply benchmarks and the load
generators play.

`SurvivorPolicy` plays to make a game last; `make_positions` collects positions where
the bot is to move from fixed-seed self-play. Everything here goes through the domain's
real Chain, rules and bots.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from noitu.domain.noitu.bots import BotIndex, EasyOpponent, make_opponents
from noitu.domain.noitu.bots.counters import edges_to_exhausted, used_per_edge
from noitu.domain.noitu.chain import Chain, Side
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.opponent import Opponent
from noitu.domain.noitu.rules import MAX_CHAIN_WORDS, draw_opening

# --- a policy that makes long games --------------------------------------------------------


class SurvivorPolicy:
    """Plays to make the game last, not to win. It ranks the legal moves by the bot
    index's outcome of their last syllable: first a syllable from which neither side
    can force the end, leaving at least two replies and no word that wins at once
    (a random one of those); then such a syllable with one reply; then one where the
    other side loses, as late as possible; then one where it wins, as late as possible;
    a word that ends the game last. Used to make deep positions and long benchmark
    games; not one of the game's difficulties."""

    def __init__(self, index: BotIndex) -> None:
        self.index = index

    def choose(self, chain: Chain, rng: random.Random) -> int | None:
        index = self.index
        syllable = chain.current
        used_edges = used_per_edge(index, chain)
        used_from = chain.used_from
        edge_size = index.edge_size
        edge_last = index.edge_last
        outcome = index.outcome
        out_degree = chain.lexicon.out_degree
        exhausted: dict[int, list[int]] | None = None  # derived only when needed
        lasting: list[int] = []
        best_rank, best = (9, 0), -1
        for edge in index.edges_from[syllable]:
            if edge_size[edge] <= used_edges.get(edge, 0):
                continue
            last = edge_last[edge]
            replies = out_degree[last] - used_from.get(last, 0) - (last == syllable)
            value = outcome[last]
            if replies <= 0 or value == -1:
                rank = (4, 0)
            elif value == 0:
                if replies > 1:
                    if exhausted is None:
                        exhausted = edges_to_exhausted(index, chain)
                    if not self._wins_at_once(chain, used_edges, exhausted, syllable, last):
                        lasting.append(edge)
                        continue
                rank = (1, -replies)
            elif value < 0:
                rank = (2, value)
            else:
                rank = (3, -value)
            if rank < best_rank:
                best_rank, best = rank, edge
        if lasting:
            edge = lasting[rng.randrange(len(lasting))]
        elif best >= 0:
            edge = best
        else:
            return None
        edge_of = index.edge_of
        used = chain.used
        words = [
            w for w in chain.lexicon.starting_with[syllable] if edge_of[w] == edge and w not in used
        ]
        return words[rng.randrange(len(words))]

    def _wins_at_once(
        self,
        chain: Chain,
        used_edges: dict[int, int],
        exhausted: dict[int, list[int]],
        syllable: int,
        target: int,
    ) -> bool:
        """Whether, after a move from `syllable` to `target` (other than its static dead
        ends), the side then to move at `target` has a word leaving no reply because
        some syllable ran out of words."""
        index = self.index
        edge_size = index.edge_size
        for edge in exhausted.get(target, ()):
            if edge_size[edge] > used_edges.get(edge, 0):
                return True
        # The move may use the last word of `syllable`: then any word back into it wins.
        if chain.unused_replies(syllable) == 1:
            edge_last = index.edge_last
            for edge in index.edges_from[target]:
                if edge_last[edge] == syllable and edge_size[edge] > used_edges.get(edge, 0):
                    return True
        return False


# --- positions from real games -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Position:
    kind: str  # opening, midgame, deep
    words: tuple[int, ...]  # the chain, bot to move


def word_ids(chain: Chain) -> tuple[int, ...]:
    return tuple(link.word.id for link in chain.links)


def chain_of(lexicon: Lexicon, words: Sequence[int]) -> Chain:
    """A chain of these words, the bot's first (the opening) and then every other one."""
    chain = Chain(lexicon)
    for i, word in enumerate(words):
        chain.append(word, Side.BOT if i % 2 == 0 else Side.PLAYER, 0)
    return chain


def make_positions(
    lexicon: Lexicon,
    index: BotIndex,
    per_kind: int = 1000,
    midgame_games: int = 250,
    deep_games: int = 60,
    seed: int = 2024,
) -> list[Position]:
    """Positions where the bot is to move, from self-play with fixed seeds, `per_kind`
    of each kind (fewer if the games do not yield that many):

    - opening: the opening as the game draws it and a first player word (a random
      legal word, common ones preferred, as a human would type).
    - midgame: bot turns of games where a player who plays to last meets each
      difficulty in turn (a fixed-seed sample of all of them).
    - deep: bot turns with 100 to 298 words used, from games where both sides play
      to last (most run to the 300-word cap).
    """
    positions: list[Position] = []
    human = EasyOpponent(index)
    for i in range(per_kind):
        rng = random.Random(seed * 7919 + i)
        chain = Chain(lexicon)
        chain.append(draw_opening(lexicon, rng), Side.BOT, 0)
        word = human.choose(chain, rng)
        if word is None:
            continue
        chain.append(word, Side.PLAYER, 0)
        positions.append(Position("opening", word_ids(chain)))

    survivor = SurvivorPolicy(index)
    bots: list[Opponent] = list(make_opponents(index).values())
    found: list[Position] = []
    for i in range(midgame_games):
        rng = random.Random(seed * 104729 + i)
        bot = bots[i % len(bots)]
        chain = Chain(lexicon)
        chain.append(draw_opening(lexicon, rng), Side.BOT, 0)
        while len(chain) < MAX_CHAIN_WORDS:
            word = survivor.choose(chain, rng)
            if word is None:
                break
            chain.append(word, Side.PLAYER, 0)
            if len(chain) >= MAX_CHAIN_WORDS:
                break  # the capping word ends the game: there is no reply to it
            found.append(Position("midgame", word_ids(chain)))
            reply = bot.choose(chain, rng)
            if reply is None:
                break
            chain.append(reply, Side.BOT, 0)
    sampler = random.Random(seed)
    positions += sampler.sample(found, min(per_kind, len(found)))

    found = []
    for i in range(deep_games):
        rng = random.Random(seed * 1299709 + i)
        chain = Chain(lexicon)
        chain.append(draw_opening(lexicon, rng), Side.BOT, 0)
        while len(chain) < MAX_CHAIN_WORDS:
            word = survivor.choose(chain, rng)
            if word is None:
                break
            chain.append(word, Side.BOT if len(chain) % 2 == 0 else Side.PLAYER, 0)
            if len(chain) % 2 == 0 and 100 <= len(chain) < MAX_CHAIN_WORDS:
                found.append(Position("deep", word_ids(chain)))
    positions += sampler.sample(found, min(per_kind, len(found)))
    return positions
