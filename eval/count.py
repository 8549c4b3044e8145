"""``python -m eval count``: what a run would send, in tokens and money, without calling a model.

Prompt tokens are the rendered messages counted with a tokenizer (the release's own by default),
plus a fixed chat-format overhead per message: a close estimate for any chat template, exact only
for the model whose template matches. Output tokens are the ``max_tokens`` ceiling of each request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eval.release import open_release
from eval.runner import RunSpec, release_generation, tasked_rows
from needlework.backends.window import CHAT_TOKENS_PER_MESSAGE, CHAT_TOKENS_PER_PROMPT
from needlework.errors import SpecError
from needlework.tokenizers import load_tokenizer


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
    counter = load_tokenizer(name)
    totals = {config: [0, 0, 0, 0] for config in spec.configs}  # rows, prompt, longest, output
    defaults = release_generation(release)
    for config, row, _, task in tasked_rows(spec, release):
        tokens = CHAT_TOKENS_PER_PROMPT + sum(
            CHAT_TOKENS_PER_MESSAGE + counter.count(m["content"]) for m in task.render(row)
        )
        generation: dict[str, Any] = spec.generation_for(row, defaults)
        total = totals[config]
        total[0] += 1
        total[1] += tokens
        total[2] = max(total[2], tokens)
        total[3] += int(generation.get("max_completion_tokens") or generation.get("max_tokens") or 0)
    counts = [ConfigCount(config, *total) for config, total in totals.items()]
    return name, counts
