# The minimal bot exactly as spec A5 describes it: answer request["legalActions"][0],
# json.dumps with separators=(",", ":"), print(..., flush=True), debug to stderr.
import json
import sys

for line in sys.stdin:
    request = json.loads(line)
    print("turn", request["turn"], file=sys.stderr)
    reply = {"type": "ACTION", "sequence": request["sequence"], "action": request["legalActions"][0]}
    print(json.dumps(reply, separators=(",", ":")), flush=True)
