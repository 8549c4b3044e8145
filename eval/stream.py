"""Stream requests through a backend into a log, one record per outcome as it completes.

The run harness and the LLM judge both drive a backend this way: requests are fed lazily (a
request is rendered only when the backend asks for the next one), every outcome is turned into
a record and appended at once (so a killed process loses nothing it was told), and the backend
is closed however the stream ends. What differs between them is passed in: the record built from
an outcome, and a hook called after each one (the harness's progress bar and error budget; the
hook may raise to stop the stream).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from eval.store import SampleWriter
from needlework.backends.base import Backend, Outcome, Request

Stub = Mapping[str, Any]
"""The part of a record known before the request is sent (key, config, row id ...)."""


async def stream_records(backend: Backend, requests: Iterable[tuple[Request, Stub]], writer: SampleWriter,
                         record: Callable[[Stub, Outcome], dict[str, Any]],
                         after: Callable[[Outcome], None] | None = None) -> int:
    """Send every request through ``backend`` and append ``record(stub, outcome)`` per outcome.

    Args:
        backend: The model backend; closed when the stream ends, also on an error.
        requests: (request, stub) pairs, consumed lazily as the backend asks for more.
        writer: Where each record is appended as its outcome arrives.
        record: The record of an outcome, given its request's stub.
        after: Called after each record is written; an exception it raises stops the stream.

    Returns:
        How many records were written.
    """
    stubs: dict[str, Stub] = {}

    def feed() -> Iterator[Request]:
        for request, stub in requests:
            stubs[request.key] = stub
            yield request

    written = 0
    outcomes = backend.stream(feed())
    try:
        async for outcome in outcomes:
            writer.append(record(stubs.pop(outcome.key), outcome))
            written += 1
            if after is not None:
                after(outcome)
    finally:
        await outcomes.aclose()  # type: ignore[attr-defined]
        await backend.aclose()
    return written
