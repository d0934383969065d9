"""Stopping a child process the way its supervisor would: the one helper the benchmarks
and the tests' process fixtures share."""

from __future__ import annotations

import signal
import subprocess

#: How long a process has to exit after SIGKILL before the caller is told it hangs.
KILL_WAIT_S = 5.0


def terminate(process: subprocess.Popen[bytes], timeout_s: float) -> int:
    """SIGTERM, up to `timeout_s` to wind down, then SIGKILL; the exit status (negative:
    the signal that ended it). A process that already exited is left as it is."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(KILL_WAIT_S)
    return process.returncode
