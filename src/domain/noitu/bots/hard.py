"""Hard: negamax with alpha-beta, 4 plies, at most 20,000 positions (spec "Rules")."""

from __future__ import annotations

import random
from dataclasses import dataclass

from noitu.domain.noitu.bots.counters import (
    edges_to_exhausted,
    used_draw_moves,
    used_per_edge,
)
from noitu.domain.noitu.bots.index import STATIC, WIN, BotIndex
from noitu.domain.noitu.bots.picks import common_first, random_word_on_edge
from noitu.domain.noitu.chain import Chain

HARD_DEPTH = 4
HARD_NODE_LIMIT = 20_000
DRAWLESS = STATIC // 2  # a syllable of outcome 0 with no drawing move left


@dataclass(slots=True)
class SearchStats:
    """What the last hard search cost; observable by the benchmark and the tests."""

    positions: int = 0
    exhausted: bool = False


class HardOpponent:
    """Negamax with alpha-beta over the real game state, 4 plies, ≤ 20,000 positions.

    The search runs over edges (words sharing a first and a last syllable are
    interchangeable for the rest of the game) and respects the used words: every
    position it visits knows exactly which words are left, and a side that has a word
    leaving the other side no reply always plays it. Where the search stops, a position
    is valued by the Lexicon's retrograde outcome of its syllable (who can force the
    end, and how soon, were words never used up); a syllable neither side can force is
    worth 0, unless the game has used all its drawing moves (it is then lost by the
    analysis) or the side to move can send the other side into such a syllable. Those
    values also order the moves, best first, so that alpha-beta cuts most of the tree,
    and at the last ply a move is not even tried once its static value cannot beat what
    the side already has.

    The root moves are shuffled by the random source before that ordering, so a tie is
    broken at random but the choice is a function of (chain, rng).
    """

    def __init__(
        self, index: BotIndex, depth: int = HARD_DEPTH, node_limit: int = HARD_NODE_LIMIT
    ) -> None:
        self.index = index
        if depth < 1:
            raise ValueError("the search needs at least one ply")
        self.depth = depth
        self.node_limit = node_limit
        self.last_search = SearchStats()

    def choose(self, chain: Chain, rng: random.Random) -> int | None:
        index = self.index
        stats = SearchStats(positions=1)
        self.last_search = stats
        root = chain.current
        out_degree = chain.lexicon.out_degree
        edge_last = index.edge_last
        edge_size = index.edge_size
        used_from = chain.used_from
        used_edges = used_per_edge(index, chain)

        moves: list[int] = []
        winning: list[int] = []
        for edge in index.edges_ranked[root]:
            if edge_size[edge] > used_edges.get(edge, 0):
                last = edge_last[edge]
                if out_degree[last] - used_from.get(last, 0) - (last == root) == 0:
                    winning.append(edge)
                moves.append(edge)
        if not moves:
            return None
        if winning:
            return self._winning_word(chain, winning, rng)
        if len(moves) == 1 or self.depth == 1:
            return random_word_on_edge(index, chain, moves[0], rng)

        search = Search(index, chain, used_edges, self.node_limit, stats)
        edge = search.best_root_move(root, moves, self.depth, rng)
        return random_word_on_edge(index, chain, edge, rng)

    def _winning_word(self, chain: Chain, edges: list[int], rng: random.Random) -> int:
        """A random word among those leaving no reply, a common one when there is any."""
        edge_of = self.index.edge_of
        winning = set(edges)
        words = [w for w in chain.legal_words() if edge_of[w] in winning]
        return common_first(words, chain.lexicon.tiers, rng)


class Search:
    """One hard search: private copies of the chain's counters that moves are made on
    and taken back, and the negamax itself.

    Besides the words left, the search follows two things the chain tracks for whole
    games: syllables with no word left (a move there wins at once; what the search's
    own moves add goes into an overlay undone with them) and the drawing moves used of
    each syllable of outcome 0 (with none left, a syllable is "drawless": a move there
    leaves the other side lost by the Lexicon's analysis).
    """

    def __init__(
        self,
        index: BotIndex,
        chain: Chain,
        used_edges: dict[int, int],
        node_limit: int,
        stats: SearchStats,
    ) -> None:
        self.stats = stats
        self.limit = node_limit
        self.out_degree = chain.lexicon.out_degree
        self.edge_last = index.edge_last
        self.edge_first = index.edge_first
        self.edge_size = index.edge_size
        self.edges_from = index.edges_from
        self.edges_into = index.edges_into
        self.ranked = index.edges_ranked
        self.outcome = index.outcome
        self.draw_moves = index.draw_moves
        self.draw_edges_from = index.draw_edges_from
        self.static = index.static
        self.used_from = dict(chain.used_from)
        self.used_edges = dict(used_edges)
        self.used_draw = used_draw_moves(index, chain)
        self.to_exhausted = edges_to_exhausted(index, chain)
        self.more_to_exhausted: dict[int, list[int]] = {}

    # --- moves --------------------------------------------------------------------

    def play(self, syllable: int, edge: int, last: int) -> int:
        """Make a move; returns what `take_back` needs (bit 1: the syllable ran out of
        words, bit 4: the move was a drawing move)."""
        used_edges = self.used_edges
        used_edges[edge] = used_edges.get(edge, 0) + 1
        used_from = self.used_from
        spent = used_from[syllable] = used_from.get(syllable, 0) + 1
        changes = 0
        if spent == self.out_degree[syllable]:
            changes |= 1
            self._overlay(self.more_to_exhausted, syllable)
        outcome = self.outcome
        if not outcome[syllable] and not outcome[last]:
            changes |= 4
            used_draw = self.used_draw
            used_draw[syllable] = used_draw.get(syllable, 0) + 1
        return changes

    def take_back(self, syllable: int, edge: int, changes: int) -> None:
        self.used_edges[edge] -= 1
        self.used_from[syllable] -= 1
        if changes:
            if changes & 1:
                self._drop_overlay(self.more_to_exhausted, syllable)
            if changes & 4:
                self.used_draw[syllable] -= 1

    def _overlay(self, overlay: dict[int, list[int]], syllable: int) -> None:
        edge_first = self.edge_first
        for edge in self.edges_into[syllable]:
            overlay.setdefault(edge_first[edge], []).append(edge)

    def _drop_overlay(self, overlay: dict[int, list[int]], syllable: int) -> None:
        edge_first = self.edge_first
        for edge in self.edges_into[syllable]:
            overlay[edge_first[edge]].pop()

    def _available(self, edges: list[int] | None) -> bool:
        if edges:
            edge_size = self.edge_size
            used_edges = self.used_edges
            for edge in edges:
                if edge_size[edge] > used_edges.get(edge, 0):
                    return True
        return False

    # --- evaluation -----------------------------------------------------------------

    def can_win(self, syllable: int, remaining: int) -> bool:
        """Whether the side to move has a word leaving the other side no reply."""
        if self.outcome[syllable] == 2:
            # A word into a syllable no word starts with (such a word ends the game, so
            # it is never used while a game or this search goes on), or a last looping
            # word.
            return True
        if self._available(self.to_exhausted.get(syllable)):
            return True
        if self._available(self.more_to_exhausted.get(syllable)):
            return True
        if remaining == 1:
            # The last word from here may end here too, leaving nothing to answer.
            edge_last = self.edge_last
            for edge in self.edges_from[syllable]:
                if edge_last[edge] == syllable and self._available([edge]):
                    return True
        return False

    def drawless_moves(self, syllable: int) -> list[int]:
        """Available edges into a drawless syllable (good moves for the side to move)."""
        found: list[int] = []
        edges = self.draw_edges_from[syllable]
        if edges:
            edge_size = self.edge_size
            edge_last = self.edge_last
            used_edges = self.used_edges
            used_draw = self.used_draw
            draw_moves = self.draw_moves
            for edge in edges:
                last = edge_last[edge]
                if used_draw.get(last, 0) >= draw_moves[last] and edge_size[edge] > used_edges.get(edge, 0):
                    found.append(edge)
        return found

    def leaf(self, syllable: int) -> int:
        """The static value of a position that has moves and no winning word."""
        if self.outcome[syllable]:
            return self.static[syllable]
        if self.draw_moves[syllable] <= self.used_draw.get(syllable, 0):
            return -DRAWLESS  # every move left loses by the analysis
        if self.drawless_moves(syllable):
            return DRAWLESS  # a move leaves the other side that way
        return 0

    # --- search ---------------------------------------------------------------------

    def negamax(self, syllable: int, depth: int, alpha: int, beta: int) -> int:
        """The value of the position for the side to move at `syllable`, `depth` plies
        left (the last ply only looks for a winning word), fail-soft alpha-beta."""
        stats = self.stats
        if stats.positions >= self.limit:
            # Out of budget: the position is not searched (nor counted), only valued.
            stats.exhausted = True
            return self.static[syllable]
        stats.positions += 1
        remaining = self.out_degree[syllable] - self.used_from.get(syllable, 0)
        if remaining <= 0:
            return -WIN - depth
        if self.can_win(syllable, remaining):
            return WIN + depth
        if depth <= 1:
            return self.leaf(syllable)

        edge_size = self.edge_size
        edge_last = self.edge_last
        used_edges = self.used_edges
        outcome = self.outcome
        static = self.static
        negamax = self.negamax
        play = self.play
        take_back = self.take_back
        # After a move that does not win at once, the best that can follow is the other
        # side having only moves that let this side win at once.
        best_possible = WIN + depth - 2
        best = -2 * WIN
        # Moves into a drawless syllable first: at the last ply they are the only
        # drawing moves that can beat 0, so the rest can be cut by their static value.
        tried = self.drawless_moves(syllable)
        for edge in tried:
            last = edge_last[edge]
            changes = play(syllable, edge, last)
            value = -negamax(last, depth - 1, -beta, -max(alpha, best))
            take_back(syllable, edge, changes)
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta or value >= best_possible:
                        return best
        for edge in self.ranked[syllable]:
            if edge_size[edge] <= used_edges.get(edge, 0) or (tried and edge in tried):
                continue
            last = edge_last[edge]
            if outcome[last] == 2:
                # This and every later edge lead where the other side wins at once.
                best = max(best, -WIN - depth + 1)
                break
            if depth == 2:
                # The reply is the last ply: a move is worth at most minus the static
                # value of where it leads (0 for a syllable of outcome 0 that is not
                # drawless, those came first), and the edges come sorted by that bound.
                bound = -static[last]
                if bound <= alpha:
                    best = max(best, bound)
                    break
            changes = play(syllable, edge, last)
            value = -negamax(last, depth - 1, -beta, -max(alpha, best))
            take_back(syllable, edge, changes)
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta or value >= best_possible:
                        break
        return best

    def best_root_move(self, root: int, moves: list[int], depth: int, rng: random.Random) -> int:
        """The root move with the best value; ties go to the first in a shuffled order
        (moves into a drawless syllable first, then by static value)."""
        static = self.static
        edge_last = self.edge_last
        outcome = self.outcome
        drawless = set(self.drawless_moves(root))
        order = moves[:]
        rng.shuffle(order)
        order.sort(key=lambda edge: (edge not in drawless, static[edge_last[edge]]))
        best_possible = WIN + depth - 2
        chosen = order[0]
        best = -2 * WIN
        for edge in order:
            last = edge_last[edge]
            if outcome[last] == 2 and best > -2 * WIN:
                break  # this and every later move let the player win at once
            changes = self.play(root, edge, last)
            if best == -2 * WIN:
                value = -self.negamax(last, depth - 1, -2 * WIN, 2 * WIN)
            else:
                # Only a better move matters: a null window first, the exact value after.
                value = -self.negamax(last, depth - 1, -best - 1, -best)
                if value > best:
                    value = -self.negamax(last, depth - 1, -2 * WIN, -best)
            self.take_back(root, edge, changes)
            if value > best:
                best, chosen = value, edge
                if best >= best_possible:
                    break
            if self.stats.positions >= self.limit:
                self.stats.exhausted = True
                break
        return chosen
