"""Answers with two lines in one write (the first is the reply, the second EXTRA_OUTPUT)."""
import os
import sys

sys.stdin.readline()
os.write(1, b"FIRST\nSECOND\n")
sys.stdin.readline()
