"""The kernel surface of a sandboxed program (spec B2, "Kernel surface").

Every bot and every compile runs under a seccomp filter that bubblewrap installs just
before it execs the program (`bwrap --seccomp FD`). The filter allows everything but the
calls below, which no bot or compiler needs and which widen the kernel an attacker can
reach (io_uring, perf, bpf and keyrings have all carried privilege escalations) or let
a bot pin memory its cgroup does not see (TCP socket buffers are not charged to a v1
memory cgroup). A refused call fails with EPERM, so a program that tries one sees an
error, not a kill, and honest bots never notice.

Calls made through another ABI than the host's (i386 `int 0x80`, x32) do not pass a
libseccomp filter built for the native architecture: the kernel kills the program.

The filter is compiled once, at start-up, by libseccomp (Debian's `libseccomp2`) through
the ctypes binding `pyseccomp`; `SeccompUnavailable` says why when it cannot be.
"""

from __future__ import annotations

import errno
import os
import socket
import tempfile
from dataclasses import dataclass

#: `personality(2)`'s query: reads the persona, changes nothing (glibc and the JVM may ask).
PERSONALITY_QUERY = 0xFFFFFFFF


@dataclass(frozen=True)
class Refusal:
    """One system call the filter refuses, and why (shown by the docs and the tests)."""

    syscall: str
    family: str
    #: When set, the call is refused only if its first argument is not this value.
    unless_first_argument: int | None = None


REFUSALS: tuple[Refusal, ...] = (
    # Sockets: a bot talks over its pipes; AF_UNIX stays for runtimes that pair sockets
    # internally. Without inet sockets there are no TCP buffers to pin.
    Refusal("socket", "network sockets (any family but AF_UNIX)", socket.AF_UNIX),
    Refusal("socketpair", "network sockets (any family but AF_UNIX)", socket.AF_UNIX),
    Refusal("io_uring_setup", "io_uring"),
    Refusal("io_uring_enter", "io_uring"),
    Refusal("io_uring_register", "io_uring"),
    Refusal("ptrace", "ptrace"),
    Refusal("process_vm_readv", "ptrace"),
    Refusal("process_vm_writev", "ptrace"),
    Refusal("perf_event_open", "perf_event_open"),
    Refusal("bpf", "bpf"),
    Refusal("keyctl", "keyrings"),
    Refusal("add_key", "keyrings"),
    Refusal("request_key", "keyrings"),
    Refusal("userfaultfd", "userfaultfd"),
    Refusal("mount", "mounts"),
    Refusal("umount2", "mounts"),
    Refusal("pivot_root", "mounts"),
    Refusal("move_mount", "mounts"),
    Refusal("open_tree", "mounts"),
    Refusal("fsopen", "mounts"),
    Refusal("fsconfig", "mounts"),
    Refusal("fsmount", "mounts"),
    Refusal("fspick", "mounts"),
    Refusal("mount_setattr", "mounts"),
    Refusal("kexec_load", "kexec"),
    Refusal("kexec_file_load", "kexec"),
    Refusal("reboot", "reboot"),
    Refusal("personality", "personality changes", PERSONALITY_QUERY),
)


class SeccompUnavailable(Exception):
    """The filter cannot be built here (no libseccomp, an unknown call on this arch)."""


def compile_filter(refusals: tuple[Refusal, ...] = REFUSALS, error: int = errno.EPERM) -> bytes:
    """The filter as the BPF program bubblewrap's `--seccomp` reads; a refused call fails
    with `error` (EPERM; the tests pick an errno no kernel path gives, to see the filter
    itself answer)."""
    try:
        import pyseccomp
    except (ImportError, OSError) as failure:
        raise SeccompUnavailable(
            f"libseccomp cannot be loaded ({failure}): apt-get install libseccomp2"
        ) from failure
    try:
        program = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
        refuse = pyseccomp.ERRNO(error)
        for refusal in refusals:
            try:
                if refusal.unless_first_argument is None:
                    program.add_rule(refuse, refusal.syscall)
                else:
                    condition = pyseccomp.Arg(0, pyseccomp.NE, refusal.unless_first_argument)
                    program.add_rule(refuse, refusal.syscall, condition)
            except OSError as failure:
                raise SeccompUnavailable(
                    f"libseccomp refuses a rule for {refusal.syscall} ({failure}): "
                    "install a newer libseccomp2"
                ) from failure
        with tempfile.TemporaryFile() as compiled:
            program.export_bpf(compiled)
            compiled.seek(0)
            return compiled.read()
    except (AttributeError, OSError) as failure:
        # pyseccomp binds libseccomp lazily: a missing library shows up at first use.
        raise SeccompUnavailable(
            f"libseccomp cannot compile the filter ({failure}): apt-get install libseccomp2"
        ) from failure


def syscall_number(name: str) -> int:
    """The host's number of `name` (for tests and the docs; raises SeccompUnavailable)."""
    try:
        import pyseccomp

        return int(pyseccomp.resolve_syscall(pyseccomp.system_arch(), name))
    except (ImportError, AttributeError, OSError) as error:
        raise SeccompUnavailable(f"cannot resolve {name} ({error})") from error


def filter_descriptor(program: bytes) -> int:
    """A new descriptor from which bubblewrap reads `program` (the caller closes it)."""
    descriptor = os.memfd_create("noitu-seccomp", os.MFD_CLOEXEC)
    try:
        written = 0
        while written < len(program):
            written += os.write(descriptor, program[written:])
        os.lseek(descriptor, 0, os.SEEK_SET)
    except OSError:
        os.close(descriptor)
        raise
    return descriptor
