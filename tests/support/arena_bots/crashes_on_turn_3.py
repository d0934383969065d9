# Plays the first legal action and logs to stderr; on its turn 3 or later it crashes
# with a traceback (what `noitu arena check` must show its author).
import json
import sys


def choose(request):
    if request["turn"] >= 3:
        raise ValueError(f"boom at turn {request['turn']}")
    return request["legalActions"][0]


for line in sys.stdin:
    request = json.loads(line)
    print("thinking about turn", request["turn"], file=sys.stderr, flush=True)
    reply = {"type": "ACTION", "sequence": request["sequence"], "action": choose(request)}
    print(json.dumps(reply, separators=(",", ":")), flush=True)
