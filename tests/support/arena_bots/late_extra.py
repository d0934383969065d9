"""Answers, then writes a log line to stdout while it is not asked (EXTRA_OUTPUT)."""
import sys
import time

sys.stdin.readline()
print("REPLY", flush=True)
time.sleep(0.2)
print("debug: thinking about the next move", flush=True)
sys.stdin.readline()
