"""Answers once, then ignores the end of stdin: prints to stdout and keeps running
(the runner must ignore that output and kill it after 1 s)."""
import sys
import time

sys.stdin.readline()
print("REPLY", flush=True)
sys.stdin.readline()  # EOF
print("still here", flush=True)
time.sleep(3600)
