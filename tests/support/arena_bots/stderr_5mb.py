"""At each request after its first, writes 5 MB to stderr in one write (numbered
lines of 1 KiB, then "END turn N"), then plays legalActions[0] at once: the server must
drain its pipe fast enough for the answer to come in time (spec B2)."""
import json
import sys

turn = 0
for line in sys.stdin:
    turn += 1
    request = json.loads(line)
    if turn > 1:
        lines = [b"%05d %07d " % (turn, n) + b"x" * 1009 + b"\n" for n in range(5000)]
        sys.stderr.buffer.write(b"".join(lines) + b"END turn %d\n" % turn)
        sys.stderr.flush()
    reply = {"type": "ACTION", "sequence": request["sequence"], "action": request["legalActions"][0]}
    print(json.dumps(reply, separators=(",", ":")), flush=True)
