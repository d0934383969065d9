# Uses most of its 2 s on every turn: 0.6 s of CPU, which at 0.5 CPU takes about 1.2 s
# of wall clock, then answers the first legal action.
import json
import sys
import time

for line in sys.stdin:
    request = json.loads(line)
    until = time.process_time() + 0.6
    while time.process_time() < until:
        pass
    reply = {"type": "ACTION", "sequence": request["sequence"], "action": request["legalActions"][0]}
    print(json.dumps(reply, separators=(",", ":")), flush=True)
