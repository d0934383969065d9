"""Logs to stderr, then crashes on its first request with a traceback (EXITED): the
owner reads both lines in the match's failure details, even after a restart."""
import sys

sys.stdin.readline()
print("suy nghĩ về lượt đầu", file=sys.stderr, flush=True)
raise ValueError("lỗi thử nghiệm")
