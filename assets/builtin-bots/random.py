#!/usr/bin/env python3
"""Built-in bot `random`: answers every YOUR_TURN with a uniformly random legal action.

Standalone program run through the same runner, protocol, clock and sandbox limits
as an uploaded bot: reads one request per line on stdin, writes one compact ACTION
line per request on stdout, exits on EOF. Standard library only.

This file is named random.py, so `import random` here would import the file itself
(the script's folder comes first on sys.path); it draws from os.urandom instead.
"""

import json
import os
import sys


def uniform_index(n: int) -> int:
    """A uniformly random integer in [0, n), by rejection sampling on os.urandom."""
    bits = max(1, (n - 1).bit_length())
    nbytes = (bits + 7) // 8
    while True:
        value = int.from_bytes(os.urandom(nbytes), "big") >> (nbytes * 8 - bits)
        if value < n:
            return value


def main() -> None:
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        request = json.loads(line)
        if request.get("type") != "YOUR_TURN":
            continue
        actions = request["legalActions"]
        action = actions[uniform_index(len(actions))]
        reply = {"type": "ACTION", "sequence": request["sequence"], "action": action}
        sys.stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
