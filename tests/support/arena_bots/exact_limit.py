"""First reply: exactly 65,536 code points of 1- to 4-byte characters (accepted).
Second reply: 65,537 ASCII characters and a newline (REPLY_TOO_LONG)."""
import sys

out = sys.stdout.buffer
sys.stdin.readline()
text = ("a" + "é" + "€" + "😀") * (65_536 // 4)
assert len(text) == 65_536
out.write(text.encode() + b"\n")
out.flush()
sys.stdin.readline()
out.write(b"a" * 65_537 + b"\n")
out.flush()
sys.stdin.readline()
