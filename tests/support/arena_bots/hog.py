"""Allocates memory 8 MiB at a time, touching every page, telling stderr how far it
got (RESOURCE_LIMIT at the cgroup's memory cap)."""
import sys

sys.stdin.readline()
blocks = []
while True:
    blocks.append(bytearray(8 * 1024 * 1024))
    sys.stderr.write(f"allocated {len(blocks) * 8} MiB\n")
    sys.stderr.flush()
