# Answers its first request correctly, then exits: "reading one line and exiting fails
# the next turn" (spec A5).
import json
import sys

request = json.loads(sys.stdin.readline())
reply = {"type": "ACTION", "sequence": request["sequence"], "action": request["legalActions"][0]}
print(json.dumps(reply, separators=(",", ":")), flush=True)
