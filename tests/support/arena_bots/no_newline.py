# Forgets to end its reply line: the reply is flushed but no newline follows, so the
# server never reads a whole line (a TIMEOUT with no reply), turn after turn.
import json
import sys

for line in sys.stdin:
    request = json.loads(line)
    reply = {"type": "ACTION", "sequence": request["sequence"], "action": request["legalActions"][0]}
    print(json.dumps(reply, separators=(",", ":")), end="", flush=True)
