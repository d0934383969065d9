"""Writes 65,536 two-byte characters, waits, then a 65,537th, and never a newline
(REPLY_TOO_LONG as soon as the 65,537th arrives)."""
import sys
import time

sys.stdin.readline()
out = sys.stdout.buffer
out.write("é".encode() * 65_536)
out.flush()
time.sleep(0.3)
out.write("é".encode())
out.flush()
time.sleep(3600)
