#!/usr/bin/env python3
"""Answers every turn with the first legal action and ~63 KB of a field the protocol
ignores (spec B14: padding must not inflate a replay)."""

import json
import sys

PAD = "p" * 63_000

for line in sys.stdin:
    request = json.loads(line)
    if request.get("type") == "YOUR_TURN":
        reply = {
            "type": "ACTION",
            "sequence": request["sequence"],
            "action": request["legalActions"][0],
            "pad": PAD,
        }
        print(json.dumps(reply, separators=(",", ":")), flush=True)
