"""Starting a child process whose signal handling does not depend on the test process's."""

from __future__ import annotations

import sys

_RESET_THEN_EXEC = (
    "import os, signal, sys\n"
    "for s in (signal.SIGINT, signal.SIGTERM):\n"
    "    signal.signal(s, signal.SIG_DFL)\n"
    "signal.pthread_sigmask(signal.SIG_UNBLOCK, (signal.SIGINT, signal.SIGTERM))\n"
    "os.execv(sys.argv[1], sys.argv[1:])\n"
)


def with_default_signals(argv: list[str]) -> list[str]:
    """``argv`` (``argv[0]`` a path) started as a user's shell starts it: SIGINT and SIGTERM at their defaults.

    A child inherits the ignored signals and the signal mask of the process that forks it, and needlework's
    command line keeps a signal it was started ignoring ignored, as a background job of a script expects
    (:func:`needlework.interrupts.signals_unwind`). Under the parallel suite a worker was seen, in 2 of 8 full
    runs and for SIGINT only, to start children that ignored SIGINT, so a test of how a signal stops a
    process would fail for a reason outside the code it tests. The shim resets both signals and unblocks
    them, then ``exec``s ``argv``.
    """
    return [sys.executable, "-c", _RESET_THEN_EXEC, *argv]
