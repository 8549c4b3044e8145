"""Signals that unwind: SIGTERM and SIGINT raise an exception, so ``finally`` blocks run.

Python's default SIGTERM handler ends the process at once, so a build stopped by ``kill``, a job
scheduler or ``docker stop`` would skip the clean-up of :func:`needlework.atomic.atomic_folder` and
leave its hidden ``.partial`` folder behind. While :func:`signals_unwind` is active, both signals
raise :class:`Interrupted` instead; :func:`deferred_signals` holds them back during the short steps
that must not be cut in half (a swap of two renames, the removal of a temporary folder), and
:func:`blocked_signals` with :func:`restore_default_signals` start worker processes that die
quietly when their pool stops them.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

UNWINDING_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """A signal asked the process to stop; code that cleans up on ``KeyboardInterrupt`` also runs.

    Not a :class:`~needlework.errors.NeedleworkError` (nor an ``Exception``), so ``except Exception``
    does not swallow it. ``exit_status`` is the shell's convention, 128 + the signal number.
    """

    def __init__(self, signum: int) -> None:
        self.signum = signal.Signals(signum)
        self.exit_status = 128 + int(self.signum)
        super().__init__(f"interrupted by {self.signum.name}")


_state = threading.local()


def _deferring() -> list[int] | None:
    return getattr(_state, "pending", None)


def _raise(signum: int, _frame: FrameType | None) -> None:
    pending = _deferring()
    if pending is not None:
        pending.append(signum)
        return
    raise Interrupted(signum)


@contextlib.contextmanager
def signals_unwind(signals: tuple[signal.Signals, ...] = UNWINDING_SIGNALS) -> Iterator[None]:
    """While active, ``signals`` raise :class:`Interrupted` in the main thread; afterwards the
    previous handlers are back.

    A signal the process was started ignoring (``SIG_IGN``, as for a background job of a script) stays
    ignored. Outside the main thread, where Python cannot install handlers, this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in signals}
    for s, handler in previous.items():
        if handler is not signal.SIG_IGN:
            signal.signal(s, _raise)
    try:
        yield
    finally:
        for s, handler in previous.items():
            if handler is not None:  # None: installed outside Python, which cannot be put back
                signal.signal(s, handler)


@contextlib.contextmanager
def deferred_signals() -> Iterator[None]:
    """Hold back :func:`signals_unwind`'s signals until the block ends, then raise the first one.

    For short steps that must finish once started. Without an active :func:`signals_unwind` (or
    outside the main thread, which never receives signals) this changes nothing. Nests.
    """
    if _deferring() is not None:
        yield
        return
    _state.pending = []
    try:
        yield
    finally:
        pending, _state.pending = _state.pending, None
        if pending:  # what the signal would have done, only later
            raise Interrupted(pending[0])


@contextlib.contextmanager
def blocked_signals() -> Iterator[None]:
    """SIGINT and SIGTERM held pending by the kernel in this thread while worker processes start.

    A child forked under :func:`signals_unwind` inherits its Python-level handler, and a signal that
    reaches the child before the interpreter has finished forking is dropped, so a pool stopped right
    after it started could wait forever for that worker. Children started in this block inherit the
    blocked mask; :func:`restore_default_signals`, their initializer, sets their handlers and then
    lets pending signals in. Signals to this process are delivered when the block ends.
    """
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no signal masks, and no fork either
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, UNWINDING_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def restore_default_signals() -> None:
    """Signal handling for a worker process started under :func:`blocked_signals`.

    A ``multiprocessing`` pool initializer: SIGTERM (how the parent's pool stops its workers) ends
    the worker quietly, as by default, and SIGINT (a Ctrl-C reaches the whole process group) is left
    to the parent, which stops the pool. Signals that arrived while the worker started are then
    delivered.
    """
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, UNWINDING_SIGNALS)
