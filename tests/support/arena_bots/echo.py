"""Answers every request with one line: `ok <n> <request>`."""
import sys

n = 0
for line in sys.stdin:
    n += 1
    sys.stdout.write(f"ok {n} {line.strip()}\n")
    sys.stdout.flush()
