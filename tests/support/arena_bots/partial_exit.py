"""Writes part of a reply and exits without a newline (INCOMPLETE_LINE)."""
import os
import sys

sys.stdin.readline()
os.write(1, b'{"type":"ACTION","seq')
os._exit(0)
