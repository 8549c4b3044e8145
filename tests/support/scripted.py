"""An in-process backend for eval tests: answers each prompt with a function of its last message.

It streams outcomes in request order, records every prompt it was sent, and counts how often it
was closed; an answer function may return an :class:`needlework.backends.base.Outcome` (an error, say)
instead of text, which is sent under the request's key.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import replace
from typing import Any

from needlework.backends.base import Outcome, Request


class ScriptedBackend:
    """Answers each request with ``answer(content of its last message)``: text, or a whole Outcome."""

    name = "scripted"

    def __init__(self, answer: Callable[[str], str | Outcome]) -> None:
        self.answer = answer
        self.prompts: list[str] = []
        self.generations: list[dict[str, Any]] = []  # each request's generation settings, in order
        self.closed = 0
        self.preflights = 0

    def describe(self) -> dict[str, Any]:
        return {"backend": "scripted"}

    async def preflight(self, wait_s: float = 0.0) -> None:
        self.preflights += 1

    async def stream(self, requests: Iterable[Request]) -> AsyncIterator[Outcome]:
        for request in requests:
            content = request.messages[-1]["content"]
            self.prompts.append(content)
            self.generations.append(dict(request.generation))
            answer = self.answer(content)
            yield replace(answer, key=request.key) if isinstance(answer, Outcome) else Outcome(request.key, answer)

    async def aclose(self) -> None:
        self.closed += 1
