"""Writes 5 MB to stderr (80 times what a default pipe holds) in 1 KiB writes, then
answers; repeats for every request. The server drains its pipe at every pass, keeping
only the tail: the bot is held up by a few pauses, never for the server to read 5 MB."""
import sys

chunk = b"x" * 1023 + b"\n"
for line in sys.stdin:
    for _ in range(5000):
        sys.stderr.buffer.write(chunk)
    sys.stderr.buffer.write(b"END-OF-FLOOD\n")
    sys.stderr.flush()
    print("DONE", flush=True)
