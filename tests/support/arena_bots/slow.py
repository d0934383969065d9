"""Reads the request and never answers (TIMEOUT)."""
import sys
import time

sys.stdin.readline()
time.sleep(3600)
