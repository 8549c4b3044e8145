"""Encoding one sample ahead: the tokenizer works on sample ``i`` while Python prepares ``i + 1``.

Most of a sample's cost is one encode, which tokenizers written in Rust (tiktoken, HF
tokenizers) run with the GIL released. Handing that part to a worker thread lets the drawing,
rendering and row-building of neighbouring samples run at the same time, so with a spare core a
generator runs at about the speed of its encodes alone. Results come back in input order and
every random draw stays in the caller's thread, so rows are the same either way.

The worker is one thread per process, started on first use and kept: what a tokenizer keeps per
thread (tiktoken's encoder copy, see ``TiktokenCounter.encode_native``) is then built once, not
once per generator.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any, TypeVar

import numpy as np

from needlework.tokens import TokenCounter

T = TypeVar("T")


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def encoded_ahead(tokens: TokenCounter, drafts: Iterable[tuple[str, T]]) -> Iterator[tuple[T, np.ndarray, np.ndarray]]:
    """For each ``(text, draft)``: the draft and its text's token ids and start offsets, in order.

    With two or more usable CPUs, :meth:`TokenCounter.encode_native` of one text runs in the
    process's encode worker while the next draft is produced and the previous result is
    consumed; the conversion (:meth:`TokenCounter.with_offsets`) stays in the caller's thread, so
    the worker does nothing but tokenize. With one CPU a thread only adds hand-offs, and texts are
    encoded in place. Closing the iterator early, or an error in ``drafts``, waits for the encode
    in flight, so no work outlives the iterator.
    """
    if usable_cpus() < 2:
        for text, draft in drafts:
            yield (draft, *tokens.encode_with_offsets(text))
        return
    worker = _encode_worker()
    pending: tuple[Future[Any], T] | None = None
    try:
        for text, draft in drafts:
            previous, pending = pending, (worker.submit(tokens.encode_native, text), draft)
            if previous is not None:
                yield (previous[1], *tokens.with_offsets(previous[0].result()))
        if pending is not None:
            last, pending = pending, None
            yield (last[1], *tokens.with_offsets(last[0].result()))
    finally:
        if pending is not None:
            wait([pending[0]])


_worker: ThreadPoolExecutor | None = None
_worker_lock = threading.Lock()


def _encode_worker() -> ThreadPoolExecutor:
    """The process's one encode-ahead thread, started on first use."""
    global _worker
    with _worker_lock:
        if _worker is None:
            _worker = ThreadPoolExecutor(1, thread_name_prefix="encode-ahead")
        return _worker


def _forget_worker_after_fork() -> None:
    """A forked child has no copy of the parent's threads: it starts its own worker when it needs one."""
    global _worker, _worker_lock
    _worker, _worker_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_worker_after_fork)
