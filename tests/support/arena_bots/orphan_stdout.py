"""Leaves a child that holds stdout open, answers, then exits on the next request
(EXITED must still be told, even if stdout stays open)."""
import subprocess
import sys

subprocess.Popen(["/bin/sleep", "30"])
sys.stdin.readline()
print("ONE", flush=True)
sys.stdin.readline()
sys.exit(0)
