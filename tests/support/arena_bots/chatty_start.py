"""Greets on stdout before it is asked anything (EXTRA_OUTPUT)."""
import sys
import time

print("hello, server!", flush=True)
sys.stdin.readline()
time.sleep(3600)
