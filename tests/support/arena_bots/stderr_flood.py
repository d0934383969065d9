"""Writes 10 MB to stderr, then answers in time; repeats for every request."""
import sys

chunk = b"x" * 1023 + b"\n"
for line in sys.stdin:
    for _ in range(10 * 1024):
        sys.stderr.buffer.write(chunk)
    sys.stderr.buffer.write(b"END-OF-FLOOD\n")
    sys.stderr.flush()
    print("DONE", flush=True)
