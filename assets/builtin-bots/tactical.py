#!/usr/bin/env python3
"""Built-in bot `tactical` for Búa Bao Kéo 9×9 (the bot arena, "Đấu bot").

A standalone program run through the same runner, protocol, clock and sandbox limits as
an uploaded bot: one YOUR_TURN line in on stdin, one compact ACTION line out on stdout,
until EOF. Python standard library only.

How it plays: a 2-ply alpha-beta search (its move, the opponent's best reply) over the
request's legal actions, with a static evaluation at the leaves that looks one more ply
ahead in a cheap way: the side to move gets most of its best fight, and loses part of
its second attacked piece (it can save only one). The evaluation counts material with
the rock-paper-scissors balance, threats, the safety of our base and the pressure on
the enemy's. A move that takes the enemy base is played at once; a move that lets the
opponent take ours is never chosen while another exists.

Time: it stops searching after ~0.45 s of CPU or ~0.9 s of wall clock (the runner gives
0.5 CPU and 2 s per later turn) and answers with the best move found so far; the moves
are ordered by a one-ply score first, so that answer is never a blind one.

This file must not be run with the server's virtualenv: the runner uses /usr/bin/python3.
"""

import json
import sys
import time

ROCK, PAPER, SCISSORS = 0, 1, 2
TYPE_OF = {"ROCK": ROCK, "PAPER": PAPER, "SCISSORS": SCISSORS}
PREY = (SCISSORS, ROCK, PAPER)  # PREY[t]: the type t beats
PREDATOR = (PAPER, SCISSORS, ROCK)  # PREDATOR[t]: the type that beats t

TURN_LIMIT = 200
WIN = 1_000_000
ADVANCE = (0, 30, 16, 8, 4, 2, 1, 0, 0, 0, 0, 0)

CPU_BUDGET = 0.45
WALL_BUDGET = 0.9
FIRST_CPU_BUDGET = 1.5
FIRST_WALL_BUDGET = 3.0


class Position:
    """The board as a flat list: cell[sq] is None or (side, type); side 0 = P1, 1 = P2."""

    def __init__(self, request):
        board = request["state"]["board"]
        self.rows = board["rows"]
        self.cols = board["cols"]
        self.n = self.rows * self.cols
        self.cell = [None] * self.n
        self.me = 0 if request["player"] == "P1" else 1
        self.turn = request.get("turn", 0)
        for piece in board["pieces"]:
            side = 0 if piece["ownerId"] == "P1" else 1
            sq = piece["position"]["row"] * self.cols + piece["position"]["col"]
            self.cell[sq] = (side, TYPE_OF[piece["type"]])
        self.base = ((self.rows - 1) * self.cols, self.cols - 1)  # P1's, P2's
        self.neighbours = []
        for sq in range(self.n):
            r, c = divmod(sq, self.cols)
            ns = []
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    if (dr or dc) and 0 <= r + dr < self.rows and 0 <= c + dc < self.cols:
                        ns.append((r + dr) * self.cols + c + dc)
            self.neighbours.append(ns)
        self.dist_to_base = [
            [
                max(abs(sq // self.cols - b // self.cols), abs(sq % self.cols - b % self.cols))
                for sq in range(self.n)
            ]
            for b in self.base
        ]

    # ---- rules ----
    def fight(self, attacker, defender):
        """+1 the attacker wins, -1 it loses, 0 same type."""
        if PREY[attacker] == defender:
            return 1
        if PREY[defender] == attacker:
            return -1
        return 0

    def moves(self, side):
        """(from, to) of every move of `side`, losing attacks left out unless nothing else."""
        cell = self.cell
        out = []
        losing = []
        for sq in range(self.n):
            p = cell[sq]
            if p is None or p[0] != side:
                continue
            for to in self.neighbours[sq]:
                q = cell[to]
                if q is None:
                    out.append((sq, to))
                elif q[0] != side:
                    if PREY[q[1]] == p[1]:
                        losing.append((sq, to))
                    else:
                        out.append((sq, to))
        return out or losing

    def apply(self, move):
        """Plays a move; returns what undo() needs."""
        frm, to = move
        cell = self.cell
        mover, target = cell[frm], cell[to]
        if target is None:
            cell[to], cell[frm] = mover, None
        else:
            result = self.fight(mover[1], target[1])
            if result > 0:
                cell[to], cell[frm] = mover, None
            elif result < 0:
                cell[frm] = None
        self.turn += 1
        return (frm, to, mover, target)

    def undo(self, saved):
        frm, to, mover, target = saved
        self.cell[frm], self.cell[to] = mover, target
        self.turn -= 1

    def outcome(self, mover):
        """After `mover` played: WIN/-WIN/0 from the mover's view, or None if play goes on."""
        enemy = 1 - mover
        occupant = self.cell[self.base[enemy]]
        if occupant is not None and occupant[0] == mover:
            return WIN
        counts = [0, 0]
        for p in self.cell:
            if p is not None:
                counts[p[0]] += 1
        if counts[enemy] == 0:
            return WIN
        if counts[mover] == 0:
            return -WIN
        if self.turn >= TURN_LIMIT:
            return 0 if counts[0] == counts[1] else (WIN if counts[mover] > counts[enemy] else -WIN)
        return None

    def can_take_base(self, side):
        b = self.base[1 - side]
        occupant = self.cell[b]
        for sq in self.neighbours[b]:
            p = self.cell[sq]
            if p is not None and p[0] == side and (occupant is None or PREY[p[1]] == occupant[1]):
                return True
        return False

    # ---- evaluation ----
    def evaluate(self, to_move):
        """Static score for `self.me`, with `to_move` about to play."""
        cell = self.cell
        counts = [[0, 0, 0], [0, 0, 0]]
        for p in cell:
            if p is not None:
                counts[p[0]][p[1]] += 1
        fade = min(1.0, max(0.0, (TURN_LIMIT - self.turn) / 40.0))
        value = [[0, 0, 0], [0, 0, 0]]
        for s in (0, 1):
            o = counts[1 - s]
            for t in (0, 1, 2):
                bonus = 5 * o[PREY[t]] - 5 * o[PREDATOR[t]]
                if o[PREDATOR[t]] == 0:
                    bonus += 20 + 3 * o[PREY[t]]
                value[s][t] = 100 + bonus * fade

        score = [0.0, 0.0]
        # best gain for each side if it were to move, and its attacked pieces
        gains = [0.0, 0.0]
        losses = [[], []]
        neighbours = self.neighbours
        for sq in range(self.n):
            p = cell[sq]
            if p is None:
                continue
            s, t = p
            o = 1 - s
            v = value[s][t]
            score[s] += v
            d = self.dist_to_base[o][sq]
            if d < len(ADVANCE):
                adv = ADVANCE[d]
                if counts[o][PREDATOR[t]] == 0:
                    adv *= 3
                score[s] += adv * fade
            attacked = False
            defended = False
            for n in neighbours[sq]:
                q = cell[n]
                if q is None:
                    continue
                if q[0] == o:
                    if PREY[q[1]] == t:
                        attacked = True
                elif q[1] == PREY[t]:
                    defended = True
            if attacked:
                loss = v - value[o][PREDATOR[t]] if defended else v
                if loss > 0:
                    losses[s].append(loss)
        for s in (0, 1):
            if losses[s]:
                losses[s].sort(reverse=True)
                # what the other side gains by taking the best one
                gains[1 - s] = losses[s][0]

        me = self.me
        opp = 1 - me
        total = score[me] - score[opp]
        mover = to_move
        # The side to move takes (most of) its best fight, and keeps all but one of
        # its own attacked pieces; the side waiting loses part of its second one.
        swing = 0.8 * gains[mover]
        if len(losses[mover]) >= 2:
            swing -= 0.5 * losses[mover][1]
        total += swing if mover == me else -swing

        # Base safety: an enemy next to our base that we do not answer is deadly.
        for s in (0, 1):
            b = self.base[s]
            danger = 0
            for n in neighbours[b]:
                q = cell[n]
                if q is not None and q[0] != s:
                    danger += 1
            if danger:
                total += (-120 * danger) if s == me else (120 * danger)
        if self.can_take_base(mover):
            total += WIN // 2 if mover == me else -WIN // 2
        return total


def order_score(pos, move, side):
    """Cheap one-ply score to order moves (fights first, unsafe squares last)."""
    frm, to = move
    p = pos.cell[frm]
    q = pos.cell[to]
    s = 0
    if to == pos.base[1 - side]:
        return 10_000
    if q is not None:
        r = pos.fight(p[1], q[1])
        s += 1000 if r > 0 else (-1000 if r < 0 else -50)
    for n in pos.neighbours[to]:
        e = pos.cell[n]
        if e is None or e[0] == side or n == frm:
            continue
        if PREY[e[1]] == p[1]:
            s -= 300
        elif PREY[p[1]] == e[1]:
            s += 40
    s += pos.dist_to_base[1 - side][frm] - pos.dist_to_base[1 - side][to]
    return s


class OutOfTime(Exception):
    pass


def choose(request, cpu_budget, wall_budget):
    legal = request["legalActions"]
    if len(legal) == 1 or legal[0]["type"] != "MOVE":
        return legal[0]
    pos = Position(request)
    me = pos.me
    cols = pos.cols
    moves = []
    for i, a in enumerate(legal):
        if a.get("type") != "MOVE":
            continue
        moves.append(
            (
                (
                    a["from"]["row"] * cols + a["from"]["col"],
                    a["to"]["row"] * cols + a["to"]["col"],
                ),
                i,
            )
        )
    moves.sort(key=lambda mi: -order_score(pos, mi[0], me))
    best_index = moves[0][1]

    start_cpu = time.process_time()
    start_wall = time.monotonic()
    counter = [0]

    def check_time():
        counter[0] += 1
        if counter[0] & 31 == 0 and (
            time.process_time() - start_cpu > cpu_budget
            or time.monotonic() - start_wall > wall_budget
        ):
            raise OutOfTime()

    # Losing attacks are kept only when nothing else exists.
    has_other = any(
        not (pos.cell[m[1]] is not None and PREY[pos.cell[m[1]][1]] == pos.cell[m[0]][1])
        for m, _ in moves
    )
    alpha = -WIN * 2
    try:
        for move, index in moves:
            q = pos.cell[move[1]]
            if has_other and q is not None and PREY[q[1]] == pos.cell[move[0]][1]:
                continue
            saved = pos.apply(move)
            result = pos.outcome(me)
            if result is not None:
                value = result
            else:
                # The opponent's best reply (minimum for us), cut off at alpha.
                value = WIN * 2
                replies = pos.moves(1 - me)
                replies.sort(key=lambda m: -order_score(pos, m, 1 - me))
                for reply in replies:
                    check_time()
                    saved2 = pos.apply(reply)
                    r = pos.outcome(1 - me)
                    if r is not None:
                        v = -r
                    else:
                        v = pos.evaluate(me)
                    pos.undo(saved2)
                    if v < value:
                        value = v
                        if value <= alpha:
                            break
                if not replies:
                    value = pos.evaluate(me)
            pos.undo(saved)
            if value > alpha:
                alpha = value
                best_index = index
            if value >= WIN:
                break
    except OutOfTime:
        pass
    return legal[best_index]


def main():
    first = True
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        request = json.loads(line)
        if request.get("type") != "YOUR_TURN":
            continue
        try:
            if first:
                action = choose(request, FIRST_CPU_BUDGET, FIRST_WALL_BUDGET)
            else:
                action = choose(request, CPU_BUDGET, WALL_BUDGET)
        except Exception as error:  # noqa: BLE001 - never fail the match over a bug
            print(f"tactical: {error!r}", file=sys.stderr)
            action = request["legalActions"][0]
        first = False
        reply = {"type": "ACTION", "sequence": request["sequence"], "action": action}
        sys.stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
