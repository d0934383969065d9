"""Answers with a reply written one byte at a time."""
import os
import sys
import time

for line in sys.stdin:
    for byte in b'{"type":"ACTION","sequence":40,"action":{"type":"PASS"}}\n':
        os.write(1, bytes([byte]))
        time.sleep(0.001)
