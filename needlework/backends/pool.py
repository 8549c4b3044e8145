"""Several OpenAI-compatible endpoints as one backend: requests spread over them, failing over when one dies.

A full evaluation is thousands of 128K-token prompts; a lab serves the model on several machines
(one vLLM server per GPU node) and points the run at all of them (``--base-url`` repeated). Each
endpoint keeps its own connection pool, concurrency limit and window rule (an
:class:`~needlework.backends.openai_compat.OpenAIBackend` per URL); every endpoint's workers pull the
next request from one shared queue, so a faster server simply takes more of them.

Failover: an endpoint whose connection fails (refused, reset: the server died) is taken out of
the pool at once, without the per-request retry backoff, and the request goes back to the queue
for the endpoints still up. A request whose transient failure outlived an endpoint's retries
(timeouts, 5xx) is tried on each other endpoint once before its error is recorded. Every request
yields exactly one outcome, so no sample is lost or answered twice; a run that still fails
resumes as any other.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from needlework.backends.base import (
    BackendError,
    Outcome,
    PreflightError,
    Request,
    drain_workers,
)
from needlework.backends.openai_compat import OpenAIBackend

FAILOVER_KINDS = frozenset({"connection", "timeout", "http", "malformed"})
"""Transient error kinds worth another endpoint; final ones (context length, bad request) are the sample's."""
ENDPOINT_DOWN_KINDS = frozenset({"connection"})
"""Error kinds that take an endpoint out of the pool: it no longer accepts connections."""


@dataclass
class _Attempt:
    """A request and the endpoints it was already tried on."""

    request: Request
    tried: set[int] = field(default_factory=set)


class PooledBackend:
    """One backend over several :class:`OpenAIBackend` endpoints (module docstring)."""

    name = "openai"

    def __init__(self, members: Sequence[OpenAIBackend]) -> None:
        """``members``: one backend per endpoint, in the order the URLs were given (at least two)."""
        if len(members) < 2:
            raise ValueError("a pool needs at least two endpoints")
        self.members = list(members)
        self.down: set[int] = set()
        self.served = [0] * len(self.members)
        self.failovers = 0

    def describe(self) -> dict[str, Any]:
        """Every endpoint's description, and how requests were spread so far (never a secret)."""
        described = [m.describe() for m in self.members]
        return {
            "base_url": [d["base_url"] for d in described],
            "concurrency": sum(d["concurrency"] for d in described),
            "timeout_s": described[0]["timeout_s"], "max_retries": described[0]["max_retries"],
            "chat_template_sha256": None,
            "window": min((d["window"] for d in described if d["window"]), default=None),
            "window_counted_by": described[0]["window_counted_by"],
            "endpoints": described,
            **self.spread(),
        }

    def spread(self) -> dict[str, Any]:
        """Answers per endpoint, endpoints taken out of the pool and requests that failed over."""
        return {"answered_per_endpoint": {m.base_url: n for m, n in zip(self.members, self.served, strict=True)},
                "endpoints_down": [self.members[i].base_url for i in sorted(self.down)], "failovers": self.failovers}

    async def preflight(self, wait_s: float = 0.0) -> None:
        """Every endpoint answers and serves the model (a mistyped URL is caught before anything is sent).

        Raises:
            PreflightError: The first endpoint that does not, named.
        """
        for member in self.members:
            try:
                await member.preflight(wait_s)
            except PreflightError as err:
                raise PreflightError(f"endpoint {member.base_url}: {err}") from err

    async def stream(self, requests: Iterable[Request]) -> AsyncIterator[Outcome]:
        """Run every request on the pool and yield one outcome per request as it completes.

        Raises:
            BackendError: An endpoint answered 401, 403 or 404 (the run cannot succeed there).
        """
        source = iter(requests)
        retry: asyncio.Queue[_Attempt] = asyncio.Queue()
        results: asyncio.Queue[Outcome | BaseException | None] = asyncio.Queue()
        in_flight = 0
        exhausted = False

        def next_attempt(index: int) -> _Attempt | None:
            nonlocal exhausted
            for _ in range(retry.qsize()):
                attempt = retry.get_nowait()
                if index not in attempt.tried:
                    return attempt
                retry.put_nowait(attempt)
            if not exhausted:
                request = next(source, None)
                if request is not None:
                    return _Attempt(request)
                exhausted = True
            return None

        async def worker(index: int) -> None:
            nonlocal in_flight
            member = self.members[index]
            try:
                while index not in self.down:
                    attempt = next_attempt(index)
                    if attempt is None:
                        if exhausted and retry.empty() and in_flight == 0:
                            return
                        await asyncio.sleep(0.05)  # another worker's request may still come back to the queue
                        continue
                    in_flight += 1
                    try:
                        outcome = await member._complete(attempt.request)
                    finally:
                        in_flight -= 1
                    attempt.tried.add(index)
                    kind = outcome.error.kind if outcome.error else None
                    if kind in ENDPOINT_DOWN_KINDS:
                        self.down.add(index)
                    alive = [i for i in range(len(self.members)) if i not in self.down and i not in attempt.tried]
                    if kind in FAILOVER_KINDS and alive:
                        self.failovers += 1
                        retry.put_nowait(attempt)
                        continue
                    self.served[index] += outcome.error is None
                    await results.put(outcome)
            except Exception as err:  # noqa: BLE001 - handed to the consumer, which re-raises it
                await results.put(err)
            finally:
                await results.put(None)

        workers = [asyncio.create_task(worker(i)) for i, m in enumerate(self.members) for _ in range(m.concurrency)]
        async for outcome in drain_workers(workers, results):
            yield outcome
        if not retry.empty() or not exhausted and next(source, None) is not None:  # every endpoint went down
            raise BackendError(f"every endpoint is down ({', '.join(m.base_url for m in self.members)}); "
                               "the remaining requests were not sent: re-run to resume")

    async def aclose(self) -> None:
        """Close every endpoint's connections."""
        for member in self.members:
            await member.aclose()
