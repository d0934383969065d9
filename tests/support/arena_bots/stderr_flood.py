"""Writes 2 MiB to stderr (32 times what its pipe holds), then answers; repeats for
every request. The server reads it at a bounded rate (1.25 MiB/s): slowed, never stuck."""
import sys

chunk = b"x" * 1023 + b"\n"
for line in sys.stdin:
    for _ in range(2 * 1024):
        sys.stderr.buffer.write(chunk)
    sys.stderr.buffer.write(b"END-OF-FLOOD\n")
    sys.stderr.flush()
    print("DONE", flush=True)
