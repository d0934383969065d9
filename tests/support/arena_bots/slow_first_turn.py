# Thinks for a while on its first request only (P1 1.0 s, P2 1.2 s), then answers the
# first legal action at once: each bot's first clock must start when its own request is
# written, so P1's slow first turn never eats P2's.
import json
import sys
import time

first = True
for line in sys.stdin:
    request = json.loads(line)
    if first:
        time.sleep(1.0 if request["player"] == "P1" else 1.2)
        first = False
    reply = {"type": "ACTION", "sequence": request["sequence"], "action": request["legalActions"][0]}
    print(json.dumps(reply, separators=(",", ":")), flush=True)
