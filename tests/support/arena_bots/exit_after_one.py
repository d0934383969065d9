"""Answers the first request; exits with status 3 on reading the second (EXITED)."""
import sys

sys.stdin.readline()
print("ONE", flush=True)
sys.stdin.readline()
sys.exit(3)
