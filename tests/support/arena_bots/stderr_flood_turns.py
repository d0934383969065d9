"""Before each reply, writes 256 KiB of numbered lines to stderr (more than the pipe
holds, so the server's bounded reader must keep up), then "END turn N", then plays
legalActions[0] in time."""
import json
import sys

turn = 0
for line in sys.stdin:
    turn += 1
    request = json.loads(line)
    for n in range(256):
        sys.stderr.buffer.write(b"%05d %03d " % (turn, n) + b"x" * 1013 + b"\n")
    sys.stderr.buffer.write(b"END turn %d\n" % turn)
    sys.stderr.flush()
    reply = {"type": "ACTION", "sequence": request["sequence"], "action": request["legalActions"][0]}
    print(json.dumps(reply, separators=(",", ":")), flush=True)
