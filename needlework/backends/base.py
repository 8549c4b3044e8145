"""What every backend takes and returns, and the errors that cross the backend boundary.

A backend turns a stream of :class:`Request` into a stream of :class:`Outcome` (in completion
order, each carrying its request's key). An OpenAI-compatible backend differs from another only
in building the payload and parsing the response; the vLLM backend batches the same requests.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict, dataclass, field
from typing import Any, AsyncIterator, Iterable, Literal, Mapping, Protocol

from needlework.errors import NeedleworkError, SpecError

Message = Mapping[str, str]
"""One chat message: ``{"role": "system" | "user" | "assistant", "content": str}``."""

ErrorKind = Literal[
    "context_length",  # the server refused the prompt as longer than its window; final, never retried
    "skipped_window",  # counted before sending: prompt + max_tokens over the model's window; never sent, final
    "bad_request",  # HTTP 400 other than context length; final
    "http",  # 429/5xx that outlived the retries; transient, retried on resume
    "timeout",  # no answer within the per-request timeout, after retries; transient
    "connection",  # dropped or refused connection, after retries; transient
    "malformed",  # a 200 whose body is not a chat completion, after retries; transient
]

FINAL_ERROR_KINDS: frozenset[str] = frozenset({"context_length", "skipped_window", "bad_request"})
"""Errors that are a property of the sample, not of the moment: a re-run would fail the same way."""
WINDOW_ERROR_KINDS: frozenset[str] = frozenset({"context_length", "skipped_window"})
"""The prompt did not fit the model's window: a property of the model, not a failure (no error budget)."""


@dataclass(frozen=True)
class Request:
    """One chat completion to make. ``key`` identifies it in the run's samples."""

    key: str
    messages: tuple[Message, ...]
    generation: Mapping[str, Any]


TOKEN_LIMITS = ("max_tokens", "max_completion_tokens")
"""Generation settings that count tokens: whole numbers >= 1."""

NUMERIC_SETTINGS = ("temperature", "top_p", "top_k", "min_p", "presence_penalty", "frequency_penalty",
                    "repetition_penalty")
"""Generation settings that are numbers (a sampling temperature is >= 0)."""


def check_generation(settings: Mapping[str, Any], option: str = "--gen-kwargs") -> None:
    """Refuse generation settings no server takes, before a request is made: a token limit that is no whole
    number >= 1, a sampling setting that is no number, a negative temperature.

    Raises:
        SpecError: Naming the option, the setting and the value.
    """
    for name in TOKEN_LIMITS:
        value = settings.get(name)
        if name in settings and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise SpecError(f"{option} {name}={_shown(value)}: expected a whole number of tokens >= 1")
    for name in NUMERIC_SETTINGS:
        value = settings.get(name)
        if name in settings and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise SpecError(f"{option} {name}={_shown(value)}: expected a number")
    if isinstance(settings.get("temperature"), int | float) and settings["temperature"] < 0:
        raise SpecError(f"{option} temperature={_shown(settings['temperature'])}: expected a number >= 0")


def _shown(value: Any) -> str:
    """A setting as the user wrote it (``--gen-kwargs`` values are JSON)."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


@dataclass(frozen=True)
class Usage:
    """Token counts the server reported (0 when it reported none)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0


@dataclass(frozen=True)
class SampleError:
    """Why a request produced no answer. ``final`` errors are not retried on resume."""

    kind: ErrorKind
    message: str
    status: int | None = None

    @property
    def final(self) -> bool:
        """True when re-running the request would fail the same way."""
        return self.kind in FINAL_ERROR_KINDS


@dataclass(frozen=True)
class Outcome:
    """The result of one :class:`Request`: a text, or an error, plus accounting."""

    key: str
    text: str | None
    reasoning: str | None = None
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    error: SampleError | None = None
    attempts: int = 1
    latency_s: float = 0.0
    window_cut: dict[str, int] | None = None
    """``{"tokens", "kept", "prompt_tokens"}`` when the prompt's middle was cut to fit the window
    (:meth:`needlework.backends.window.WindowRule.fit`), else None."""

    def fields(self) -> dict[str, Any]:
        """The outcome's part of a sample record (everything but the key), as every run loop writes it."""
        error = None if self.error is None else {**asdict(self.error), "final": self.error.final}
        return {"text": self.text, "reasoning": self.reasoning, "finish_reason": self.finish_reason,
                "usage": asdict(self.usage), "error": error, "attempts": self.attempts,
                "latency_s": round(self.latency_s, 4), "window_cut": self.window_cut}


OVER_WINDOW: tuple[str, ...] = ("skip", "cut-middle")
"""What a run does with a prompt over the model's window: skip it (recorded ``skipped_window``), or cut its middle
(:mod:`needlework.backends.window`)."""


class BackendError(NeedleworkError, RuntimeError):
    """A failure that stops the whole run (bad credentials, unknown model, missing extra)."""


class PreflightError(BackendError):
    """The model cannot be reached at all, found before any sample was sent."""


class Backend(Protocol):
    """A model behind some API: streams outcomes for requests, in completion order."""

    name: str

    def describe(self) -> dict[str, Any]:
        """Provenance for the run's results (endpoint, chat-template hash); never secrets."""
        ...

    async def preflight(self, wait_s: float = 0.0) -> None:
        """Check, before any sample is sent, that the model can be reached at all, trying for up
        to ``wait_s`` seconds when it cannot be reached yet (a server still starting).

        Raises:
            BackendError: It cannot (nothing answers, the key is refused, the model is unknown).
        """
        ...

    def stream(self, requests: Iterable[Request]) -> AsyncIterator[Outcome]:
        """Run every request and yield one :class:`Outcome` per request as it completes."""
        ...

    async def aclose(self) -> None:
        """Release connections or engines."""
        ...


async def drain_workers(workers: list[asyncio.Task[None]],
                        results: asyncio.Queue[Outcome | BaseException | None]) -> AsyncIterator[Outcome]:
    """The outcomes ``workers`` put on ``results``, as they come, until each worker has put its final
    ``None``; a worker's exception is re-raised here. Every worker is cancelled and awaited on exit,
    also when the consumer stops early. Shared by the backends that run requests on worker tasks."""
    try:
        running = len(workers)
        while running:
            item = await results.get()
            if item is None:
                running -= 1
            elif isinstance(item, BaseException):
                raise item
            else:
                yield item
    finally:
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
