"""``python -m eval count``: what a run would send, in tokens and money, without calling a model.

Prompt tokens are the rendered messages counted with a tokenizer (the release's own by default),
plus a fixed chat-format overhead per message: a close estimate for any chat template, exact only
for the model whose template matches. Output tokens are the ``max_tokens`` ceiling of each request.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eval.release import Release, open_release
from eval.runner import RunSpec, release_generation, row_generations, tasked_rows
from needlework.backends.base import Message
from needlework.backends.window import CHAT_TOKENS_PER_MESSAGE, CHAT_TOKENS_PER_PROMPT
from needlework.errors import SpecError
from needlework.tokenizers import load_tokenizer
from needlework.tokens import TokenCounter


@dataclass(frozen=True)
class ConfigCount:
    """Token totals of one config's requests."""

    config: str
    rows: int
    prompt_tokens: int
    max_prompt_tokens: int
    max_output_tokens: int

    def cost_usd(self, input_per_mtok: float | None, output_per_mtok: float | None) -> float | None:
        """Upper-bound cost at the given USD prices per million tokens (None without prices)."""
        if input_per_mtok is None and output_per_mtok is None:
            return None
        return (self.prompt_tokens * (input_per_mtok or 0.0) + self.max_output_tokens * (output_per_mtok or 0.0)) / 1e6


@dataclass(frozen=True)
class CountedRequest:
    """One request a run would send, counted: its config and row, messages, sampling settings and seed, the prompt's tokens
    (the rendered messages plus the chat format's overhead) and its output ceiling (``max_tokens``)."""

    config: str
    row_id: str
    messages: tuple[Message, ...]
    settings: Mapping[str, Any]
    seed: int
    prompt_tokens: int
    output_tokens: int


def counted_requests(spec: RunSpec, release: Release, counter: TokenCounter) -> Iterator[tuple[str, CountedRequest]]:
    """(task name, request) for every request ``spec`` would send over ``release``, each row's generations included,
    in release order: what ``eval count`` adds up and what ``eval suite``'s preflight checks against the window."""
    defaults = release_generation(release)
    for config, row, task_name, task in tasked_rows(spec, release):
        messages = tuple(task.render(row))
        tokens = CHAT_TOKENS_PER_PROMPT + sum(CHAT_TOKENS_PER_MESSAGE + counter.count(m["content"]) for m in messages)
        for _, seed, settings in row_generations(spec, row, defaults):
            output = int(settings.get("max_completion_tokens") or settings.get("max_tokens") or 0)
            yield task_name, CountedRequest(config, str(row["id"]), messages, settings, seed, tokens, output)


def add_up(configs: Sequence[str], requests: Iterable[CountedRequest]) -> list[ConfigCount]:
    """One :class:`ConfigCount` per config (in ``configs`` order) from counted requests."""
    totals = {config: [0, 0, 0, 0] for config in configs}  # requests, prompt, longest, output
    for request in requests:
        total = totals[request.config]
        total[0] += 1
        total[1] += request.prompt_tokens
        total[2] = max(total[2], request.prompt_tokens)
        total[3] += request.output_tokens
    return [ConfigCount(config, *total) for config, total in totals.items()]


def count_run(spec: RunSpec, tokenizer: str | None = None) -> tuple[str, list[ConfigCount]]:
    """Count the prompt and maximum output tokens of every request ``spec`` would send.

    Returns:
        The tokenizer name used, and one :class:`ConfigCount` per config.
    """
    release = open_release(spec.dataset, spec.revision)
    spec.select.check(release, spec.configs, spec.split)
    name = tokenizer or (release.manifest.get("tokenizer") or {}).get("name")
    if not name:
        raise SpecError(f"{spec.dataset}: the manifest names no tokenizer; pass --tokenizer")
    requests = (request for _, request in counted_requests(spec, release, load_tokenizer(name)))
    return name, add_up(spec.configs, requests)
