"""Floods stdout the moment it starts (100 KiB, no newline), then waits: EXTRA_OUTPUT
once that arrived before its first request, the too-long first reply otherwise."""
import sys
import time

sys.stdout.buffer.write(b"x" * 100 * 1024)
sys.stdout.buffer.flush()
time.sleep(3600)
