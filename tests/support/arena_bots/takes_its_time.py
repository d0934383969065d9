# Waits half a second of wall clock on every turn, using no CPU, then answers the first
# legal action: it holds its match's slot a while without racing a busy machine's CPU
# for the 2 s limit.
import json
import sys
import time

for line in sys.stdin:
    request = json.loads(line)
    time.sleep(0.5)
    reply = {"type": "ACTION", "sequence": request["sequence"], "action": request["legalActions"][0]}
    print(json.dumps(reply, separators=(",", ":")), flush=True)
