"""Exits at once, before any request (EXITED; writing to it must not raise)."""
import sys

sys.exit(0)
