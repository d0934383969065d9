"""The engine against a second, deliberately naive implementation of the rules.

The naive one keeps a dict of squares, scans the 8 neighbours of every piece by brute
force, sorts its moves at the end and reads the rules off spec A3/B1 line by line. Over
thousands of seeded random games (full games from the seeded placement, and small
random positions that end quickly) both must agree at every step on the legal actions,
the fight, the board, and the result.
"""

from __future__ import annotations

import random

from noitu.domain.arena.actions import Fight, Move, Pass
from noitu.domain.arena.board import Side
from noitu.domain.arena.match import Match, Phase

BEATS = {"ROCK": "SCISSORS", "SCISSORS": "PAPER", "PAPER": "ROCK"}
BASE = {"P1": (8, 0), "P2": (0, 8)}
OTHER = {"P1": "P2", "P2": "P1"}
ALL_IDS = [f"{s}-{k}-{n}" for s in ("P1", "P2") for k in ("ROCK", "PAPER", "SCISSORS") for n in range(1, 7)]


def owner(piece_id: str) -> str:
    return piece_id.split("-")[0]


def kind(piece_id: str) -> str:
    return piece_id.split("-")[1]


def naive_placement(seed: int) -> dict[tuple[int, int], str]:
    rng = random.Random(seed)
    squares: dict[tuple[int, int], str] = {}
    for side in ("P1", "P2"):
        free = []
        for r in range(9):
            for c in range(9):
                mine = r > c if side == "P1" else r < c
                if mine and (r, c) != BASE[side]:
                    free.append((r, c))
        rng.shuffle(free)
        order = [f"{side}-{k}-{n}" for k in ("ROCK", "PAPER", "SCISSORS") for n in range(1, 7)]
        for i, piece_id in enumerate(order):
            squares[free[i]] = piece_id
    return squares


class NaiveGame:
    def __init__(self, squares: dict[tuple[int, int], str], to_move: str, turn: int, limit: int):
        self.squares = dict(squares)
        self.to_move = to_move
        self.turn = turn
        self.limit = limit
        self.result: tuple[str | None, str, int] | None = None

    def legal(self) -> list:
        moves = []
        for (r, c), piece_id in list(self.squares.items()):
            if owner(piece_id) != self.to_move:
                continue
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    if dr == 0 and dc == 0:
                        continue
                    tr, tc = r + dr, c + dc
                    if tr < 0 or tr > 8 or tc < 0 or tc > 8:
                        continue
                    there = self.squares.get((tr, tc))
                    if there is not None and owner(there) == self.to_move:
                        continue
                    moves.append((piece_id, (r, c), (tr, tc)))
        moves.sort(key=lambda m: (m[0], m[2][0], m[2][1]))
        return moves if moves else ["PASS"]

    def apply(self, action) -> tuple[str, str, str] | None:
        fight = None
        if action != "PASS":
            piece_id, origin, target = action
            there = self.squares.get(target)
            if there is None:
                del self.squares[origin]
                self.squares[target] = piece_id
            else:
                a, d = kind(piece_id), kind(there)
                if a == d:
                    outcome = "TIE"
                elif BEATS[a] == d:
                    outcome = "WIN"
                    del self.squares[origin]
                    self.squares[target] = piece_id
                else:
                    outcome = "LOSE"
                    del self.squares[origin]
                fight = (piece_id, there, outcome)
        self.turn += 1
        self.to_move = OTHER[self.to_move]
        counts = {"P1": 0, "P2": 0}
        for piece_id in self.squares.values():
            counts[owner(piece_id)] += 1
        for side in ("P1", "P2"):
            holder = self.squares.get(BASE[side])
            if holder is not None and owner(holder) != side:
                self.result = (OTHER[side], "BASE_CAPTURED", self.turn)
                return fight
        for side in ("P1", "P2"):
            if counts[side] == 0:
                self.result = (OTHER[side], "NO_PIECES", self.turn)
                return fight
        if self.turn >= self.limit:
            if counts["P1"] > counts["P2"]:
                self.result = ("P1", "TURN_LIMIT", self.turn)
            elif counts["P2"] > counts["P1"]:
                self.result = ("P2", "TURN_LIMIT", self.turn)
            else:
                self.result = (None, "TURN_LIMIT", self.turn)
        return fight


def as_tuples(actions: tuple) -> list:
    out = []
    for a in actions:
        if isinstance(a, Pass):
            out.append("PASS")
        else:
            assert isinstance(a, Move)
            out.append((a.piece_id, (a.from_.row, a.from_.col), (a.to.row, a.to.col)))
    return out


def engine_squares(match: Match) -> dict[tuple[int, int], str]:
    return {(at.row, at.col): p.id for p, at in match.board.pieces()}


def choose(rng: random.Random, legal: list, game: NaiveGame, style: str) -> int:
    """An index into the legal list: uniformly random, or keen on fights, or racing for
    the enemy base (so that every kind of ending happens)."""
    if style == "fights" and rng.random() < 0.7:
        attacks = [i for i, m in enumerate(legal) if m != "PASS" and m[2] in game.squares]
        if attacks:
            return rng.choice(attacks)
    if style == "race" and rng.random() < 0.6:
        target = BASE[OTHER[game.to_move]]
        distance = [max(abs(m[2][0] - target[0]), abs(m[2][1] - target[1])) for m in legal]
        best = min(distance)
        return rng.choice([i for i, d in enumerate(distance) if d == best])
    return rng.randrange(len(legal))


def play_both(match: Match, game: NaiveGame, rng: random.Random, style: str) -> str:
    while True:
        assert engine_squares(match) == game.squares
        if game.result is not None:
            assert match.phase is Phase.FINISHED
            result = match.result
            assert result is not None
            winner = None if result.winner is None else result.winner.value
            assert (winner, result.reason.value, result.turns) == game.result
            assert match.sequence == 40 + match.turn + 1  # each action, then the end
            return result.reason.value
        assert match.phase is Phase.PLAYING
        assert match.current_player.value == game.to_move  # type: ignore[union-attr]
        assert match.turn == game.turn
        engine_legal = match.legal_actions()
        naive_legal = game.legal()
        assert as_tuples(engine_legal) == naive_legal
        index = choose(rng, naive_legal, game, style)
        fight = match.apply(engine_legal[index])
        expected = game.apply(naive_legal[index])
        if expected is None:
            assert fight is None
        else:
            assert isinstance(fight, Fight)
            assert (fight.attacker, fight.defender, fight.result.value) == expected


def random_position(rng: random.Random) -> dict[tuple[int, int], str]:
    """A few pieces per side anywhere, bases included, not already over."""
    while True:
        squares: dict[tuple[int, int], str] = {}
        for side in ("P1", "P2"):
            ids = rng.sample([i for i in ALL_IDS if owner(i) == side], rng.randint(1, 5))
            for piece_id in ids:
                while True:
                    at = (rng.randrange(9), rng.randrange(9))
                    if at not in squares:
                        squares[at] = piece_id
                        break
        over = any(
            squares.get(BASE[side]) is not None and owner(squares[BASE[side]]) != side
            for side in ("P1", "P2")
        )
        if not over:
            return squares


def test_full_games_from_the_seeded_placement_agree() -> None:
    rng = random.Random(20240601)
    endings: dict[str, int] = {}
    for game_number in range(150):
        seed = rng.randrange(2**32)
        limit = 200 if game_number % 3 == 0 else rng.randint(1, 120)
        match = Match.between_bots(f"G{game_number}", seed, turn_limit=limit)
        game = NaiveGame(naive_placement(seed), "P1", 0, limit)
        style = ("random", "fights", "race")[game_number % 3]
        ending = play_both(match, game, rng, style)
        endings[ending] = endings.get(ending, 0) + 1
    assert set(endings) >= {"TURN_LIMIT", "BASE_CAPTURED"}


def test_small_random_positions_agree() -> None:
    rng = random.Random(77)
    endings: dict[str, int] = {}
    for game_number in range(2000):
        squares = random_position(rng)
        limit = rng.randint(1, 200)
        turn = rng.randrange(limit) if rng.random() < 0.3 else 0
        to_move = rng.choice(("P1", "P2"))
        match = Match.in_position(
            f"S{game_number}",
            {piece_id: at for at, piece_id in squares.items()},
            current_player=Side(to_move),
            turn=turn,
            turn_limit=limit,
        )
        game = NaiveGame(squares, to_move, turn, limit)
        style = ("random", "fights", "race")[game_number % 3]
        ending = play_both(match, game, rng, style)
        endings[ending] = endings.get(ending, 0) + 1
    # Every rule-made ending happened, and each more than a little.
    assert min(endings.get(k, 0) for k in ("TURN_LIMIT", "BASE_CAPTURED", "NO_PIECES")) > 50
