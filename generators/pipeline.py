"""Encoding one sample ahead: the tokenizer works on sample ``i`` while Python prepares ``i + 1``.

Most of a sample's cost is one encode, which tokenizers written in Rust (tiktoken, HF
tokenizers) run with the GIL released. Handing that part to a worker thread lets the drawing,
rendering and row-building of neighbouring samples run at the same time, so with a spare core a
generator runs at about the speed of its encodes alone. Results come back in input order and
every random draw stays in the caller's thread, so rows are the same either way.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

import numpy as np

from generators.tokens import TokenCounter

T = TypeVar("T")


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def encoded_ahead(tokens: TokenCounter, drafts: Iterable[tuple[str, T]]) -> Iterator[tuple[T, np.ndarray, np.ndarray]]:
    """For each ``(text, draft)``: the draft and its text's token ids and start offsets, in order.

    With two or more usable CPUs, :meth:`TokenCounter.encode_native` of one text runs in a worker
    thread while the next draft is produced and the previous result is consumed; the conversion
    (:meth:`TokenCounter.with_offsets`) stays in the caller's thread, so the worker does nothing
    but tokenize. With one CPU a thread only adds hand-offs, and texts are encoded in place.
    Closing the iterator early waits for the encode in flight and stops the worker.
    """
    if usable_cpus() < 2:
        for text, draft in drafts:
            yield (draft, *tokens.encode_with_offsets(text))
        return
    with ThreadPoolExecutor(1, thread_name_prefix="encode-ahead") as worker:
        pending: tuple[Future[Any], T] | None = None
        for text, draft in drafts:
            future = worker.submit(tokens.encode_native, text)
            if pending is not None:
                yield (pending[1], *tokens.with_offsets(pending[0].result()))
            pending = (future, draft)
        if pending is not None:
            yield (pending[1], *tokens.with_offsets(pending[0].result()))
